"""Hive rules engine: compiled kernels over flat arrays, with UHP notation at the edges.

Naming used everywhere in this package:

==========  ===============================================================
hex         index 0..1023 of a cell on the 32x32 wrapping grid (``grid``)
q, r        axial coordinates of a hex (pointy-top layout)
piece       tile id 0..27: colour * 14 + slot (``pieces``)
bug         tile kind 0..7: Q S B G A M L P
move        encoded int: piece * N_HEX + destination hex (``board.move_of``), or ``PASS``
board       one game's ``[BOARD_SIZE] int16`` state plus ``[64] uint64`` hash ring
Game        the Python object for one game (history, UHP strings, undo)
==========  ===============================================================
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
