"""``hive-show``: draw a game record (a GameString, or a file holding one) at a ply, as text or a PNG.

    hive-show game.txt                       # the final position, as text
    hive-show game.txt --ply 6               # after the first 6 plies
    hive-show game.txt --ply -2 --png b.png  # two plies before the end, also as a PNG
    hive-show "Base;InProgress;White[2];wS1;bS1 wS1-"

A record file is what ``hive-play --out`` writes: one UHP GameString line. Blank lines and
``#`` comment lines are skipped; a file of several games (an openings file) gives its first.
Records are read by ``hive_env.records`` (as ``hive-play --from`` reads them).
"""

from __future__ import annotations

import argparse
import sys

from hive_env import Game, HiveError
from hive_env.display.text import render_board, use_colour
from hive_env.records import at_ply, read_record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="hive-show", description=__doc__.splitlines()[0])
    parser.add_argument("game", help="a game record file (as hive-play --out writes) or a GameString")
    parser.add_argument("--ply", type=int, help="show the position after this many plies "
                        "(default: the end; negative: counted back from the end)")
    parser.add_argument("--png", help="also draw the position to this PNG file (needs matplotlib)")
    args = parser.parse_args(argv)
    try:
        game = at_ply(read_record(args.game), args.ply)
    except HiveError as e:
        print(f"hive-show: error: {e}", file=sys.stderr)
        return 2
    moves = game.move_strings
    last = f"; last move {moves[-1]}" if moves else ""
    print(render_board(game.board, colour=use_colour(sys.stdout)))
    print(f"{game.game_type}, {game.state}, ply {game.ply}{last}"
          + ("" if game.is_over else f", {game.turn_string} to move"))
    if args.png:
        try:
            _draw_png(game, args.png, f"{game.game_type}, ply {game.ply}{last}")
        except (ImportError, OSError) as e:
            print(f"hive-show: error: cannot write {args.png}: {e}", file=sys.stderr)
            return 2
        print(f"board drawn to {args.png}")
    return 0


def _draw_png(game: Game, path: str, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")  # files only, no window
    import matplotlib.pyplot as plt

    from hive_env.display.plot import draw_board

    ax = draw_board(game.board, title=title)
    ax.figure.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(ax.figure)


if __name__ == "__main__":
    sys.exit(main())
