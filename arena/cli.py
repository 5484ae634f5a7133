"""``hive-arena``: matches between players, Elo ratings with intervals, SPRT gating, rating plots.

Its modes are ``gauntlet``, ``roundrobin``, ``sprt``, ``ladder`` (arena.ladder), ``calibrate``
(arena.calibration), ``plot`` (arena.plot) and ``compare`` (arena.ladder_plot). Players are spec
strings (``random``, ``greedy``, ``alphabeta:depth=2``, ``uhp:cmd=...``,
``alphazero:ckpt=PATH,sims=N``). Rerunning a command resumes it from its results directory. The
script ``scripts/arena.py`` (``python -m scripts.arena``) runs :func:`main`.

See docs/arena.md.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from pathlib import Path

from hive_env import GAME_TYPES
from hive_env.files import write_atomic
from hive_zero import version_line
from hive_zero.options import default_of, param_default

from . import ladder
from .arena import run_arena
from .calibration import calibration_path, write_calibration
from .config import STOPPING, ArenaConfig, default_out_dir, say_stopped
from .report import format_report

SEED_HELP = "seeds the openings and the players (default %(default)s)"
PLY_CAP_HELP = "a game reaching this ply is a draw (default %(default)s)"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, no usage dump
        self.exit(2, f"hive-arena: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    """The ``hive-arena`` argument parser: one subcommand per mode, ``ladder``, ``calibrate``,
    ``plot`` and ``compare``."""
    common = argparse.ArgumentParser(add_help=False)
    arg = common.add_argument
    arena = functools.partial(default_of, ArenaConfig)  # the defaults live in ArenaConfig and run_arena
    arg("--games-per-pairing", type=int, default=arena("games_per_pairing"),
        help="games per pairing, even (default %(default)s)")
    arg("--game-type", default=arena("game_type"), choices=GAME_TYPES)
    arg("--openings", default=arena("openings"),
        help="random:PLIES (random legal plies, seeded) or a file of GameStrings (default %(default)s)")
    arg("--seed", type=int, default=arena("seed"), help=SEED_HELP)
    arg("--workers", type=int, default=param_default(run_arena, "workers"),
        help="processes playing games (default %(default)s)")
    arg("--out", help="results directory (default runs/arena/MODE-HASH of the settings)")
    arg("--anchor", help="player rated 0 (default random if playing, else B for sprt, else the first)")
    arg("--ply-cap", type=int, default=arena("ply_cap"), help=PLY_CAP_HELP)
    arg("--time", type=float, help="seconds per move for every player (a spec's own time= wins: time odds)")
    arg("--clock", metavar="BASE+INC",
        help="a game clock instead: BASE seconds a side plus INC after each move (e.g. 60+1); a time manager "
             "shares each side's clock out over its moves, a side whose clock runs out loses on time")
    arg("--threads", type=int, metavar="N",
        help="search threads asked of each side (default: 1 with --time or --clock, one core a side, each "
             "worker pinned to its own core where there are enough; else each player's own)")
    arg("--depth", type=int, help="search depth for every player (overrides specs)")
    arg("--sims", type=int, help="MCTS simulations per move for every player (overrides specs)")
    arg("--elo-prior", type=float, default=param_default(run_arena, "prior_draws"),
        help="virtual draws per pairing (default %(default)g)")
    arg("--no-progress", action="store_true", help="no progress bar")
    parser = _Parser(prog="hive-arena", description=__doc__.splitlines()[0].replace("``", ""))
    parser.add_argument("--version", action="version", version=version_line("hive-arena"))
    sub = parser.add_subparsers(dest="command", required=True)
    gauntlet = sub.add_parser("gauntlet", parents=[common], help="one player against each opponent")
    gauntlet.add_argument("player", metavar="PLAYER")
    gauntlet.add_argument("opponents", nargs="+", metavar="OPPONENT")
    sub.add_parser("roundrobin", parents=[common], help="every pair of players").add_argument(
        "players", nargs="+", metavar="PLAYER")
    sprt = sub.add_parser("sprt", parents=[common], help="sequential test of A against B")
    sprt.add_argument("players", nargs=2, metavar="PLAYER", help="A (the candidate) and B (the baseline)")
    sprt.add_argument("--elo0", type=float, default=arena("elo0"),
                      help="H0: A is this much stronger (default %(default)g)")
    sprt.add_argument("--elo1", type=float, default=arena("elo1"),
                      help="H1: A is this much stronger (default %(default)g)")
    sprt.add_argument("--alpha", type=float, default=arena("alpha"),
                      help="false H1 rate (default %(default)g)")
    sprt.add_argument("--beta", type=float, default=arena("beta"), help="false H0 rate (default %(default)g)")
    sprt.add_argument("--max-games", type=int, default=2000, help="stop undecided here (default %(default)s)")
    _ladder_parser(sub)
    _calibrate_parser(sub)
    plot = sub.add_parser("plot", help="ratings over checkpoints as a PNG, on one rating scale",
                          description="Ratings of RESULTS_DIRs on one scale (the first one's anchor; other "
                          "anchors re-anchored through a shared player, else refused), checkpoints by step.")
    plot.add_argument("dirs", nargs="+", metavar="RESULTS_DIR")
    plot.add_argument("--out", default="ratings.png", help="PNG file (default %(default)s)")
    compare = sub.add_parser("compare", help="an ablation's arms compared over seeds: a PNG, a table, JSON",
                             description="Arms of ladders: LADDER_DIRs with --labels (the same label for the "
                             "seeds of one arm; arms in order of first appearance, the first is the "
                             "reference), or one SWEEP_DIR holding sweep.json (each job's ladder in "
                             "RUN_DIR/ladder; jobs without one yet are skipped with a warning). Prints one "
                             "line per arm: seeds, mean Elo and its sd over seeds, the difference to the "
                             "reference with a 95% Welch t interval over seeds, and a verdict; draws each "
                             "arm's scores against every opponent and its Elo relative to the common anchor "
                             "(ladders with other anchors are refused).")
    compare.add_argument("dirs", nargs="+", metavar="LADDER_DIR|SWEEP_DIR")
    compare.add_argument("--labels", nargs="+", metavar="LABEL",
                         help="one per LADDER_DIR, repeated for seeds of one arm (default: the players' "
                         "names); with a SWEEP_DIR one per arm of sweep.json (default: its arm names)")
    compare.add_argument("--title", help="the plot's title")
    compare.add_argument("--out", default="ladders.png", help="PNG file (default %(default)s)")
    compare.add_argument("--json", metavar="PATH", help="write the arms' statistics here as JSON")
    return parser


def _ladder_parser(sub: argparse._SubParsersAction) -> None:
    own = functools.partial(param_default, ladder.ladder_config)  # the ladder's defaults
    p = sub.add_parser("ladder", help="one player against the fixed ladder: its Elo vs alphabeta:depth=2 "
                       "(random when --depths leaves out 2)",
                       description="PLAYER against random, greedy and alphabeta at each depth (and any "
                       f"--extra opponents) with fixed settings: seed (default {own('seed')}), colours "
                       f"alternated in pairs, openings {ladder.OPENINGS}, ply cap {own('ply_cap')}. Prints "
                       "the usual report and one line: "
                       f"PLAYER's Elo relative to {ladder.ANCHOR} (random, with a warning, when --depths "
                       "leaves out 2) with its 95% interval, from one fit over the ladder's games and the "
                       "rungs' games among themselves (hive-arena calibrate, shipped; the games against the "
                       "anchor alone where no calibration applies: another game type, equal time...), and "
                       "what PLAYER and the anchor spent per move (seconds, simulations or nodes; every "
                       "player's in ladder.json in the results directory). Rerunning the same command "
                       "resumes.")
    arg = p.add_argument
    arg("player", metavar="PLAYER")
    arg("--extra", nargs="+", action="extend", default=[], metavar="SPEC",
        help="more opponents, e.g. uhp:cmd=/path/to/engine")
    arg("--depths", nargs="+", type=int, metavar="D",
        help=f"the alphabeta rungs (default {' '.join(map(str, ladder.DEPTHS))}; with --equal-time "
             f"{' '.join(map(str, ladder.EQUAL_TIME_DEPTHS))}, as a time budget overrides the depth; without "
             f"2 the Elo is relative to random)")
    arg("--games-per-pairing", type=int, default=own("games_per_pairing"),
        help="games per opponent, even (default %(default)s)")
    arg("--equal-time", type=float, metavar="SECONDS",
        help="the same seconds per move for every player: alphabeta deepens iteratively until the time "
             "is up, alphazero searches until it is up (its simulations follow from its speed), uhp "
             "engines get that time, random and greedy ignore it")
    arg("--seed", type=int, default=own("seed"), help=SEED_HELP)
    arg("--ply-cap", type=int, default=own("ply_cap"), help=PLY_CAP_HELP)
    arg("--game-type", default=own("game_type"), choices=GAME_TYPES)
    arg("--workers", type=int, default=param_default(ladder.run_ladder, "workers"),
        help="processes playing games (default %(default)s)")
    arg("--out", help="results directory (default runs/arena/gauntlet-HASH of the settings)")
    arg("--no-progress", action="store_true", help="no progress bar")


def _calibrate_parser(sub: argparse._SubParsersAction) -> None:
    ply_cap = default_of(ArenaConfig, "ply_cap")  # calibration_config leaves it at ArenaConfig's
    p = sub.add_parser("calibrate", help="the ladder rungs' round robin among themselves: the calibration "
                       "a ladder's Elo is pooled with (arena.calibration)",
                       description="A round robin of random, greedy and alphabeta at each depth with the "
                       f"ladder's openings ({ladder.OPENINGS}) and ply cap ({ply_cap}), no time "
                       "budget; writes the rungs' pairwise wins, draws and losses with the command, seed "
                       "and game type to --data. Rerunning the same command resumes.")
    arg = p.add_argument
    own = functools.partial(param_default, ladder.calibration_config)  # the calibration's defaults
    arg("--games-per-pairing", type=int, default=own("games_per_pairing"),
        help="games per pair of rungs, even (default %(default)s)")
    arg("--seed", type=int, default=own("seed"), help=SEED_HELP)
    arg("--game-type", default=own("game_type"), choices=GAME_TYPES)
    arg("--depths", nargs="+", type=int, metavar="D", default=list(own("depths")),
        help=f"the alphabeta rungs (default {' '.join(map(str, own('depths')))})")
    arg("--workers", type=int, default=param_default(ladder.run_calibration, "workers"),
        help="processes playing games (default %(default)s)")
    arg("--out", help="results directory (default runs/arena/roundrobin-HASH of the settings)")
    arg("--data", help="the calibration file (default arena/data/ladder_rungs.json for Base, "
        "ladder_rungs_<game type>.json for others)")
    arg("--no-progress", action="store_true", help="no progress bar")


def calibrate_command(args: argparse.Namespace) -> str:
    """The command that plays the calibration of ``args`` again (no paths, no workers)."""
    depths = "" if tuple(args.depths) == ladder.DEPTHS else f" --depths {' '.join(map(str, args.depths))}"
    return (f"hive-arena calibrate --games-per-pairing {args.games_per_pairing} --seed {args.seed} "
            f"--game-type {args.game_type}{depths}")


def config_from_args(args: argparse.Namespace) -> ArenaConfig:
    """The arena a parsed ``hive-arena`` command plays (not ``plot`` or ``compare``)."""
    if args.command == "calibrate":
        return ladder.calibration_config(args.games_per_pairing, args.seed, args.game_type, args.depths)
    if args.command == "ladder":
        return ladder.ladder_config(args.player, args.depths, args.extra, args.games_per_pairing,
                                    args.equal_time, args.seed, args.ply_cap, args.game_type)
    extra, games = {}, args.games_per_pairing
    players = [args.player, *args.opponents] if args.command == "gauntlet" else args.players
    if args.command == "sprt":
        extra = {"elo0": args.elo0, "elo1": args.elo1, "alpha": args.alpha, "beta": args.beta}
        games = args.max_games
    return ArenaConfig(args.command, tuple(players), games, args.game_type, args.openings, args.seed,
                       args.ply_cap, args.time, args.depth, args.sims, clock=args.clock, threads=args.threads,
                       **extra)


def main(argv: list[str] | None = None) -> int:
    """Run ``hive-arena`` with ``argv`` (default: the command line); the exit status."""
    args = build_parser().parse_args(argv)
    try:
        if args.command == "plot":
            from .plot import plot_ratings  # matplotlib only when plotting

            print(f"wrote {plot_ratings(args.dirs, args.out)}")
            return 0
        if args.command == "compare":
            return compare(args)
        config = config_from_args(args)  # checked as it is built
        out = args.out or default_out_dir(config)
        print(f"hive-arena {args.command}: results in {out}", flush=True)
        if args.command == "ladder" and (note := ladder.anchor_note(config.players)):
            print(f"hive-arena ladder: warning: {note}", file=sys.stderr, flush=True)
        if args.command == "ladder":
            report, result = ladder.run_ladder(config, out, workers=args.workers,
                                               progress=not args.no_progress)
        elif args.command == "calibrate":
            data = args.data or calibration_path(args.game_type)
            report, calibration = ladder.run_calibration(config, out, calibrate_command(args),
                                                         Path(data).name, workers=args.workers,
                                                         progress=not args.no_progress)
            written = write_calibration(calibration, data)
        else:
            report = run_arena(config, out, workers=args.workers, anchor=args.anchor,
                               progress=not args.no_progress, prior_draws=args.elo_prior)
    except STOPPING as e:
        return say_stopped("hive-arena", e)
    except Exception as e:  # a game failed (a player crashed): finished games are kept
        print(f"hive-arena: error: {type(e).__name__}: {e} (rerun the same command to resume)",
              file=sys.stderr)
        return 1
    print(format_report(report))
    if args.command == "ladder":
        print(result.line())
    if args.command == "calibrate":
        print(f"wrote {written}: {calibration.games} games between {len(calibration.rungs)} rungs")
    return 0


def compare(args: argparse.Namespace) -> int:
    """``hive-arena compare``: the table on stdout, the PNG, and ``--json`` (``arena.ladder_plot``).
    It takes ladders (a label given more than once names the seeds of one arm) or a sweep
    directory (its ``sweep.json``: each job's ladder in ``RUN_DIR/ladder``), and prints each arm's
    mean Elo over seeds and its difference to the first arm with a 95% Welch interval and a
    verdict.

    Raises:
        ValueError: see :func:`arena.ladder_plot.compare_data`, or a bad sweep directory.
    """
    from . import ladder_plot  # matplotlib only when plotting

    dirs, labels = list(args.dirs), args.labels
    if any((Path(d) / ladder_plot.SWEEP_FILE).is_file() for d in dirs):
        if len(dirs) != 1:
            raise ValueError("a sweep directory comes alone: give one SWEEP_DIR, or LADDER_DIRs")
        dirs, labels = sweep_inputs(Path(dirs[0]), labels)
    data = ladder_plot.compare_data(dirs, labels)
    print(ladder_plot.format_table(data))
    print(f"wrote {ladder_plot.plot_ladders(dirs, args.out, title=args.title, data=data)}")
    if args.json:
        body = {"anchor": data.anchor, "reference": data.stats[0].label, "level": ladder_plot.LEVEL,
                "arms": [st.to_json() for st in data.stats], "notes": data.notes}
        print(f"wrote {write_atomic(args.json, json.dumps(body, indent=1) + chr(10))}")
    return 0


def sweep_inputs(sweep_dir: Path, labels: list[str] | None) -> tuple[list[Path], list[str]]:
    """A sweep's ladder directories and their arms' labels (``labels``: one per arm of
    ``sweep.json``, in its order); a warning on stderr names the jobs without a ladder yet."""
    from .ladder_plot import sweep_ladders

    sweep = sweep_ladders(sweep_dir)
    if sweep.skipped:
        print(f"hive-arena compare: warning: no ladder.json yet, skipped {len(sweep.skipped)} jobs: "
              f"{'; '.join(sweep.skipped)}", file=sys.stderr, flush=True)
    if labels is None:
        return sweep.dirs, sweep.arms
    if len(labels) != len(sweep.order):
        raise ValueError(f"{len(labels)} labels for {len(sweep.order)} arms of the sweep "
                         f"({', '.join(sweep.order)}): give one label per arm")
    rename = dict(zip(sweep.order, labels, strict=True))
    return sweep.dirs, [rename[a] for a in sweep.arms]

