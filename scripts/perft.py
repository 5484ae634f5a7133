"""``hive-perft GAME DEPTH``: move-path enumeration counts, one line per depth.

GAME is a game type (``Base``, ``Base+MLP``...) or a whole GameString. Each line is
``depth<TAB>count<TAB>seconds``, counting as RULES.md says (Mzinga's convention).
"""

from __future__ import annotations

import argparse
import sys
import time

from hive_env import Game, HiveError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="hive-perft", description=__doc__.splitlines()[0])
    parser.add_argument("game", help="game type (e.g. Base+MLP) or a whole GameString")
    parser.add_argument("depth", help="deepest depth to count (>= 1)")
    args = parser.parse_args(argv)
    try:
        depth = int(args.depth)
    except ValueError:
        depth = -1
    if depth < 1:
        print(f"hive-perft: error: DEPTH must be a whole number >= 1, not {args.depth!r}", file=sys.stderr)
        return 2
    try:
        game = Game.from_string(args.game)
    except HiveError as e:
        print(f"hive-perft: error: {e}", file=sys.stderr)
        return 2
    Game(game.expansions).perft(1)  # load the compiled kernels before timing
    try:
        for d in range(1, depth + 1):
            start = time.perf_counter()
            count = game.perft(d)
            print(f"{d}\t{count}\t{time.perf_counter() - start:.3f}", flush=True)
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
