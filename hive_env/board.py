"""Board state as flat arrays, with compiled play/unplay and Zobrist hashing.

A *board* is one game's state, two arrays that every kernel takes together: ``board``
(``[BOARD_SIZE] int16``, its offsets the constants ``TOP``, ``POS``, ``BELOW``, ``LEVEL``,
``PLY``, ``LAST``, ``STATUS``, ``EXPANSIONS``, ``PLY_CAP``) and ``hist`` (``[HIST] uint64``, a
ring of position hashes). A *move* is an int, ``piece * N_HEX + destination hex`` or ``PASS``:
:func:`move_of` packs one, :func:`move_piece` and :func:`move_dest` unpack it.

See docs/engine.md (the board arrays).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .grid import N_HEX, NEIGH
from .pieces import N_PIECES, PIECE_BUG, PIECE_COLOUR, PIECES_PER_COLOUR


def _no_refcount() -> dict:
    """``{"_nrt": False}`` where this numba has the (private) option, else nothing: a numba
    without it compiles the same kernels with reference counting, slower but the same."""
    from numba.core.options import DefaultOptions

    return {"_nrt": False} if hasattr(DefaultOptions, "_nrt") else {}


NO_REFCOUNT = _no_refcount()
"""numba options of the kernels that allocate nothing (``@njit(..., **NO_REFCOUNT)``): compiled
without numba's reference counting. With it, every array a call passes or takes from a tuple
costs an atomic increment and decrement; on small boards those were over half of move generation
and perft. Such a kernel may take arrays and tuples of arrays, never make or return one, nor
call a kernel that does: an array made where nothing counts references is never freed. Only the
engine's kernels use it. The search's kernels did too, and a process that compiled them itself
(a cold kernel cache) leaked about 7 MB a self-play step, 12 GB a worker in 13 minutes;
``tests/search/test_memory.py`` holds a cold-cache self-play's memory flat.
"""

TOP = 0
POS = TOP + N_HEX
BELOW = POS + N_PIECES
LEVEL = BELOW + N_PIECES
PLY = LEVEL + N_PIECES
LAST = PLY + 1
STATUS = PLY + 2
EXPANSIONS = PLY + 3
PLY_CAP = PLY + 4
BOARD_SIZE = PLY + 8

HIST = 64
REPETITION_WINDOW = 32

IN_PROGRESS, WHITE_WINS, BLACK_WINS, DRAW = 0, 1, 2, 3

_DEST_BITS = N_HEX.bit_length() - 1
"""The low bits of a move hold its destination hex: ``N_HEX`` is a power of two, so
:func:`move_piece` and :func:`move_dest` are a shift and a mask."""
_DEST_MASK = N_HEX - 1
PASS = N_PIECES * N_HEX
MAX_HEIGHT = 8
WHITE_QUEEN = 0
BLACK_QUEEN = PIECES_PER_COLOUR

PIECE_KEY = (PIECE_COLOUR * 8 + PIECE_BUG).astype(np.int64)
"""[28] int: Zobrist kind of each piece (colour * 8 + bug), so same-kind tiles hash alike."""
ZOBRIST_SIDE = np.uint64(0x9E3779B97F4A7C15)
TOP_SIDE = np.concatenate(([0], PIECE_COLOUR + 1)).astype(np.int64)
"""[1 + N_PIECES]: by ``top + 1`` of a hex, 0 when it is empty (top -1), else 1 + the colour of
its top tile: the encoder's branch-free neighbour counts (who holds a neighbour is a coin toss
to the CPU's branch predictor)."""


@njit(cache=True, inline="always")
def zobrist_key(kind: int, level: int, h: int) -> np.uint64:
    """Zobrist key of a tile kind at (hex, level): splitmix64 of the index, no table needed."""
    z = np.uint64((kind * MAX_HEIGHT + level) * N_HEX + h + 1) * np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def move_of(piece: int, hex_: int) -> int:
    """Encode a move of ``piece`` to ``hex_``."""
    return piece * N_HEX + hex_


@njit(cache=True, inline="always")
def move_piece(move: int) -> int:
    """Piece of a non-pass move."""
    return move >> _DEST_BITS


@njit(cache=True, inline="always")
def move_dest(move: int) -> int:
    """Destination hex of a non-pass move."""
    return move & _DEST_MASK


def new_board(expansions: int = 0, ply_cap: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """An empty board of a game type, White to move.

    Args:
        expansions: game type bits (M=1, L=2, P=4).
        ply_cap: draw after this many plies; 0 = no cap (UHP play).

    Returns:
        (board [BOARD_SIZE] int16, hist [HIST] uint64)
    """
    board = np.zeros(BOARD_SIZE, dtype=np.int16)
    board[TOP : TOP + N_HEX] = -1
    board[POS : POS + N_PIECES] = -1
    board[BELOW : BELOW + N_PIECES] = -1
    board[LAST] = -1
    board[EXPANSIONS] = expansions
    board[PLY_CAP] = ply_cap
    return board, np.zeros(HIST, dtype=np.uint64)


@njit(cache=True, inline="always")
def height(board: np.ndarray, h: int) -> int:
    """Number of tiles on hex ``h``."""
    t = board[TOP + h]
    return 0 if t < 0 else board[LEVEL + t] + 1


@njit(cache=True, inline="always")
def occupied_dirs(board: np.ndarray, h: int) -> int:
    """6-bit mask of the occupied neighbours of hex ``h`` (bit d: direction d)."""
    occ = 0
    for d in range(6):
        if board[TOP + NEIGH[h, d]] >= 0:
            occ |= 1 << d
    return occ


@njit(cache=True, **NO_REFCOUNT)
def is_surrounded(board: np.ndarray, h: int) -> bool:
    for d in range(6):
        if board[TOP + NEIGH[h, d]] < 0:
            return False
    return True


@njit(cache=True, **NO_REFCOUNT)
def times_seen(hist: np.ndarray, ply: int) -> int:
    """How often the position of ply ``ply`` occurred with the same side to move within
    :data:`REPETITION_WINDOW` plies, itself included (3: a draw by repetition)."""
    cur = hist[ply % HIST]
    seen = 0
    q = ply
    while q >= 0 and ply - q <= REPETITION_WINDOW:
        if hist[q % HIST] == cur:
            seen += 1
        q -= 2
    return seen


@njit(cache=True, **NO_REFCOUNT)
def compute_status(board: np.ndarray, hist: np.ndarray) -> int:
    """Outcome of the position just reached: surrounds, then repetition, then ply cap."""
    wq = board[POS + WHITE_QUEEN]
    bq = board[POS + BLACK_QUEEN]
    w_lost = wq >= 0 and is_surrounded(board, wq)
    b_lost = bq >= 0 and is_surrounded(board, bq)
    if w_lost and b_lost:
        return DRAW
    if w_lost:
        return BLACK_WINS
    if b_lost:
        return WHITE_WINS
    ply = np.int64(board[PLY])
    if times_seen(hist, ply) >= 3:
        return DRAW
    cap = board[PLY_CAP]
    if cap > 0 and ply >= cap:
        return DRAW
    return IN_PROGRESS


@njit(cache=True, **NO_REFCOUNT)
def play(board: np.ndarray, hist: np.ndarray, move: int) -> int:
    """Apply a legal move in place; return the undo token for :func:`unplay`.

    The move is trusted: callers check legality (``rules.is_legal``) first.
    """
    ply = np.int64(board[PLY])
    h = hist[ply % HIST] ^ ZOBRIST_SIDE
    src = N_HEX  # from reserve
    if move != PASS:
        p = move_piece(move)
        dst = move_dest(move)
        key = PIECE_KEY[p]
        src_pos = board[POS + p]
        if src_pos >= 0:
            src = src_pos
            h ^= zobrist_key(key, board[LEVEL + p], src)
            board[TOP + src] = board[BELOW + p]
        below = board[TOP + dst]
        lvl = 0 if below < 0 else board[LEVEL + below] + 1
        board[BELOW + p] = below
        board[LEVEL + p] = lvl
        board[TOP + dst] = p
        board[POS + p] = dst
        h ^= zobrist_key(key, lvl, dst)
    token = src | ((np.int64(board[LAST]) + 1) << 11) | (np.int64(board[STATUS]) << 16)
    board[LAST] = -1 if move == PASS else move_piece(move)
    board[PLY] = ply + 1
    hist[(ply + 1) % HIST] = h
    board[STATUS] = compute_status(board, hist)
    return token


@njit(cache=True, **NO_REFCOUNT)
def unplay(board: np.ndarray, move: int, token: int) -> None:
    """Take back ``move``, the last move played, given the token :func:`play` returned."""
    if move != PASS:
        p = move_piece(move)
        dst = move_dest(move)
        src = token & 2047
        board[TOP + dst] = board[BELOW + p]
        if src == N_HEX:
            board[POS + p] = -1
            board[BELOW + p] = -1
            board[LEVEL + p] = 0
        else:
            below = board[TOP + src]
            board[BELOW + p] = below
            board[LEVEL + p] = 0 if below < 0 else board[LEVEL + below] + 1
            board[TOP + src] = p
            board[POS + p] = src
    board[LAST] = ((token >> 11) & 31) - 1
    board[STATUS] = (token >> 16) & 7
    board[PLY] -= 1


@njit(cache=True, **NO_REFCOUNT)
def repeats(board: np.ndarray, hist: np.ndarray, move: int) -> bool:
    """Whether the legal ``move`` reaches a position already seen with the same side to move
    (within :data:`REPETITION_WINDOW`): a step towards a draw by repetition. ``board`` and
    ``hist`` are left as they were."""
    ply = np.int64(board[PLY])
    slot = (ply + 1) % HIST
    kept = hist[slot]
    token = play(board, hist, move)
    seen = times_seen(hist, ply + 1) >= 2
    unplay(board, move, token)
    hist[slot] = kept
    return seen


@njit(cache=True)
def full_hash(board: np.ndarray) -> np.uint64:
    """Zobrist hash of the position computed from scratch (side to move included)."""
    h = np.uint64(0)
    for p in range(N_PIECES):
        pos = board[POS + p]
        if pos >= 0:
            h ^= zobrist_key(PIECE_KEY[p], board[LEVEL + p], pos)
    if board[PLY] & 1:
        h ^= ZOBRIST_SIDE
    return h


def current_hash(board: np.ndarray, hist: np.ndarray) -> int:
    """Zobrist hash of the current position."""
    return int(hist[int(board[PLY]) % HIST])
