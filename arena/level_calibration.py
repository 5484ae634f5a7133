"""The levels' calibration: the ``alphazero`` player's levels and the ladder's anchors in one
round robin (its schedule from :mod:`arena.level_schedule`, played in an untimed and a timed part),
one Bradley-Terry fit of every game, and the table (``levels.json``, ``levels.md``).

:func:`calibrate` runs it; ``python -m scripts.calibrate_levels`` is its command line.

See docs/players.md (the calibration).
"""

from __future__ import annotations

import argparse
import json
import math
import shlex
import sys
from collections.abc import Callable
from pathlib import Path

from hive_env.files import write_atomic
from hive_env.records.arena_record import ArenaRecord
from players.engines import nokamute_path, nokamute_spec
from players.levels import LEVELS

from . import ladder
from .arena import run_arena
from .config import STOPPING, ArenaConfig, say_stopped
from .ladder_card import levels_section_of
from .level_schedule import PARTS, part_pairs, player_name, schedule
from .ratings import fit_elo, tally
from .results import ResultsDir
from .schedule import resolve_openings
from .schedule import schedule as arena_schedule
from .tally import game_results

LevelsTable = Callable[..., list[str]]
"""``training.model_card.levels_table``: a card's levels section -> the table's Markdown lines."""
NOKAMUTE_TIME = 1.0
"""nokamute's seconds a move: the top level's time."""


def level_spec(number: int, ckpt: str | None, device: str) -> str:
    """The spec of level ``number``, named ``level-N`` in the tables."""
    net = f"ckpt={ckpt}," if ckpt else ""
    return f"alphazero:{net}level={number},device={device},name=level-{number}"


def players(levels: list[int], depths: list[int], nokamute: str | None, ckpt: str | None,
            device: str) -> list[str]:
    """The round robin's players: the levels, then the anchors (``nokamute``: its spec, or None)."""
    out = [level_spec(n, ckpt, device) for n in levels]
    out += ["random", "greedy", *(f"alphabeta:depth={d}" for d in depths)]
    if nokamute:
        out.append(nokamute)
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


def markdown(result: dict, levels_table: LevelsTable) -> str:
    """The levels' table (then the anchors') as Markdown, with each player's games and score:
    the card's table (``levels_table``: ``training.model_card.levels_table``, passed in by the
    command line, since the arena imports nothing of training) of the result ``levels.json`` holds."""
    head = (f"Elo relative to `{result['anchor']}`, 95% intervals; {result['games']} games, "
            f"{result['game_type']}, `{result['command']}`.")
    return "\n".join([head, "", *levels_table(levels_section_of(result), counts=True)]) + "\n"


def calibrate(args: argparse.Namespace, argv: list[str] | None, levels_table: LevelsTable) -> int:
    """Play (or resume) the calibration of ``args`` (``python -m scripts.calibrate_levels``'s
    options, parsed from ``argv``: None is ``sys.argv[1:]``, the command ``levels.json`` records),
    fit, write and print the table (:func:`markdown`). Returns the exit status: 0 complete, 1
    parts still to play (or no games yet), 2 an error (one line), 130 interrupted."""
    path = None if args.no_nokamute else (args.nokamute or nokamute_path())
    nokamute = nokamute_spec(NOKAMUTE_TIME, path.resolve()) if path else None
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
    except STOPPING as e:
        return say_stopped("calibrate_levels", e)
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
    text = markdown(result, levels_table)
    write_atomic(out / "levels.json", json.dumps(result, indent=1) + "\n")
    write_atomic(out / "levels.md", text)
    print(text)
    print(f"wrote {out / 'levels.json'} and {out / 'levels.md'}")
    return 0 if complete else 1
