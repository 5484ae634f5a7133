"""``hive-arena``: matches between players, Elo ratings with intervals, SPRT gating, rating plots.

    hive-arena gauntlet PLAYER OPPONENT...     the first player against each opponent
    hive-arena roundrobin PLAYER...            every pair of players
    hive-arena sprt A B --elo0 0 --elo1 20     A against B until the SPRT decides
    hive-arena ladder PLAYER                   PLAYER against the fixed ladder (arena.ladder)
    hive-arena plot RESULTS_DIR... --out ratings.png
    hive-arena compare LADDER_DIR... --labels L... --out ladders.png   ladders side by side

Players are spec strings (``random``, ``greedy``, ``alphabeta:depth=2``, ``uhp:cmd=...``,
``alphazero:ckpt=PATH,sims=N``). Rerunning a command resumes it from its results directory.
The script ``scripts/arena.py`` (``python -m scripts.arena``) runs :func:`main`.
"""

from __future__ import annotations

import argparse
import sys

from hive_env import GAME_TYPES
from hive_env.outcome import DEFAULT_PLY_CAP

from . import ladder
from .arena import run_arena
from .config import ArenaConfig, ArenaError, default_out_dir
from .report import format_report


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, no usage dump
        self.exit(2, f"hive-arena: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    """The ``hive-arena`` argument parser: one subcommand per mode, ``ladder`` and ``plot``."""
    common = argparse.ArgumentParser(add_help=False)
    arg = common.add_argument
    arg("--games-per-pairing", type=int, default=10, help="games per pairing, even (default 10)")
    arg("--game-type", default="Base", choices=GAME_TYPES)
    arg("--openings", default="random:4",
        help="random:PLIES (random legal plies, seeded) or a file of GameStrings (default random:4)")
    arg("--seed", type=int, default=0, help="seeds the openings and the players (default 0)")
    arg("--workers", type=int, default=1, help="processes playing games (default 1)")
    arg("--out", help="results directory (default runs/arena/MODE-HASH of the settings)")
    arg("--anchor", help="player rated 0 (default random if playing, else B for sprt, else the first)")
    arg("--ply-cap", type=int, default=DEFAULT_PLY_CAP,
        help=f"a game reaching this ply is a draw (default {DEFAULT_PLY_CAP})")
    arg("--time", type=float, help="seconds per move for every player (a spec's own time= wins: time odds)")
    arg("--clock", metavar="BASE+INC",
        help="a game clock instead: BASE seconds a side plus INC after each move (e.g. 60+1); a time manager "
             "shares each side's clock out over its moves, a side whose clock runs out loses on time")
    arg("--threads", type=int, metavar="N",
        help="search threads asked of each side (default: 1 with --time or --clock, one core a side, each "
             "worker pinned to its own core where there are enough; else each player's own)")
    arg("--depth", type=int, help="search depth for every player (overrides specs)")
    arg("--sims", type=int, help="MCTS simulations per move for every player (overrides specs)")
    arg("--elo-prior", type=float, default=1.0, help="virtual draws per pairing (default 1)")
    arg("--no-progress", action="store_true", help="no progress bar")
    parser = _Parser(prog="hive-arena", description=__doc__.splitlines()[0].replace("``", ""))
    sub = parser.add_subparsers(dest="command", required=True)
    gauntlet = sub.add_parser("gauntlet", parents=[common], help="one player against each opponent")
    gauntlet.add_argument("player", metavar="PLAYER")
    gauntlet.add_argument("opponents", nargs="+", metavar="OPPONENT")
    sub.add_parser("roundrobin", parents=[common], help="every pair of players").add_argument(
        "players", nargs="+", metavar="PLAYER")
    sprt = sub.add_parser("sprt", parents=[common], help="sequential test of A against B")
    sprt.add_argument("players", nargs=2, metavar="PLAYER", help="A (the candidate) and B (the baseline)")
    sprt.add_argument("--elo0", type=float, default=0.0, help="H0: A is this much stronger (default 0)")
    sprt.add_argument("--elo1", type=float, default=20.0, help="H1: A is this much stronger (default 20)")
    sprt.add_argument("--alpha", type=float, default=0.05, help="false H1 rate (default 0.05)")
    sprt.add_argument("--beta", type=float, default=0.05, help="false H0 rate (default 0.05)")
    sprt.add_argument("--max-games", type=int, default=2000, help="stop undecided here (default 2000)")
    _ladder_parser(sub)
    plot = sub.add_parser("plot", help="ratings over checkpoints as a PNG, on one rating scale",
                          description="Ratings of RESULTS_DIRs on one scale (the first one's anchor; other "
                          "anchors re-anchored through a shared player, else refused), checkpoints by step.")
    plot.add_argument("dirs", nargs="+", metavar="RESULTS_DIR")
    plot.add_argument("--out", default="ratings.png", help="PNG file (default ratings.png)")
    compare = sub.add_parser("compare", help="ladders side by side as a PNG (an ablation's arms)",
                             description="Each LADDER_DIR's scores against every opponent and its Elo "
                             "relative to the common anchor, one row per ladder (ladders with other "
                             "anchors are refused).")
    compare.add_argument("dirs", nargs="+", metavar="LADDER_DIR")
    compare.add_argument("--labels", nargs="+", metavar="LABEL",
                         help="one per LADDER_DIR (default: the players' names)")
    compare.add_argument("--title", help="the plot's title")
    compare.add_argument("--out", default="ladders.png", help="PNG file (default ladders.png)")
    return parser


def _ladder_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("ladder", help="one player against the fixed ladder: its Elo vs alphabeta:depth=2 "
                       "(random when --depths leaves out 2)",
                       description="PLAYER against random, greedy and alphabeta at each depth (and any "
                       "--extra opponents) with fixed settings: seed (default 0), colours alternated in "
                       f"pairs, openings {ladder.OPENINGS}, ply cap {DEFAULT_PLY_CAP}. Prints the usual "
                       "report and one line: "
                       f"PLAYER's Elo relative to {ladder.ANCHOR} (random, with a warning, when --depths "
                       "leaves out 2) with its 95% interval and what PLAYER "
                       "and the anchor spent per move (seconds, simulations or nodes; every player's in "
                       "ladder.json in the results directory). Rerunning the same command resumes.")
    arg = p.add_argument
    arg("player", metavar="PLAYER")
    arg("--extra", nargs="+", action="extend", default=[], metavar="SPEC",
        help="more opponents, e.g. uhp:cmd=/path/to/engine")
    arg("--depths", nargs="+", type=int, metavar="D",
        help=f"the alphabeta rungs (default {' '.join(map(str, ladder.DEPTHS))}; with --equal-time "
             f"{' '.join(map(str, ladder.EQUAL_TIME_DEPTHS))}, as a time budget overrides the depth; without "
             f"2 the Elo is relative to random)")
    arg("--games-per-pairing", type=int, default=ladder.GAMES_PER_PAIRING,
        help=f"games per opponent, even (default {ladder.GAMES_PER_PAIRING})")
    arg("--equal-time", type=float, metavar="SECONDS",
        help="the same seconds per move for every player: alphabeta deepens iteratively until the time "
             "is up, alphazero searches until it is up (its simulations follow from its speed), uhp "
             "engines get that time, random and greedy ignore it")
    arg("--seed", type=int, default=0, help="seeds the openings and the players (default 0)")
    arg("--ply-cap", type=int, default=DEFAULT_PLY_CAP,
        help=f"a game reaching this ply is a draw (default {DEFAULT_PLY_CAP})")
    arg("--game-type", default="Base", choices=GAME_TYPES)
    arg("--workers", type=int, default=1, help="processes playing games (default 1)")
    arg("--out", help="results directory (default runs/arena/gauntlet-HASH of the settings)")
    arg("--no-progress", action="store_true", help="no progress bar")


def config_from_args(args: argparse.Namespace) -> ArenaConfig:
    """The arena a parsed ``hive-arena`` command plays (not ``plot``)."""
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
            from .ladder_plot import plot_ladders  # matplotlib only when plotting

            print(f"wrote {plot_ladders(args.dirs, args.out, args.labels, args.title)}")
            return 0
        config = config_from_args(args)  # checked as it is built
        out = args.out or default_out_dir(config)
        print(f"hive-arena {args.command}: results in {out}", flush=True)
        if args.command == "ladder" and (note := ladder.anchor_note(config.players)):
            print(f"hive-arena ladder: warning: {note}", file=sys.stderr, flush=True)
        if args.command == "ladder":
            report, result = ladder.run_ladder(config, out, workers=args.workers,
                                               progress=not args.no_progress)
        else:
            report = run_arena(config, out, workers=args.workers, anchor=args.anchor,
                               progress=not args.no_progress, prior_draws=args.elo_prior)
    except (ArenaError, ValueError, OSError) as e:
        print(f"hive-arena: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\nhive-arena: interrupted; rerun the same command to resume", file=sys.stderr)
        return 130
    except Exception as e:  # a game failed (a player crashed): finished games are kept
        print(f"hive-arena: error: {type(e).__name__}: {e} (rerun the same command to resume)",
              file=sys.stderr)
        return 1
    print(format_report(report))
    if args.command == "ladder":
        print(result.line())
    return 0

