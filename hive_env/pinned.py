"""Pinned tiles: articulation points of the hive's adjacency graph.

A ground tile alone in its cell is pinned when lifting it splits the hive (one-hive rule),
which is exactly when its cell is an articulation point of the graph of occupied cells.
One iterative Tarjan DFS per position finds them all in linear time
(https://en.wikipedia.org/wiki/Biconnected_component). Nodes are ground pieces, so the
work arrays have 28 entries, not 1024: :func:`articulation_pieces` takes them from the caller
(no allocation, for the move generator and the encoder), :func:`articulation_hexes` is the
allocating form by hex.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .board import BELOW, LEVEL, NO_REFCOUNT, POS, TOP, occupied_dirs
from .grid import NEIGH
from .pieces import N_PIECES

# Sections of the Tarjan work array, N_PIECES entries each: discovery time, low link, DFS parent,
# mask of the occupied directions still to explore, DFS stack.
_DISC, _LOW, _PARENT, _REST, _STACK = (k * N_PIECES for k in range(5))
N_WORK = 5 * N_PIECES
"""Length of the ``[N_WORK] int64`` work array of :func:`articulation_pieces`."""
LOWEST_BIT = np.array([0] + [(m & -m).bit_length() - 1 for m in range(1, 64)], dtype=np.int64)
"""[64] int: index of the lowest set bit of a 6-bit mask (0 for 0)."""


@njit(cache=True, inline="always")
def ground_piece(board: np.ndarray, h: int) -> int:
    """Bottom piece of the stack on hex ``h`` (``h`` must be occupied)."""
    p = board[TOP + h]
    while board[BELOW + p] >= 0:
        p = board[BELOW + p]
    return p


@njit(cache=True, nogil=True, **NO_REFCOUNT)
def articulation_pieces(board: np.ndarray, pinned: np.ndarray, work: np.ndarray) -> None:
    """Set ``pinned[p]`` (True / False) for every piece: True iff ``p`` is a ground tile whose
    hex is an articulation point of the hive (the tile under a stack is the stack's node).

    Args:
        board: [BOARD_SIZE] int16 board.
        pinned: [N_PIECES] bool, overwritten.
        work: [N_WORK] int64 scratch, any content (overwritten).
    """
    root = -1
    for p in range(N_PIECES):
        pinned[p] = False
        work[_DISC + p] = -1
        work[_PARENT + p] = -1
        if root < 0 and board[POS + p] >= 0 and board[LEVEL + p] == 0:
            root = p
    if root < 0:
        return
    work[_DISC + root] = 0
    work[_LOW + root] = 0
    work[_REST + root] = occupied_dirs(board, board[POS + root])
    clock = 1
    root_children = 0
    sp = 0
    work[_STACK] = root
    while sp >= 0:
        u = work[_STACK + sp]
        rest = work[_REST + u]
        if rest != 0:
            work[_REST + u] = rest & (rest - 1)
            v = ground_piece(board, NEIGH[board[POS + u], LOWEST_BIT[rest]])
            if work[_DISC + v] < 0:
                work[_PARENT + v] = u
                work[_DISC + v] = clock
                work[_LOW + v] = clock
                work[_REST + v] = occupied_dirs(board, board[POS + v])
                clock += 1
                if u == root:
                    root_children += 1
                sp += 1
                work[_STACK + sp] = v
            elif v != work[_PARENT + u] and work[_DISC + v] < work[_LOW + u]:
                work[_LOW + u] = work[_DISC + v]
        else:
            sp -= 1
            p = work[_PARENT + u]
            if p >= 0:
                if work[_LOW + u] < work[_LOW + p]:
                    work[_LOW + p] = work[_LOW + u]
                if p != root and work[_LOW + u] >= work[_DISC + p]:
                    pinned[p] = True
    if root_children > 1:
        pinned[root] = True


@njit(cache=True)
def articulation_hexes(board: np.ndarray, out: np.ndarray) -> None:
    """Set ``out[hex] = True`` for every occupied hex whose removal splits the hive.

    Args:
        board: [BOARD_SIZE] int16 board.
        out: [1024] bool, all False on entry; written in place.
    """
    pinned = np.empty(N_PIECES, dtype=np.bool_)
    articulation_pieces(board, pinned, np.empty(N_WORK, dtype=np.int64))
    for p in range(N_PIECES):
        if pinned[p]:
            out[board[POS + p]] = True
