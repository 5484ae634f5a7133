"""Arena openings: positions that games start from, as UHP GameStrings.

Deterministic players replay the same game from the same position, so an arena starts its games
from a set of openings, each played twice with colours swapped. An opening is a GameString of a
game in progress (or a bare game type: the empty board).

- :func:`random_openings`: ``plies`` uniformly random legal moves from the start, seeded, never
  ending the game, and distinct as positions.
- :func:`load_openings`: a text file of GameStrings, one a line, ``#`` comments and blank lines
  skipped (e.g. a book from human games).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from hive_env import Game, HiveError
from hive_env.records import record_lines


class OpeningsError(ValueError):
    """An openings file or spec that cannot be used (the message names the line)."""


def random_openings(game_type: str, n: int, plies: int, seed: int = 0) -> list[str]:
    """Up to ``n`` distinct openings of ``plies`` random legal moves each.

    Each ply is uniform over the legal moves that do not end the game (a line with no such move
    is dropped). Openings are distinct as positions (by Zobrist hash, so transpositions count
    once) and returned in the order found, so a larger ``n`` with the same seed extends the list.
    Fewer than ``n`` come back when there are fewer positions (Base has 4 after one ply: ``wS1``,
    ``wB1``, ``wG1``, ``wA1``; 96 after two, 1440 after three, 21600 after four): the search stops
    once ``1000 + 10 m`` lines in a row, with ``m`` openings found, found nothing new.

    Args:
        game_type: e.g. ``"Base"``, ``"Base+MLP"``.
        n: how many openings are wanted (>= 1).
        plies: moves per opening (0: the empty board, one opening).
        seed: seeds the one generator that draws every move.

    Raises:
        OpeningsError: a bad game type, ``n < 1`` or ``plies < 0``.
    """
    if n < 1 or plies < 0:
        raise OpeningsError(f"random openings need n >= 1 and plies >= 0 (got n={n}, plies={plies})")
    try:
        Game(game_type)
    except HiveError as e:
        raise OpeningsError(f"bad game type {game_type!r}: {e}") from None
    rng = np.random.default_rng(seed)
    seen: set[int] = set()
    out: list[str] = []
    misses = 0
    while len(out) < n and misses < 1000 + 10 * len(out):
        game = _random_line(game_type, plies, rng)
        if game is None or game.hash in seen:
            misses += 1
            continue
        misses = 0
        seen.add(game.hash)
        out.append(game.game_string())
    return out


def _random_line(game_type: str, plies: int, rng: np.random.Generator) -> Game | None:
    """A game after ``plies`` random moves that keep it going, or None when that is impossible."""
    game = Game(game_type)
    for _ in range(plies):
        moves = game.legal_moves()
        for k in rng.permutation(len(moves)):
            game.play(int(moves[k]))
            if not game.is_over:
                break
            game.undo()
        else:
            return None
    return game


def load_openings(path: str | Path, game_type: str | None = None) -> list[str]:
    """The openings of a file: one GameString (or bare game type) a line.

    Blank lines and lines starting with ``#`` are skipped; anything after a ``#`` elsewhere is
    kept (it is not a GameString character, so it fails validation clearly). Each line is
    loaded with ``Game.from_string`` and returned in its canonical form (``game_string()``).

    Args:
        path: the file.
        game_type: when given, every opening must be of this game type.

    Raises:
        OpeningsError: unreadable file, no openings, or a line that is not a GameString of a game
            in progress of the right type (the message names the file and line).
    """
    try:
        lines = record_lines(Path(path).read_text())
    except (OSError, UnicodeDecodeError) as e:
        raise OpeningsError(f"cannot read openings file {path}: {e}") from None
    out: list[str] = []
    for number, text in lines:
        where = f"openings file {path}, line {number}"
        try:
            game = Game.from_string(text)
        except HiveError as e:
            raise OpeningsError(f"{where}: not a GameString: {e}") from None
        if game.is_over:
            raise OpeningsError(f"{where}: the game is over ({game.state})")
        if game_type is not None and game.game_type != Game(game_type).game_type:
            raise OpeningsError(f"{where}: game type {game.game_type}, but the arena plays {game_type}")
        out.append(game.game_string())
    if not out:
        raise OpeningsError(f"openings file {path} has no openings (one GameString a line)")
    return out
