"""Movement primitives and per-bug move generation (compiled).

Every generator works on a board whose moving tile has been *lifted* (its hex's TOP set to the
tile below it), writes destinations through a stamp-based de-duplication array, and appends
encoded moves to a caller-owned buffer, returning the new count. No allocation. Ground slides
follow freedom to move (:func:`can_slide`, :data:`SLIDES`), steps at height the gate rule
(:func:`can_step`).

See docs/rules.md (moving).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .board import LEVEL, NO_REFCOUNT, TOP, move_of, occupied_dirs
from .grid import NEIGH
from .pieces import ANT, BEETLE, GRASSHOPPER, LADYBUG, PILLBUG, QUEEN, SPIDER


def _build_slides() -> np.ndarray:
    table = np.zeros(64, dtype=np.int64)
    for occ in range(64):
        for d in range(6):
            left = (occ >> ((d + 5) % 6)) & 1
            right = (occ >> ((d + 1) % 6)) & 1
            if not (occ >> d) & 1 and left != right:
                table[occ] |= 1 << d
    return table


SLIDES = _build_slides()
"""[64] int: for the occupancy mask of a cell's neighbours (bit d: direction d occupied), the
mask of the directions a ground slide from the cell may take (the rule of :func:`can_slide`)."""


@njit(cache=True, inline="always")
def slide_dirs(board: np.ndarray, h: int) -> int:
    """Mask of the directions a ground slide from ``h`` may take (mover lifted)."""
    return SLIDES[occupied_dirs(board, h)]


@njit(cache=True, inline="always")
def _h(board: np.ndarray, h: int) -> int:
    t = board[TOP + h]
    return 0 if t < 0 else board[LEVEL + t] + 1


@njit(cache=True, inline="always")
def can_slide(board: np.ndarray, src: int, d: int) -> bool:
    """Ground slide from ``src`` in direction ``d`` (mover lifted)::

           L   D          a ground step h -> D is legal iff D is empty and exactly one of the
         h   R            flanks L, R is occupied: both = a gate, neither = losing contact.

    The ground sliders (queen, pillbug, spider, ant) read a cell's six neighbours once, as a
    6-bit occupancy mask, and take the directions they may slide in from :data:`SLIDES`.
    """
    if board[TOP + NEIGH[src, d]] >= 0:
        return False
    left = board[TOP + NEIGH[src, (d + 5) % 6]] >= 0
    right = board[TOP + NEIGH[src, (d + 1) % 6]] >= 0
    return left != right


@njit(cache=True, inline="always")
def can_step(board: np.ndarray, src: int, d: int) -> bool:
    """One beetle-style step from ``src`` in direction ``d``, any height (mover lifted).

    The tile travels at height ``max(height(src), height(dst))``; both flanks taller than
    that close the gate (beetle, mosquito on top, ladybug, pillbug throws). On the ground this
    is the plain slide rule.
    """
    dst = NEIGH[src, d]
    ha = _h(board, src)
    hb = _h(board, dst)
    if ha == 0 and hb == 0:
        return can_slide(board, src, d)
    top = ha if ha > hb else hb
    return not (_h(board, NEIGH[src, (d + 5) % 6]) > top and _h(board, NEIGH[src, (d + 1) % 6]) > top)


@njit(cache=True, inline="always")
def _emit(piece: int, dst: int, marks: np.ndarray, stamp: int, out: np.ndarray, n: int) -> int:
    if marks[dst] != stamp and n < out.shape[0]:
        marks[dst] = stamp
        out[n] = move_of(piece, dst)
        n += 1
    return n


@njit(cache=True, **NO_REFCOUNT)
def gen_slide1(board, piece, src, marks, stamp, out, n):
    """Queen (and pillbug) movement: exactly one slide."""
    m = slide_dirs(board, src)
    for d in range(6):
        if (m >> d) & 1:
            n = _emit(piece, NEIGH[src, d], marks, stamp, out, n)
    return n


@njit(cache=True, **NO_REFCOUNT)
def gen_spider(board, piece, src, marks, stamp, out, n):
    """Exactly three slides, never entering a cell twice."""
    m1 = slide_dirs(board, src)
    for d1 in range(6):
        if not (m1 >> d1) & 1:
            continue
        c1 = NEIGH[src, d1]
        m2 = slide_dirs(board, c1)
        for d2 in range(6):
            if not (m2 >> d2) & 1:
                continue
            c2 = NEIGH[c1, d2]
            if c2 == src:
                continue
            m3 = slide_dirs(board, c2)
            for d3 in range(6):
                if not (m3 >> d3) & 1:
                    continue
                c3 = NEIGH[c2, d3]
                if c3 == c1 or c3 == src:
                    continue
                n = _emit(piece, c3, marks, stamp, out, n)
    return n


@njit(cache=True, **NO_REFCOUNT)
def gen_ant(board, piece, src, marks, stamp, out, n, seen, seen_stamp, queue):
    """Any number (>= 1) of slides: a flood fill over slides from ``src``."""
    seen[src] = seen_stamp
    queue[0] = src
    head = 0
    tail = 1
    while head < tail:
        c = queue[head]
        head += 1
        m = slide_dirs(board, c)
        for d in range(6):
            if (m >> d) & 1:
                nx = NEIGH[c, d]
                if seen[nx] != seen_stamp:
                    seen[nx] = seen_stamp
                    queue[tail] = nx
                    tail += 1
                    n = _emit(piece, nx, marks, stamp, out, n)
    return n


@njit(cache=True, **NO_REFCOUNT)
def gen_grasshopper(board, piece, src, marks, stamp, out, n):
    """Straight jumps over at least one tile to the first empty cell."""
    for d in range(6):
        c = NEIGH[src, d]
        if board[TOP + c] < 0:
            continue
        while board[TOP + c] >= 0:
            c = NEIGH[c, d]
        n = _emit(piece, c, marks, stamp, out, n)
    return n


@njit(cache=True, **NO_REFCOUNT)
def gen_beetle(board, piece, src, marks, stamp, out, n):
    """One step in any direction, onto, along or off the hive, gates at height."""
    for d in range(6):
        if can_step(board, src, d):
            n = _emit(piece, NEIGH[src, d], marks, stamp, out, n)
    return n


@njit(cache=True, **NO_REFCOUNT)
def gen_ladybug(board, piece, src, marks, stamp, out, n):
    """Two steps on top of the hive, then one down into an empty cell (not the origin)."""
    for d1 in range(6):
        c1 = NEIGH[src, d1]
        if board[TOP + c1] < 0 or not can_step(board, src, d1):
            continue
        for d2 in range(6):
            c2 = NEIGH[c1, d2]
            if board[TOP + c2] < 0 or not can_step(board, c1, d2):
                continue
            for d3 in range(6):
                c3 = NEIGH[c2, d3]
                if board[TOP + c3] >= 0 or c3 == src or not can_step(board, c2, d3):
                    continue
                n = _emit(piece, c3, marks, stamp, out, n)
    return n


@njit(cache=True, **NO_REFCOUNT)
def gen_bug(board, bug, piece, src, marks, stamp, out, n, seen, seen_stamp, queue):
    """Movement of one bug kind for ``piece`` at ``src`` (mosquito and pillbug power aside)."""
    if bug == QUEEN or bug == PILLBUG:
        return gen_slide1(board, piece, src, marks, stamp, out, n)
    if bug == SPIDER:
        return gen_spider(board, piece, src, marks, stamp, out, n)
    if bug == BEETLE:
        return gen_beetle(board, piece, src, marks, stamp, out, n)
    if bug == GRASSHOPPER:
        return gen_grasshopper(board, piece, src, marks, stamp, out, n)
    if bug == ANT:
        return gen_ant(board, piece, src, marks, stamp, out, n, seen, seen_stamp, queue)
    if bug == LADYBUG:
        return gen_ladybug(board, piece, src, marks, stamp, out, n)
    return n
