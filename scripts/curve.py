"""``hive-curve RUN_DIR [RUN_DIR ...]``: a run's strength curve (training.curve).

Each run's saved checkpoints (at most ``--points``, spread over its minutes) play the ladder and
nokamute at a fixed short time (where ``$NOKAMUTE`` or ``../shared/tools/nokamute`` is found);
with ``--shipped`` the shipped Base network too, at the checkpoints' simulations; one fit over
all their games puts every checkpoint, nokamute and the shipped network on one Elo scale. Writes
``curve.json``, ``curve.md`` (the table, with the minute each run first passed the strongest
alphabeta rung, nokamute and the shipped network) and ``curve.png`` (Elo against minutes, those
references' lines drawn) to ``--out``; rerunning the same command finishes what an interrupted one left.
Bad arguments print one line to stderr and exit with status 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hive_zero import version_line
from scripts.perft import OneLineParser
from training.curve import CurveSettings

DEFAULTS = CurveSettings()


def parse_args(argv: list[str] | None) -> tuple[argparse.Namespace, CurveSettings]:
    p = OneLineParser(prog="hive-curve", description=__doc__.splitlines()[0])
    p.add_argument("--version", action="version", version=version_line("hive-curve"))
    p.add_argument("runs", nargs="+", metavar="RUN_DIR", help="training run directories (one curve each)")
    p.add_argument("--out", required=True, help="where the curve's games and files go")
    p.add_argument("--games", type=int, default=DEFAULTS.games,
                   help="games a rung and checkpoint, even (default %(default)s)")
    p.add_argument("--sims", type=int, default=DEFAULTS.sims,
                   help="the checkpoints' simulations a move (default %(default)s)")
    p.add_argument("--depths", type=int, nargs="+", default=list(DEFAULTS.depths), metavar="D",
                   help=f"the alphabeta rungs, 2 among them (default {' '.join(map(str, DEFAULTS.depths))})")
    p.add_argument("--nokamute-time", type=float, default=DEFAULTS.nokamute_time,
                   help="nokamute's seconds a move, 0 to leave it out (default %(default)s)")
    p.add_argument("--shipped", action="store_true",
                   help="also rate the shipped Base network, at --sims (a line on the curve)")
    p.add_argument("--points", type=int, default=DEFAULTS.points,
                   help="checkpoints a run at most (default %(default)s)")
    p.add_argument("--device", default=DEFAULTS.device,
                   help="the checkpoints' device (default %(default)s)")
    p.add_argument("--workers", type=int, default=1, help="processes playing games (default %(default)s)")
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)
    try:
        settings = CurveSettings(args.games, args.sims, tuple(args.depths), args.nokamute_time, args.points,
                                 DEFAULTS.seed, args.device, args.shipped)
    except ValueError as e:
        p.error(str(e))
    if args.workers < 1:
        p.error("--workers must be >= 1")
    return args, settings


def main(argv: list[str] | None = None) -> int:
    args, settings = parse_args(argv)
    from arena.config import ArenaError
    from search.checkpoint import CheckpointError
    from training.curve import curve_table, measure

    try:
        curve = measure(args.runs, args.out, settings, workers=args.workers, progress=not args.no_progress)
    except (ArenaError, CheckpointError, FileNotFoundError) as e:
        print(f"hive-curve: error: {e}", file=sys.stderr)
        return 2
    print(curve_table(curve), end="")
    print(f"wrote {Path(args.out) / 'curve.json'}, curve.md, curve.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
