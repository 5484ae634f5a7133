"""The tactics suite: exact one- and two-move tactics taken from real game records, and a scorer.

``make`` writes every exact tactic of game records (``win1``, ``defend``, ``win2``:
``arena.tactics_suite`` says what each is) to a suite file; ``selfplay`` writes the records of a
network's self-play games (``training.selfplay_records``), input for ``make``; ``score`` prints,
per kind, how many positions each player solves, with the seconds a move.

See docs/search.md (exact tactics in the tree).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from arena.tactics_suite import KINDS, make_suite, read_records, score
from hive_env import HiveError
from hive_env.files import write_atomic
from hive_env.suite_file import read_suite, write_suite

DEFAULT_SUITE = Path(__file__).resolve().parents[1] / "tests" / "data" / "tactics.txt"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tactics-suite", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    mk = sub.add_parser("make", help="collect the tactics of game records into a suite file")
    mk.add_argument("records", nargs="+", help="games.jsonl files or files of GameStrings")
    mk.add_argument("--out", required=True)
    mk.add_argument("--max-per-kind", type=int, default=150, help="per kind and game type")
    mk.add_argument("--seed", type=int, default=0)
    sp = sub.add_parser("selfplay", help="write the records of self-play games of a network")
    sp.add_argument("--out", required=True)
    sp.add_argument("--ckpt", default=None, help="checkpoint (default: the shipped network)")
    sp.add_argument("--games", type=int, default=16)
    sp.add_argument("--sims", type=int, default=64)
    sp.add_argument("--game-type", default="Base")
    sp.add_argument("--seed", type=int, default=0)
    sc = sub.add_parser("score", help="how many of the suite's positions players solve")
    sc.add_argument("players", nargs="+", help="player specs, e.g. alphazero:sims=64")
    sc.add_argument("--suite", default=str(DEFAULT_SUITE))
    sc.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    try:
        if args.command == "make":
            records = [g for path in args.records for g in read_records(path)]
            suite = make_suite(records, args.max_per_kind, args.seed)
            write_suite(args.out, suite)
            counts = {k: sum(r[0] == k for r in suite) for k in KINDS}
            print(f"{len(records)} games -> {args.out}: " + ", ".join(f"{counts[k]} {k}" for k in KINDS))
            return 0
        if args.command == "selfplay":
            from search.checkpoint import CheckpointError
            from training.selfplay_records import selfplay_records  # torch only for self-play

            try:
                records = selfplay_records(args.ckpt, args.games, args.sims, args.game_type, args.seed)
            except CheckpointError as e:
                raise ValueError(str(e)) from None
            write_atomic(args.out, "".join(r + "\n" for r in records))
            print(f"{len(records)} self-play games -> {args.out}")
            return 0
        suite = read_suite(args.suite)
        print("| player | " + " | ".join(KINDS) + " | s/move |")
        print("|---|" + "---|" * (len(KINDS) + 1))
        for spec in args.players:
            result = score(spec, suite, args.seed)
            cells = [f"{s}/{n} ({100 * s / n:.1f}%)" if n else "-" for s, n, _ in
                     (result.get(k, (0, 0, 0.0)) for k in KINDS)]
            per_move = sum(r[2] * r[1] for r in result.values()) / max(sum(r[1] for r in result.values()), 1)
            print(f"| {spec} | " + " | ".join(cells) + f" | {per_move:.3f} |", flush=True)
        return 0
    except (OSError, ValueError, HiveError) as e:
        print(f"tactics-suite: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
