"""``hive-perft GAME DEPTH``: move-path enumeration counts, one line per depth.

GAME is a game type (``Base``, ``Base+MLP``...) or a whole GameString. Each line is
``depth<TAB>count<TAB>seconds``, counting as docs/rules.md says (Mzinga's convention).
Bad arguments print one line to stderr and exit with status 2.
"""

from __future__ import annotations

import argparse
import sys
import time

from hive_env import Game, HiveError
from hive_env.game import PERFT_MAX_DEPTH
from hive_zero import version_line


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line (no usage line), exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message}\n")


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="hive-perft", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=version_line("hive-perft"))
    parser.add_argument("game", metavar="GAME", help="game type (e.g. Base+MLP) or a whole GameString")
    parser.add_argument("depth", metavar="DEPTH", help=f"deepest depth to count (1 to {PERFT_MAX_DEPTH})")
    args = parser.parse_args(argv)
    try:
        depth = int(args.depth)
    except ValueError:
        depth = -1
    if not 1 <= depth <= PERFT_MAX_DEPTH:
        parser.error(f"DEPTH must be a whole number from 1 to {PERFT_MAX_DEPTH}, not {args.depth!r}")
    try:
        game = Game.from_string(args.game)
    except HiveError as e:
        parser.error(str(e))
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
