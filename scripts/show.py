"""``hive-show``: draw a game record (a GameString, or a file holding one) at a ply, as text or a PNG.

    hive-show game.txt                       # the final position, as text
    hive-show game.txt --ply 6               # after the first 6 plies
    hive-show game.txt --ply -2 --png b.png  # two plies before the end, also as a PNG
    hive-show "Base;InProgress;White[2];wS1;bS1 wS1-"

A record file is what ``hive-play --out`` writes: one UHP GameString line. Blank lines and
``#`` comment lines are skipped; a file of several games (an openings file) gives its first.
``hive-play --from`` reads records with :func:`read_record` too.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hive_env import GAME_TYPES, Game, GameStringError, HiveError
from hive_env.display.text import render_board, use_colour


def read_record(source: str) -> Game:
    """The game of a GameString, or of the file ``source`` names when one exists.

    Raises:
        HiveError: the file holds no GameString, or the GameString is bad (its message says
            which move); ``GameStringError`` for an unreadable file.
    """
    text = source
    if Path(source).is_file():
        try:
            content = Path(source).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise GameStringError(f"cannot read {source}: {e}") from None
        lines = [ln.strip() for ln in content.splitlines()]
        lines = [ln for ln in lines if ln and not ln.startswith("#")]
        if not lines:
            raise GameStringError(f"{source} holds no GameString")
        text = lines[0]
    elif ";" not in source and source.strip() not in GAME_TYPES:
        raise GameStringError(f"{source!r} is neither a file nor a GameString")
    try:
        return Game.from_string(text)
    except HiveError as e:
        where = f"{source}: " if text is not source else ""
        raise type(e)(f"{where}{e}") from None


def at_ply(game: Game, ply: int | None) -> Game:
    """A copy of ``game`` after its first ``ply`` plies (None: all of them; negative: from the end).

    Raises:
        HiveError: ``ply`` is past either end of the game.
    """
    n = len(game.moves)
    if ply is None:
        ply = n
    elif ply < 0:
        ply += n
    if not 0 <= ply <= n:
        raise HiveError(f"ply {ply} is outside the game, which has {n} plies (0..{n})")
    out = game.copy()
    out.undo(n - ply)
    return out


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


def _draw_png(game, path: str, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")  # files only, no window
    import matplotlib.pyplot as plt

    from hive_env.display.plot import draw_board

    ax = draw_board(game.board, title=title)
    ax.figure.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(ax.figure)


if __name__ == "__main__":
    sys.exit(main())
