"""Pinned tiles: articulation points of the hive's adjacency graph.

A ground tile alone in its cell is pinned when lifting it splits the hive (one-hive rule),
which is exactly when its cell is an articulation point of the graph of occupied cells.
One iterative Tarjan DFS per position finds them all in linear time
(https://en.wikipedia.org/wiki/Biconnected_component). Nodes are ground pieces, so the
work arrays have 28 entries, not 1024.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .board import BELOW, LEVEL, POS, TOP
from .grid import NEIGH
from .pieces import N_PIECES


@njit(cache=True, inline="always")
def ground_piece(board: np.ndarray, h: int) -> int:
    """Bottom piece of the stack on hex ``h`` (``h`` must be occupied)."""
    p = board[TOP + h]
    while board[BELOW + p] >= 0:
        p = board[BELOW + p]
    return p


@njit(cache=True)
def articulation_hexes(board: np.ndarray, out: np.ndarray) -> None:
    """Set ``out[hex] = True`` for every occupied hex whose removal splits the hive.

    Args:
        board: [BOARD_SIZE] int16 board.
        out: [1024] bool, all False on entry; written in place.
    """
    disc = np.full(N_PIECES, -1, dtype=np.int64)
    low = np.zeros(N_PIECES, dtype=np.int64)
    parent = np.full(N_PIECES, -1, dtype=np.int64)
    next_dir = np.zeros(N_PIECES, dtype=np.int64)
    stack = np.empty(N_PIECES, dtype=np.int64)
    root = -1
    for p in range(N_PIECES):
        if board[POS + p] >= 0 and board[LEVEL + p] == 0:
            root = p
            break
    if root < 0:
        return
    disc[root] = 0
    low[root] = 0
    clock = 1
    root_children = 0
    sp = 0
    stack[0] = root
    while sp >= 0:
        u = stack[sp]
        if next_dir[u] < 6:
            d = next_dir[u]
            next_dir[u] += 1
            n = NEIGH[board[POS + u], d]
            if board[TOP + n] < 0:
                continue
            v = ground_piece(board, n)
            if disc[v] < 0:
                parent[v] = u
                disc[v] = clock
                low[v] = clock
                clock += 1
                if u == root:
                    root_children += 1
                sp += 1
                stack[sp] = v
            elif v != parent[u] and disc[v] < low[u]:
                low[u] = disc[v]
        else:
            sp -= 1
            p = parent[u]
            if p >= 0:
                if low[u] < low[p]:
                    low[p] = low[u]
                if p != root and low[u] >= disc[p]:
                    out[board[POS + p]] = True
    if root_children > 1:
        out[board[POS + root]] = True
