"""The soak: a training run with faults injected from outside at seeded random moments.

Runs ``hive-train experiment=PRESET run_dir=DIR train.max_minutes=MINUTES [OVERRIDES]`` and, for
``--minutes`` of wall clock, injects one of :data:`FAULTS` every ``--gap`` seconds (every kind once
in a seeded order before any comes again), reruns the command after each fault that stopped it,
lets the run finish, and prints a table of the faults survived and the positions lost, then
checks what the run left. Exit status 0 when all of it holds, else 1. Not part of the test suite.

The soak itself lives in ``training.soak``; this file is its command line.

See docs/reliability.md (the soak).
"""

from __future__ import annotations

import argparse
import sys

from training.soak import FAULTS, soak


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=30.0,
                        help="minutes of faults, and the run's train.max_minutes (default %(default)g)")
    parser.add_argument("--preset", default="cpu", help="hive-train experiment (default %(default)s)")
    parser.add_argument("--run-dir", help="the run directory (default runs/soak_<preset>_<seed>)")
    parser.add_argument("--seed", type=int, default=0, help="seeds the faults' moments and choices")
    parser.add_argument("--gap", type=float, nargs=2, metavar=("MIN", "MAX"),
                        help="seconds between two faults (default: minutes*60/12 to minutes*60/6)")
    parser.add_argument("--faults", default=",".join(FAULTS),
                        help=f"the kinds to inject, comma-separated (default all: {','.join(FAULTS)})")
    parser.add_argument("--nice", type=int, default=0, help="run hive-train at this niceness")
    parser.add_argument("overrides", nargs="*", help="more hive-train overrides (key=value)")
    args = parser.parse_args(argv)
    args.faults = args.faults.split(",")
    if unknown := [k for k in args.faults if k not in FAULTS]:
        parser.error(f"unknown fault(s) {', '.join(unknown)} (known: {', '.join(FAULTS)})")
    if args.gap is None:
        args.gap = (args.minutes * 60 / 12, args.minutes * 60 / 6)
    sys.exit(soak(args))


if __name__ == "__main__":
    main()
