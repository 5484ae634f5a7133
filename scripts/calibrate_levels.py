"""Calibrate the ``alphazero`` player's levels: one schedule of games, one rating fit, one table.

    python -m scripts.calibrate_levels --games 20 --workers 2                        # Base
    python -m scripts.calibrate_levels --games 20 --workers 2 --game-type Base+MLP
    python -m scripts.calibrate_levels --part untimed ...   # the games whose result no load changes
    python -m scripts.calibrate_levels --levels 1 10 --games 2 --depths 1 --no-nokamute   # a smoke run

The players: every level (``alphazero:level=N``, the network shipped for the game type, or
``--ckpt``) and the ladder's anchors (``random``, ``greedy``, ``alphabeta:depth=1..4``, and
nokamute at 1 s a move where ``../shared/tools/nokamute`` (or ``--nokamute PATH``) exists), in a
round robin (``hive-arena roundrobin``'s arena: the ladder's openings ``random:4`` and ply cap,
colours alternated, one search thread a side, each worker pinned to a core where there are
enough) whose schedule pairs each player with those near it (``arena.level_schedule``: a rating
fit needs a connected schedule, not every pair).

The schedule is played in two parts, each an arena of its own under the results directory:
``untimed`` (every game whose players search simulations or a depth: its result does not depend
on the machine's load, so it may run beside other work) and ``timed`` (the games of level 10 and
nokamute: run them on an otherwise idle machine). ``--part`` picks one (default both, untimed
first); ``--timed-games`` sets the timed part's games a pairing. One Bradley-Terry fit of every
game found in either part (``arena.ratings.fit_elo``) gives each player's Elo relative to
``alphabeta:depth=2`` (the ladder's anchor) with its 95% likelihood-ratio interval, and each
level's margin over the level below it: the same fit anchored on that level, so the interval is
the margin's own (``confirmed`` when its lower end is above 0).

Written to the results directory (default ``runs/arena/levels-GAMETYPE-sSEED``; rerunning the
same command resumes it): ``levels.json`` (every number, the command, the schedule and the
conditions; ``complete`` once both parts are) and ``levels.md`` (the table for docs/players.md
and the model card), printed at the end.
"""

from __future__ import annotations

import argparse
import json
import math
import shlex
import sys
from pathlib import Path

from arena import ladder
from arena.arena import run_arena
from arena.config import ArenaConfig, ArenaError
from arena.ladder_card import levels_section_of
from arena.level_schedule import PARTS, part_pairs, player_name, schedule
from arena.ratings import fit_elo, tally
from arena.results import ResultsDir
from arena.schedule import resolve_openings
from arena.schedule import schedule as arena_schedule
from arena.tally import game_results
from hive_env import GAME_TYPES
from hive_env.files import write_atomic
from hive_env.outcome import DEFAULT_PLY_CAP
from hive_env.records.arena_record import ArenaRecord
from players.engines import CHECKOUT_PATH
from players.levels import LEVELS, MAX_LEVEL, MIN_LEVEL
from training.model_card import levels_table

NOKAMUTE = CHECKOUT_PATH
"""Where the project keeps a built nokamute (``players.engines``); used when present."""
NOKAMUTE_TIME = 1.0
"""nokamute's seconds a move: the top level's time."""


def level_spec(number: int, ckpt: str | None, device: str) -> str:
    """The spec of level ``number``, named ``level-N`` in the tables."""
    net = f"ckpt={ckpt}," if ckpt else ""
    return f"alphazero:{net}level={number},device={device},name=level-{number}"


def players(levels: list[int], depths: list[int], nokamute: str | None, ckpt: str | None,
            device: str) -> list[str]:
    """The round robin's players: the levels, then the anchors."""
    out = [level_spec(n, ckpt, device) for n in levels]
    out += ["random", "greedy", *(f"alphabeta:depth={d}" for d in depths)]
    if nokamute:
        out.append(f"uhp:cmd={nokamute},time={NOKAMUTE_TIME:g},name=nokamute")
    return out


def part_config(args: argparse.Namespace, specs: list[str], pairs: list[tuple[int, int]],
                part: str) -> ArenaConfig:
    games = args.timed_games if part == "timed" and args.timed_games else args.games
    return ArenaConfig("roundrobin", tuple(specs), games, args.game_type, ladder.OPENINGS, args.seed,
                       args.ply_cap, threads=1, pairs=tuple(pairs))


def played(config: ArenaConfig, path: Path) -> list[dict]:
    """The records of a part's arena directory (none when it was never started)."""
    if not (path / "config.json").exists():
        return []
    openings = resolve_openings(config)
    return ResultsDir(path).open(config, openings, arena_schedule(config, openings))


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="calibrate_levels", description=__doc__.splitlines()[0])
    p.add_argument("--levels", nargs="+", type=int, default=list(range(MIN_LEVEL, MAX_LEVEL + 1)),
                   metavar="N", help="the levels to rate (default all)")
    p.add_argument("--games", type=int, default=20, help="games a pairing, even (default 20)")
    p.add_argument("--timed-games", type=int,
                   help="games a pairing of the timed part (level 10, nokamute; default --games)")
    p.add_argument("--part", choices=(*PARTS, "both"), default="both",
                   help="play the untimed games, the timed ones, or both (default); the table "
                        "pools every game played in either")
    p.add_argument("--game-type", default="Base", choices=GAME_TYPES)
    p.add_argument("--depths", nargs="+", type=int, default=list(ladder.DEPTHS), metavar="D",
                   help="the alphabeta anchors (default 1 2 3 4)")
    p.add_argument("--nokamute", default=str(NOKAMUTE),
                   help="nokamute's executable, an anchor at 1 s a move when it exists (default "
                        "../shared/tools/nokamute)")
    p.add_argument("--no-nokamute", action="store_true", help="leave nokamute out")
    p.add_argument("--ckpt", help="a checkpoint instead of the network shipped for the game type")
    p.add_argument("--device", default="cpu", help="the levels' device (default cpu)")
    p.add_argument("--seed", type=int, default=0, help="seeds the openings and the players (default 0)")
    p.add_argument("--ply-cap", type=int, default=DEFAULT_PLY_CAP)
    p.add_argument("--workers", type=int, default=1, help="processes playing games (default 1)")
    p.add_argument("--out", help="results directory (default runs/arena/levels-GAMETYPE-sSEED)")
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)
    bad = [n for n in args.levels if not MIN_LEVEL <= n <= MAX_LEVEL]
    if bad or len(set(args.levels)) != len(args.levels):
        p.error(f"--levels: distinct whole numbers from {MIN_LEVEL} to {MAX_LEVEL}")
    args.levels = sorted(args.levels)
    return args


def table(config: ArenaConfig, records: list[dict], levels: list[int], prior_draws: float = 1.0) -> dict:
    """Every player's Elo relative to the ladder's anchor (random when it is not playing) with
    its 95% interval, and each level's margin over the next level below it (the fit anchored
    there)."""
    names = list(config.players)
    index = {n: i for i, n in enumerate(names)}
    points, games = tally(len(names), game_results(ArenaRecord.from_json(r) for r in records))
    anchor = ladder.ANCHOR if ladder.ANCHOR in index else "random"
    fit = fit_elo(points, games, anchor=index[anchor], prior_draws=prior_draws)

    def num(x: float) -> float | None:
        return round(float(x), 1) if math.isfinite(x) else None

    rows = []
    for i, spec in enumerate(names):
        number = next((n for n in levels if player_name(spec) == f"level-{n}"), None)
        played = int(games[i].sum())
        rows.append({"player": player_name(spec), "spec": spec, "level": number,
                     "elo": num(fit.elo[i]), "lo": num(fit.lo[i]), "hi": num(fit.hi[i]), "games": played,
                     "score": round(float(points[i].sum() / played), 3) if played else None})
    level_rows = {r["level"]: r for r in rows if r["level"] is not None}
    for below, above in zip(levels, levels[1:], strict=False):
        i, j = names.index(level_rows[above]["spec"]), names.index(level_rows[below]["spec"])
        gap = fit_elo(points, games, anchor=j, prior_draws=prior_draws)
        level_rows[above]["over_below"] = {"level": below, "elo": num(gap.elo[i]), "lo": num(gap.lo[i]),
                                           "hi": num(gap.hi[i]),
                                           "confirmed": bool(math.isfinite(gap.lo[i]) and gap.lo[i] > 0)}
    return {"anchor": anchor, "prior_draws": prior_draws, "players": rows}


def markdown(result: dict) -> str:
    """The levels' table (then the anchors') as Markdown, with each player's games and score:
    the card's table (``training.model_card.levels_table``) of the result ``levels.json`` holds."""
    head = (f"Elo relative to `{result['anchor']}`, 95% intervals; {result['games']} games, "
            f"{result['game_type']}, `{result['command']}`.")
    return "\n".join([head, "", *levels_table(levels_section_of(result), counts=True)]) + "\n"


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    found = not args.no_nokamute and Path(args.nokamute).is_file()
    nokamute = str(Path(args.nokamute).resolve()) if found else None
    specs = players(args.levels, args.depths, nokamute, args.ckpt, args.device)
    pairs = schedule(specs)
    slug = "".join(c if c.isalnum() else "_" for c in args.game_type.lower())
    out = Path(args.out or f"runs/arena/levels-{slug}-s{args.seed}")
    parts = PARTS if args.part == "both" else (args.part,)
    records, complete = [], True
    try:
        split = {part: part_pairs(specs, pairs, part) for part in PARTS}
        configs = {part: part_config(args, specs, split[part], part) for part in PARTS if split[part]}
        games = sum(len(c.pairings()) * c.games_per_pairing for c in configs.values())
        print(f"calibrate_levels: {len(specs)} players, {len(pairs)} pairings, {games} games "
              f"({', '.join(f'{p} {len(c.pairings())} pairings' for p, c in configs.items())}); results "
              f"in {out}" + ("" if nokamute else " (no nokamute)"), flush=True)
        for part, config in configs.items():
            if part in parts:
                print(f"calibrate_levels: the {part} part", flush=True)
                report = run_arena(config, out / part, workers=args.workers, progress=not args.no_progress)
                records += report.records
                complete &= report.complete
            else:
                got = played(config, out / part)
                records += got
                complete &= len(got) == len(config.pairings()) * config.games_per_pairing
    except (ArenaError, ValueError, OSError) as e:
        print(f"calibrate_levels: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ncalibrate_levels: interrupted; rerun the same command to resume", file=sys.stderr)
        return 130
    if not records:
        print("calibrate_levels: no games played yet", file=sys.stderr)
        return 1
    config = next(iter(configs.values()))
    result = table(config, records, args.levels)
    command = "python -m scripts.calibrate_levels " + shlex.join(argv if argv is not None else sys.argv[1:])
    result.update({"command": command.strip(), "game_type": args.game_type, "games": len(records),
                   "games_per_pairing": {p: c.games_per_pairing for p, c in configs.items()},
                   "schedule": [[player_name(specs[i]), player_name(specs[j])] for i, j in pairs],
                   "seed": args.seed, "openings": ladder.OPENINGS, "ply_cap": args.ply_cap,
                   "complete": complete,
                   "levels": {str(lv.number): lv.describe() for lv in LEVELS if lv.number in args.levels}})
    text = markdown(result)
    write_atomic(out / "levels.json", json.dumps(result, indent=1) + "\n")
    write_atomic(out / "levels.md", text)
    print(text)
    print(f"wrote {out / 'levels.json'} and {out / 'levels.md'}")
    return 0 if complete else 1


if __name__ == "__main__":
    sys.exit(main())
