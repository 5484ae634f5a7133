"""Draw a position as a text hex grid for terminals (plain Python, display only).

:func:`render_board` draws each cell as its stack's top tile (``bB1^2``: a black beetle on a stack
of height 2), ``.`` for an empty cell next to the hive, and lists stacks bottom to top below the
grid. Colours (ANSI) are used only when asked for; :func:`use_colour` says whether a stream
should get them (a TTY, and ``NO_COLOR`` unset). A :class:`View` kept across calls draws
successive boards of one game in a steady frame (no re-centring).

See docs/engine.md (the engine: display).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TextIO

import numpy as np

from ..board import BELOW, POS, TOP
from ..grid import DIR_DQ, DIR_DR, unwrap
from ..pieces import N_PIECES, PIECE_COLOUR, piece_name

CELL = 5
"""Characters per cell; neighbours in a row are CELL + 1 apart, rows shift by half that."""
_WHITE_TILE = "\x1b[1;30;47m"  # black on white
_BLACK_TILE = "\x1b[1;97;40m"  # bright white on black
_DIM = "\x1b[2m"
_RESET = "\x1b[0m"


def use_colour(stream: TextIO) -> bool:
    """Whether ``stream`` should get ANSI colours: a terminal, and NO_COLOR unset."""
    if os.environ.get("NO_COLOR"):
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def stack_at(board: np.ndarray, h: int) -> list[int]:
    """Pieces on hex ``h``, bottom first."""
    pieces = []
    p = int(board[TOP + h])
    while p >= 0:
        pieces.append(p)
        p = int(board[BELOW + p])
    return pieces[::-1]


@dataclass
class View:
    """A steady frame for successive boards of one game (a terminal session).

    Without it each board is drawn from its own top-left corner, so the whole hive jumps
    whenever its extent changes. With it, a tile that did not move stays where it was on
    screen: each board is aligned on a hex it shares with the previous one, and the frame's
    left edge and top row move only when the hive grows past them (never back in).
    """

    coords: dict[int, tuple[int, int]] = field(default_factory=dict)  # hex -> (q, r) last drawn
    left: int | None = None  # smallest column (2q + r) drawn so far
    top: int | None = None  # smallest row (r) drawn so far

    def align(self, coords: dict[int, tuple[int, int]]) -> dict[int, tuple[int, int]]:
        """``coords`` (from :func:`~hive_env.grid.unwrap`) shifted onto the previous frame."""
        common = [h for h in coords if h in self.coords]
        if common:
            h = common[0]
            dq, dr = self.coords[h][0] - coords[h][0], self.coords[h][1] - coords[h][1]
            coords = {k: (q + dq, r + dr) for k, (q, r) in coords.items()}
        else:  # nothing in common (a new game, a set-up position): start a new frame
            self.left = self.top = None
        self.coords = dict(coords)
        return coords

    def frame(self, left: int, top: int) -> tuple[int, int]:
        """The frame's (left, top) after a board reaching ``left``, ``top``: it only grows."""
        self.left = left if self.left is None else min(self.left, left)
        self.top = top if self.top is None else min(self.top, top)
        return self.left, self.top


def render_board(board: np.ndarray, colour: bool = False, empty_marks: bool = True,
                 view: View | None = None) -> str:
    """The position as lines of text (no trailing newline).

    Each cell is five characters wide; a row is shifted half a cell from the one above, so the
    six neighbours of a cell sit where they do on the board (pointy-top, axial ``q, r``)::

             .     .     .
          .   bB1^2  wS1    .
             .    bA1    .
                .     .
        stacks (bottom < top): wQ < bB1

    Args:
        board: [BOARD_SIZE] int16 board.
        colour: wrap tiles in ANSI colours (White: dark on light, Black: light on dark).
        empty_marks: mark the empty cells around the hive with ``.``.
        view: keeps tiles in place from one call to the next (:class:`View`); it is updated.
    """
    hexes = sorted({int(board[POS + p]) for p in range(N_PIECES) if board[POS + p] >= 0})
    if not hexes:
        if view is not None:
            view.coords, view.left, view.top = {}, None, None
        return "(empty board)"
    coords = unwrap(hexes)
    if view is not None:
        coords = view.align(coords)
    cells: dict[tuple[int, int], tuple[str, str]] = {}  # (q, r) -> (label, ANSI code)
    stacks: list[str] = []
    for h in hexes:
        stack = stack_at(board, h)
        top = stack[-1]
        label = piece_name(top) + (f"^{len(stack)}" if len(stack) > 1 else "")
        cells[coords[h]] = (label, _WHITE_TILE if PIECE_COLOUR[top] == 0 else _BLACK_TILE)
        if len(stack) > 1:
            stacks.append(" < ".join(piece_name(p) for p in stack))
    if empty_marks:
        for q, r in list(cells):
            for d in range(6):
                c = (q + int(DIR_DQ[d]), r + int(DIR_DR[d]))
                if c not in cells:
                    cells[c] = (".", _DIM)
    min_x = min(2 * q + r for q, r in cells)
    rows = sorted({r for _, r in cells})
    if view is not None:
        min_x, top = view.frame(min_x, rows[0])
        rows = list(range(top, rows[-1] + 1))  # blank rows keep the hive at its height
    half = (CELL + 1) // 2
    lines = []
    for r in rows:
        line, width = "", 0
        for q in sorted(q for q, rr in cells if rr == r):
            col = (2 * q + r - min_x) * half
            label, code = cells[(q, r)]
            text = label.center(CELL)
            if colour:
                text = f"{code}{text}{_RESET}" if label != "." else text.replace(".", f"{code}.{_RESET}")
            line += " " * (col - width) + text
            width = col + CELL
        lines.append(line.rstrip())
    if stacks:
        lines.append("stacks (bottom < top): " + "; ".join(stacks))
    return "\n".join(lines)
