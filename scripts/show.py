"""``hive-show``: draw a game record (a GameString, or a file holding one) at a ply, as text or a PNG.

    hive-show game.txt --ply -2 --png b.png  # two plies before the end, also as a PNG
    hive-show games.jsonl --game 3           # the third game of a file of many

A record is anything ``hive_env.records`` reads (as ``hive-analyse`` reads them); the PNG marks
the last move and is sized to the hive (``hive_env.display.plot``).

See docs/players.md (``hive-show``).
"""

from __future__ import annotations

import argparse
import sys

from hive_env import Game, HiveError
from hive_env.display.text import render_board, use_colour
from hive_env.records import at_ply, last_move_hexes, read_game
from hive_zero import version_line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="hive-show", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=version_line("hive-show"))
    parser.add_argument("game", help="a game record file (as hive-play --out writes) or a GameString")
    parser.add_argument("--game", dest="index", type=int, default=1, metavar="N",
                        help="which game of the file, from 1 (default %(default)s)")
    parser.add_argument("--ply", type=int, help="show the position after this many plies "
                        "(default: the end; negative: counted back from the end)")
    parser.add_argument("--png", help="also draw the position to this PNG file (needs matplotlib)")
    args = parser.parse_args(argv)
    try:
        if args.index < 1:
            raise HiveError(f"--game counts from 1, not {args.index}")
        game = at_ply(read_game(args.game, args.index - 1, first=1).game, args.ply)
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

    ax = draw_board(game.board, title=title, last_move=last_move_hexes(game))
    ax.figure.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(ax.figure)


if __name__ == "__main__":
    sys.exit(main())
