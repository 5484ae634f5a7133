"""The 12 symmetries of the hex grid (6 rotations x mirror) acting on boards and moves.

Symmetry ``s`` in 0..11 is ``(k, mirror) = (s % 6, s >= 6)``: mirror (swap axial q and r)
first, then rotate ``k * 60`` degrees clockwise about ORIGIN. Each is an integer linear map
of determinant +-1, so it acts exactly on the wrapping grid; rules are invariant under all
of them, which ``tests/hive_env/test_properties.py`` checks on random games.
"""

from __future__ import annotations

import numpy as np

from .board import HIST, LEVEL, PASS, PLY, POS, TOP, full_hash, move_dest, move_of, move_piece
from .grid import N_HEX, direction_map, hex_map
from .pieces import N_PIECES

N_SYMMETRIES = 12
HEX_MAPS = np.stack([hex_map(s % 6, s >= 6) for s in range(N_SYMMETRIES)]).astype(np.int16)
"""[12, 1024] int16: image of each hex under each symmetry."""
DIR_MAPS = np.stack([direction_map(s % 6, s >= 6) for s in range(N_SYMMETRIES)])
"""[12, 6] int: image of each direction under each symmetry."""


def transform_move(move: int, sym: int) -> int:
    """Image of an encoded move under symmetry ``sym``."""
    if move == PASS:
        return PASS
    return move_of(move_piece(move), int(HEX_MAPS[sym, move_dest(move)]))


def transform_board(board: np.ndarray, hist: np.ndarray, sym: int) -> tuple[np.ndarray, np.ndarray]:
    """Image of a board under symmetry ``sym``: same stacks, moved cells.

    The hash ring is rebuilt as for a set-up position (only the current hash is known),
    so repetition history does not carry over.
    """
    out = board.copy()
    out[TOP : TOP + N_HEX] = -1
    hmap = HEX_MAPS[sym]
    for p in range(N_PIECES):
        h = int(board[POS + p])
        if h >= 0:
            out[POS + p] = hmap[h]
    # Rebuild stack tops level by level so the top piece of each hex wins.
    order = sorted((int(board[LEVEL + p]), p) for p in range(N_PIECES) if board[POS + p] >= 0)
    for _, p in order:
        out[TOP + out[POS + p]] = p
    out_hist = np.zeros(HIST, dtype=np.uint64)
    out_hist[int(out[PLY]) % HIST] = full_hash(out)
    return out, out_hist
