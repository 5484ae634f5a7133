"""The tactics suite's file: one position a line, ``kind<TAB>GameString<TAB>solutions``
(solutions: UHP moves joined by ``;``).

The suite is made and scored in ``arena.tactics_suite`` and read for puzzles by ``web.puzzles``;
the format lives here, below both, so that neither reaches into the other.
"""

from __future__ import annotations

from pathlib import Path

from .errors import HiveError
from .files import write_atomic
from .game import Game


def write_suite(path: str | Path, suite: list[tuple[str, str, str]]) -> None:
    """Write the suite's rows (kind, GameString, solutions), one tab-separated line each, atomically."""
    write_atomic(path, "".join("\t".join(row) + "\n" for row in suite))


def read_suite(path: str | Path) -> list[tuple[str, Game, set[int]]]:
    """The suite's positions: (kind, game, solution moves); a line that is not one is a
    ``ValueError`` naming the file and line."""
    out = []
    for n, line in enumerate(Path(path).read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            kind, text, solutions = line.split("\t")
            game = Game.from_string(text)
            out.append((kind, game, {game.parse_move(s) for s in solutions.split(";")}))
        except (ValueError, HiveError) as e:
            raise ValueError(f"{path}:{n}: not a suite line (kind, GameString, solutions): {e}") from None
    return out
