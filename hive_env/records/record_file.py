"""hive-play's record files: one UHP GameString a line, as ``hive-play --out`` writes them, and a
game at a ply.

``hive-show`` draws a record at a ply and ``hive-play --from`` continues one; ``hive-play`` reads it
with :func:`read_record`, which also takes a GameString itself.
"""

from __future__ import annotations

from pathlib import Path

from ..board import PASS, POS, move_dest, move_piece
from ..errors import GameStringError, HiveError
from ..files import write_atomic
from ..game import Game
from ..pieces import GAME_TYPES
from .common import record_lines


def read_record(source: str) -> Game:
    """The game of a GameString, or of the file ``source`` names when one exists.

    In a file, blank lines and ``#`` comment lines are skipped (:func:`record_lines`); a file of
    several games (an openings file) gives its first.

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
        lines = record_lines(content)
        if not lines:
            raise GameStringError(f"{source} holds no GameString")
        text = lines[0][1]
    elif ";" not in source and source.strip() not in GAME_TYPES:
        raise GameStringError(f"{source!r} is neither a file nor a GameString")
    try:
        return Game.from_string(text)
    except HiveError as e:
        where = f"{source}: " if text is not source else ""
        raise type(e)(f"{where}{e}") from None


def write_record(path: str | Path, game_string: str) -> None:
    """Write the GameString to ``path`` atomically (a crash never leaves half a record)."""
    write_atomic(path, game_string + "\n")


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


def last_move_hexes(game: Game) -> tuple[int, int] | None:
    """``(origin hex, destination hex)`` of the last move played (origin -1 for a placement), for
    ``hive_env.display.plot.draw_board(last_move=...)``; None before any move or after a pass."""
    if not game.moves or game.moves[-1] == PASS:
        return None
    move = game.moves[-1]
    before = game.copy()
    before.undo(1)
    return int(before.board[POS + move_piece(move)]), int(move_dest(move))
