"""Calibrate the ``alphazero`` player's levels: one schedule of games, one rating fit, one table.

    python -m scripts.calibrate_levels --games 20 --workers 2                        # Base
    python -m scripts.calibrate_levels --games 20 --workers 2 --game-type Base+MLP
    python -m scripts.calibrate_levels --part untimed ...   # the games whose result no load changes
    python -m scripts.calibrate_levels --levels 1 10 --games 2 --depths 1 --no-nokamute   # a smoke run

The players: every level (``alphazero:level=N``, the network shipped for the game type, or
``--ckpt``) and the ladder's anchors (``random``, ``greedy``, ``alphabeta:depth=1..4``, and
nokamute at 1 s a move where ``--nokamute PATH``, ``$NOKAMUTE`` or the built one exists), in a
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

The calibration itself lives in ``arena.level_calibration``; this file is its command line.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from arena import ladder
from arena.level_calibration import calibrate
from arena.level_schedule import PARTS
from hive_env import GAME_TYPES
from hive_env.outcome import DEFAULT_PLY_CAP
from players.levels import MAX_LEVEL, MIN_LEVEL
from training.model_card import levels_table


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="calibrate_levels", description=__doc__.splitlines()[0])
    p.add_argument("--levels", nargs="+", type=int, default=list(range(MIN_LEVEL, MAX_LEVEL + 1)),
                   metavar="N", help="the levels to rate (default all)")
    p.add_argument("--games", type=int, default=20, help="games a pairing, even (default %(default)s)")
    p.add_argument("--timed-games", type=int,
                   help="games a pairing of the timed part (level 10, nokamute; default --games)")
    p.add_argument("--part", choices=(*PARTS, "both"), default="both",
                   help="play the untimed games, the timed ones, or both (default); the table "
                        "pools every game played in either")
    p.add_argument("--game-type", default="Base", choices=GAME_TYPES)
    p.add_argument("--depths", nargs="+", type=int, default=list(ladder.DEPTHS), metavar="D",
                   help="the alphabeta anchors (default 1 2 3 4)")
    p.add_argument("--nokamute", type=Path,
                   help="nokamute's executable, an anchor at 1 s a move when it exists (default "
                        "$NOKAMUTE, else the project's built one)")
    p.add_argument("--no-nokamute", action="store_true", help="leave nokamute out")
    p.add_argument("--ckpt", help="a checkpoint instead of the network shipped for the game type")
    p.add_argument("--device", default="cpu", help="the levels' device (default %(default)s)")
    p.add_argument("--seed", type=int, default=0,
                   help="seeds the openings and the players (default %(default)s)")
    p.add_argument("--ply-cap", type=int, default=DEFAULT_PLY_CAP)
    p.add_argument("--workers", type=int, default=1, help="processes playing games (default %(default)s)")
    p.add_argument("--out", help="results directory (default runs/arena/levels-GAMETYPE-sSEED)")
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)
    bad = [n for n in args.levels if not MIN_LEVEL <= n <= MAX_LEVEL]
    if bad or len(set(args.levels)) != len(args.levels):
        p.error(f"--levels: distinct whole numbers from {MIN_LEVEL} to {MAX_LEVEL}")
    args.levels = sorted(args.levels)
    return args


def main(argv: list[str] | None = None) -> int:
    return calibrate(parse_args(argv), argv, levels_table)


if __name__ == "__main__":
    sys.exit(main())
