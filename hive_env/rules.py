"""Legal moves, perft and compiled random playouts.

``generate_moves`` is the single source of truth for legality. It lists each distinct
move once, as the perft convention of docs/rules.md counts them: one per (tile, destination),
however many paths, mosquito powers or pillbug throws lead there; a placement per (bug
kind, cell); a lone ``PASS`` when nothing else is legal; nothing once the game is over.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from .board import (
    BELOW,
    EXPANSIONS,
    IN_PROGRESS,
    LAST,
    LEVEL,
    NO_REFCOUNT,
    PASS,
    PLY,
    POS,
    STATUS,
    TOP,
    move_of,
    play,
    unplay,
)
from .grid import N_HEX, NEIGH, ORIGIN
from .movegen import can_step, gen_beetle, gen_bug
from .pieces import (
    BUG_COUNT,
    BUG_FIRST_SLOT,
    MOSQUITO,
    N_BUGS,
    N_PIECES,
    PIECE_BUG,
    PIECE_COLOUR,
    PIECES_PER_COLOUR,
    PILLBUG,
    QUEEN,
)
from .pinned import N_WORK, articulation_pieces

MAX_MOVES = 1024
"""Capacity of a move buffer; far above the most moves any Hive position has (~300)."""

_EXP_BIT = np.array([0, 0, 0, 0, 0, 1, 2, 4], dtype=np.int64)

STAMPS_PER_CALL = PIECES_PER_COLOUR + 1
"""Stamps one generation uses: one for the placement cells, one per tile of the mover."""
STAMP_LIMIT = 1 << 30
"""A :class:`MoveScratch` whose stamp passes this restarts from 0 (its marks cleared)."""


class MoveScratch(NamedTuple):
    """Caller-owned work arrays of :func:`generate_moves_with` (numba passes this tuple of
    arrays as one argument). Make one with :func:`new_move_scratch`; reuse it for any number
    of positions, one generation at a time. The marks are stamp-based, so nothing is cleared
    between positions; contents other than ``stamp`` mean nothing to the caller."""

    marks: np.ndarray  # [N_HEX] int32: stamp of a destination emitted / a placement cell seen
    seen: np.ndarray  # [N_HEX] int32: stamp of a cell reached by an ant's flood fill
    cells: np.ndarray  # [N_HEX] int16: placement cells, then an ant's flood-fill queue
    kinds: np.ndarray  # [N_BUGS] int64: the next tile of each bug kind placeable
    pinned: np.ndarray  # [N_PIECES] bool: articulation_pieces of the position
    work: np.ndarray  # [N_WORK] int64: articulation_pieces' scratch
    stamp: np.ndarray  # [1] int64: the last stamp used


@njit(cache=True, nogil=True)
def new_move_scratch() -> MoveScratch:
    """A fresh :class:`MoveScratch` (callable from Python and from compiled code)."""
    return MoveScratch(
        np.zeros(N_HEX, dtype=np.int32),
        np.zeros(N_HEX, dtype=np.int32),
        np.empty(N_HEX, dtype=np.int16),
        np.empty(N_BUGS, dtype=np.int64),
        np.zeros(N_PIECES, dtype=np.bool_),
        np.empty(N_WORK, dtype=np.int64),
        np.zeros(1, dtype=np.int64),
    )


@njit(cache=True, nogil=True, **NO_REFCOUNT)
def _placeable_kinds(board, colour, turn, kinds):
    """The next reserve tile of each bug kind ``colour`` may place this turn into ``kinds``;
    returns how many."""
    base = colour * PIECES_PER_COLOUR
    queen_in = board[POS + base] >= 0
    exp = board[EXPANSIONS]
    nk = 0
    for bug in range(N_BUGS):
        if _EXP_BIT[bug] != 0 and (exp & _EXP_BIT[bug]) == 0:
            continue
        if bug == QUEEN and turn == 1:
            continue  # tournament opening rule
        if not queen_in and turn == 4 and bug != QUEEN:
            continue  # the queen by the fourth turn
        for i in range(BUG_COUNT[bug]):
            p = base + BUG_FIRST_SLOT[bug] + i
            if board[POS + p] < 0:
                kinds[nk] = p
                nk += 1
                break
    return nk


@njit(cache=True, nogil=True, **NO_REFCOUNT)
def _placement_cells(board, colour, cells, marks, stamp):
    """Empty cells ``colour`` may place on (ply > 0), in order of discovery, into ``cells``;
    returns how many. ``marks`` cells already seen carry ``stamp``."""
    base = colour * PIECES_PER_COLOUR
    own_in_play = False
    for i in range(PIECES_PER_COLOUR):
        if board[POS + base + i] >= 0:
            own_in_play = True
            break
    nc = 0
    for p in range(2 * PIECES_PER_COLOUR):
        h = board[POS + p]
        if h < 0 or board[TOP + h] != p:
            continue
        if own_in_play and PIECE_COLOUR[p] != colour:
            continue
        for d in range(6):
            c = NEIGH[h, d]
            if board[TOP + c] >= 0 or marks[c] == stamp:
                continue
            marks[c] = stamp
            ok = True
            if own_in_play:
                for d2 in range(6):
                    t = board[TOP + NEIGH[c, d2]]
                    if t >= 0 and PIECE_COLOUR[t] != colour:
                        ok = False
                        break
            if ok:
                cells[nc] = c
                nc += 1
    return nc


@njit(cache=True, nogil=True, **NO_REFCOUNT)
def _gen_placements(board, colour, ply, out, n, kinds, cells, marks, stamp):
    """Placements: bug kinds allowed this turn x cells allowed for this colour (work arrays
    of a MoveScratch)."""
    nk = _placeable_kinds(board, colour, ply // 2 + 1, kinds)
    if nk == 0:
        return n
    if ply == 0:
        cells[0] = ORIGIN
        nc = 1
    else:
        nc = _placement_cells(board, colour, cells, marks, stamp)
    for k in range(nk):
        for i in range(nc):
            if n < out.shape[0]:
                out[n] = move_of(kinds[k], cells[i])
                n += 1
    return n


@njit(cache=True, nogil=True, **NO_REFCOUNT)
def _neighbour_has_pillbug(board, h):
    for d in range(6):
        t = board[TOP + NEIGH[h, d]]
        if t >= 0 and PIECE_BUG[t] == PILLBUG:
            return True
    return False


@njit(cache=True, nogil=True, **NO_REFCOUNT)
def _gen_throws(board, thrower_hex, last, pinned, out, n, first_move):
    """Pillbug power from ``thrower_hex``: adjacent unstacked tiles over it to its empty neighbours
    (``pinned``: articulation_pieces)."""
    for dt in range(6):
        t = NEIGH[thrower_hex, dt]
        piece = board[TOP + t]
        if piece < 0 or board[LEVEL + piece] != 0 or piece == last or pinned[piece]:
            continue
        board[TOP + t] = -1  # lift the thrown tile
        if can_step(board, t, (dt + 3) % 6):
            for dd in range(6):
                dst = NEIGH[thrower_hex, dd]
                if board[TOP + dst] >= 0 or dst == t or not can_step(board, thrower_hex, dd):
                    continue
                mv = move_of(piece, dst)
                dup = False
                for i in range(first_move, n):
                    if out[i] == mv:
                        dup = True
                        break
                if not dup and n < out.shape[0]:
                    out[n] = mv
                    n += 1
        board[TOP + t] = piece
    return n


@njit(cache=True, nogil=True, **NO_REFCOUNT)
def _gen_mosquito(board, p, src, marks, seen, queue, stamp, out, n):
    """A ground mosquito (lifted): the movement of each bug kind it touches, once per kind."""
    done = np.int64(1) << MOSQUITO
    for d in range(6):
        t = board[TOP + NEIGH[src, d]]
        if t < 0:
            continue
        nb = PIECE_BUG[t]
        if done & (np.int64(1) << nb):
            continue
        done |= np.int64(1) << nb
        n = gen_bug(board, nb, p, src, marks, stamp, out, n, seen, stamp, queue)
    return n


@njit(cache=True, nogil=True, **NO_REFCOUNT)
def _gen_movements(board, colour, out, n, pinned, marks, seen, queue, stamp):
    """Movements of the side to move's tiles, then pillbug (and mosquito) throws; tile ``i``
    of the mover marks with ``stamp + i``; ``pinned`` holds articulation_pieces (the other
    arrays: those of a MoveScratch)."""
    first_move = n
    base = colour * PIECES_PER_COLOUR
    last = board[LAST]
    for i in range(PIECES_PER_COLOUR):
        p = base + i
        src = board[POS + p]
        if src < 0 or board[TOP + src] != p or p == last:
            continue
        on_top = board[LEVEL + p] > 0
        if not on_top and pinned[p]:
            continue
        bug = PIECE_BUG[p]
        s = stamp + i
        board[TOP + src] = board[BELOW + p]  # lift
        if bug == MOSQUITO:
            if on_top:
                n = gen_beetle(board, p, src, marks, s, out, n)
            else:
                n = _gen_mosquito(board, p, src, marks, seen, queue, s, out, n)
        else:
            n = gen_bug(board, bug, p, src, marks, s, out, n, seen, s, queue)
        board[TOP + src] = p  # put back
    for i in range(PIECES_PER_COLOUR):
        p = base + i
        bug = PIECE_BUG[p]
        if bug != PILLBUG and bug != MOSQUITO:
            continue
        src = board[POS + p]
        if src < 0 or board[TOP + src] != p or board[LEVEL + p] != 0 or p == last:
            continue
        if bug == MOSQUITO and not _neighbour_has_pillbug(board, src):
            continue
        n = _gen_throws(board, src, last, pinned, out, n, first_move)
    return n


@njit(cache=True, nogil=True, **NO_REFCOUNT)
def _generate(board, out, scratch, have_pinned):
    """:func:`generate_moves` with ``scratch``; ``have_pinned``: ``scratch.pinned`` already
    holds articulation_pieces of ``board``."""
    if board[STATUS] != IN_PROGRESS:
        return 0
    marks, seen, cells, pinned = scratch.marks, scratch.seen, scratch.cells, scratch.pinned
    stamps = scratch.stamp
    stamp = stamps[0]
    if stamp > STAMP_LIMIT:
        marks[:] = 0
        seen[:] = 0
        stamp = 0
    stamps[0] = stamp + STAMPS_PER_CALL
    ply = np.int64(board[PLY])
    colour = ply & 1
    n = _gen_placements(board, colour, ply, out, 0, scratch.kinds, cells, marks, stamp + 1)
    if board[POS + colour * PIECES_PER_COLOUR] >= 0:
        if not have_pinned:
            articulation_pieces(board, pinned, scratch.work)
        n = _gen_movements(board, colour, out, n, pinned, marks, seen, cells, stamp + 2)
    if n == 0:
        out[0] = PASS
        n = 1
    return n


@njit(cache=True, nogil=True, **NO_REFCOUNT)
def generate_moves_with(board: np.ndarray, out: np.ndarray, scratch: MoveScratch) -> int:
    """:func:`generate_moves` with caller-owned work arrays (no allocation): the same moves
    in the same order. ``scratch``: a :class:`MoveScratch` used by one call at a time."""
    return _generate(board, out, scratch, False)


@njit(cache=True, nogil=True, **NO_REFCOUNT)
def generate_moves_pinned(board: np.ndarray, out: np.ndarray, scratch: MoveScratch) -> int:
    """:func:`generate_moves_with` when ``scratch.pinned`` already holds
    ``articulation_pieces(board, ...)`` (the encoder computes it for its features)."""
    return _generate(board, out, scratch, True)


@njit(cache=True, nogil=True)
def generate_moves(board: np.ndarray, out: np.ndarray) -> int:
    """Write every legal move of the side to move into ``out``; return how many.

    Args:
        board: [BOARD_SIZE] int16 board (temporarily modified, restored on return).
        out: [>= MAX_MOVES] int32 move buffer.

    Returns:
        The number of moves: 0 iff the game is over; ``out[0] == PASS`` alone when no
        placement or movement is legal.
    """
    if board[STATUS] != IN_PROGRESS:
        return 0
    scratch = new_move_scratch()  # a local: _generate called directly on it ran 4x slower
    return generate_moves_with(board, out, scratch)


@njit(cache=True)
def is_legal(board: np.ndarray, move: int) -> bool:
    """Whether ``move`` is among the legal moves of the position."""
    out = np.empty(MAX_MOVES, dtype=np.int32)
    n = generate_moves(board, out)
    for i in range(n):
        if out[i] == move:
            return True
    return False


@njit(cache=True, **NO_REFCOUNT)
def _perft(board, hist, depth, buf, scratch):
    n = generate_moves_with(board, buf[depth], scratch)
    if depth == 1:
        return np.int64(n)
    total = np.int64(0)
    for i in range(n):
        mv = buf[depth, i]
        token = play(board, hist, mv)
        total += _perft(board, hist, depth - 1, buf, scratch)
        unplay(board, mv, token)
    return total


@njit(cache=True)
def perft(board: np.ndarray, hist: np.ndarray, depth: int) -> int:
    """Number of leaf positions ``depth`` plies below this one (docs/rules.md convention)."""
    if depth <= 0:
        return 1
    buf = np.empty((depth + 1, MAX_MOVES), dtype=np.int32)
    return _perft(board, hist, depth, buf, new_move_scratch())


@njit(cache=True)
def random_playouts(board: np.ndarray, hist: np.ndarray, n_games: int, max_plies: int, seed: int) -> int:
    """Play ``n_games`` uniformly random games from ``board``; return total plies played.

    Legal moves are generated at every ply. Each game ends at a result or after
    ``max_plies`` plies; ``board``/``hist`` are left as given.
    """
    np.random.seed(seed)
    out = np.empty(MAX_MOVES, dtype=np.int32)
    scratch = new_move_scratch()
    work = board.copy()
    work_hist = hist.copy()
    total = 0
    for _ in range(n_games):
        work[:] = board
        work_hist[:] = hist
        for _ply in range(max_plies):
            n = generate_moves_with(work, out, scratch)
            if n == 0:
                break
            play(work, work_hist, out[np.random.randint(n)])
            total += 1
    return total
