"""Hive rules engine: compiled kernels over flat arrays, with UHP notation at the edges.

Words used everywhere in this package: a *hex* is a cell index 0..1023 of the 32x32 wrapping grid
(``grid``; ``q, r`` its axial coordinates), a *piece* a tile id 0..27 (``pieces``), a *bug* a tile
kind 0..7 (Q S B G A M L P), a *move* an encoded int (``board.move_of``, or ``PASS``), a *board*
one game's ``[BOARD_SIZE] int16`` state plus its ``[64] uint64`` hash ring, and :class:`Game` the
Python object for one game (history, UHP strings, undo).

See docs/engine.md (the board arrays) and docs/rules.md.
"""

import os as _os

import numba as _numba

# numba's OpenMP layer and torch's own OpenMP runtime spin against each other when both run
# in one process; the workqueue layer does not. An explicit NUMBA_THREADING_LAYER wins.
if "NUMBA_THREADING_LAYER" not in _os.environ:
    _numba.config.THREADING_LAYER = "workqueue"

from . import _kernel_cache  # noqa: F401  (first: keys numba's kernel cache by the source)
from .board import BLACK_WINS, DRAW, IN_PROGRESS, PASS, WHITE_WINS  # outcome codes, pass move
from .errors import GameStringError, HiveError, IllegalMoveError, NotationError  # error types
from .game import Game  # the Python API
from .pieces import GAME_TYPES, piece_name  # game types, tile names

__all__ = [
    "BLACK_WINS",
    "DRAW",
    "GAME_TYPES",
    "Game",
    "GameStringError",
    "HiveError",
    "IN_PROGRESS",
    "IllegalMoveError",
    "NotationError",
    "PASS",
    "WHITE_WINS",
    "piece_name",
]
