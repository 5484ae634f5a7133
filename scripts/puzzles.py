"""Build and check hive-web's puzzle files (``web.puzzles`` says what a puzzle is).

``build`` replays game records (any format ``hive_env.records`` reads) and tactics suite files
(``--suite``), keeps the positions of the game type, each once, lets the exact solver find the
puzzle in each, rates it by the network's prior and writes a seeded sample, easiest first (the
same inputs give the same file: ``web.puzzles.build``). ``check`` re-solves every puzzle of the
files (default: the shipped ones) and exits 1 if anything is wrong.

See docs/web.md (puzzles).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from hive_env import HiveError
from hive_env.files import write_atomic
from web.puzzles import DATA, build, check, record_positions, suite_positions, summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="puzzles", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    bd = sub.add_parser("build", help="find the puzzles of game records and write a puzzle file")
    bd.add_argument("records", nargs="*", help="game record files (games.jsonl, GameStrings, PGN, SGF)")
    bd.add_argument("--suite", action="append", default=[], help="a tactics suite file (repeatable)")
    bd.add_argument("--game-type", required=True)
    bd.add_argument("--out", required=True)
    bd.add_argument("--network", default=None, help="checkpoint or shipped:TYPE (default: the type's)")
    bd.add_argument("--max-per-kind", type=int, default=40)
    bd.add_argument("--seed", type=int, default=0)
    ck = sub.add_parser("check", help="re-solve the puzzles of puzzle files with the exact solver")
    ck.add_argument("files", nargs="*")
    args = parser.parse_args(argv)
    try:
        if args.command == "check":
            bad = 0
            for path in args.files or sorted(DATA.glob("puzzles_*.json")):
                puzzles = json.loads(Path(path).read_text())["puzzles"]
                for p in puzzles:
                    for err in check(p):
                        bad += 1
                        print(f"{path}: {p['id']}: {err}")
                print(f"{path}: {summary(puzzles)}")
            return 1 if bad else 0
        from search import Network  # torch only to build

        spec = args.network or f"shipped:{args.game_type}"
        network = Network.load(spec)
        sources = [(f"{Path(path).parent.name}/{Path(path).name}", record_positions(path))
                   for path in args.records]
        sources += [(f"suite {Path(path).name}", suite_positions(path)) for path in args.suite]
        puzzles = build(sources, args.game_type, network, args.max_per_kind, args.seed)
        doc = {"game_type": args.game_type, "network": spec, "sources": [name for name, _ in sources],
               "puzzles": puzzles}
        write_atomic(args.out, json.dumps(doc, indent=1) + "\n")
        print(f"{args.out}: {summary(puzzles)}")
        return 0
    except (OSError, ValueError, HiveError) as e:
        print(f"puzzles: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
