"""Exact one-ply tactics: which moves end the game by a surround, which let the opponent win at once.

Only a move that fills the last empty neighbour of a queen can end a game by a surround
(:func:`can_surround`), so :func:`scan_surrounds` plays just those few moves and reads the status
the engine computes. Outcomes are *proof codes* from the mover's view (:data:`UNPROVEN` ..
:data:`PROVEN_WIN`), shared with the search's solver; a draw by the training ply cap is not one.

See docs/search.md (exact tactics in the tree).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .board import (
    BLACK_WINS,
    DRAW,
    EXPANSIONS,
    IN_PROGRESS,
    PASS,
    PLY,
    POS,
    STATUS,
    TOP,
    WHITE_WINS,
    move_dest,
    move_piece,
    play,
    unplay,
)
from .grid import NEIGH
from .outcome import is_real_draw, queen_pressure
from .pieces import EXP_PILLBUG, MOSQUITO, PIECE_BUG, PIECE_COLOUR, PIECES_PER_COLOUR, PILLBUG
from .rules import MAX_MOVES, generate_moves

UNPROVEN = 0
"""Nothing is known about the move (or node). Proof codes are from the view of the side to move
before the move, ordered (a larger code is better for the mover): the value of a code is
``code - 2`` and the opponent's view of it ``4 - code``. Only wins, losses and real draws (both
queens surrounded, repetition) are proven: a draw by the training ply cap is not, as self-play
may adjudicate it (``hive_env.outcome``)."""
PROVEN_LOSS = 1
"""The mover loses: after the move (at the node) the game is lost with best play."""
PROVEN_DRAW = 2
"""A draw with best play."""
PROVEN_WIN = 3
"""The mover wins."""


@njit(cache=True, nogil=True, inline="always")
def proof_value(code: int) -> float:
    """The exact value (-1, 0, +1) of a proven code, for the side it is stated for."""
    return float(code - 2)


@njit(cache=True, nogil=True, inline="always")
def flip_proof(code: int) -> int:
    """The same proof from the other side's view (``UNPROVEN`` stays)."""
    return 0 if code == UNPROVEN else 4 - code


@njit(cache=True, nogil=True, inline="always")
def _adjacent(a: int, b: int) -> bool:
    for d in range(6):
        if NEIGH[a, d] == b:
            return True
    return False


@njit(cache=True, nogil=True)
def _outcome_code(board: np.ndarray, hist: np.ndarray, mover: int) -> int:
    """Proof code, for ``mover``, of the position just reached (``UNPROVEN`` if in progress
    or drawn by the ply cap alone)."""
    status = board[STATUS]
    if status == IN_PROGRESS:
        return UNPROVEN
    if status == DRAW:
        return PROVEN_DRAW if is_real_draw(board, hist) else UNPROVEN
    won = (status == WHITE_WINS and mover == 0) or (status == BLACK_WINS and mover == 1)
    return PROVEN_WIN if won else PROVEN_LOSS


@njit(cache=True, nogil=True)
def can_surround(board: np.ndarray, move: int, hot_w: bool, hot_b: bool) -> bool:
    """Whether ``move`` may end the game by a surround (exactly: a move for which this is False
    cannot). ``hot_w``/``hot_b``: that queen has five occupied neighbours.

    A tile can only fill its destination (leaving its origin can only empty a hex), so a queen
    that stays where it is must already have five occupied neighbours (``queen_pressure``, the
    count the encoder's queen features read) and the move's destination must touch it. A queen
    that moves is surrounded afterwards only when it did not slide one step (its origin, left
    empty, would touch it): a placement or a throw."""
    if move == PASS:
        return False
    p = move_piece(move)
    dst = move_dest(move)
    if hot_w and _adjacent(dst, board[POS + 0]):
        return True
    if hot_b and _adjacent(dst, board[POS + PIECES_PER_COLOUR]):
        return True
    if p == 0 or p == PIECES_PER_COLOUR:  # a queen placed, or thrown, into a hole
        src = board[POS + p]
        return src < 0 or not _adjacent(src, dst)
    return False


@njit(cache=True, nogil=True)
def scan_surrounds(board: np.ndarray, hist: np.ndarray, moves: np.ndarray, n: int, out: np.ndarray) -> int:
    """Proof code of each of the first ``n`` ``moves`` when it ends the game at once, else
    ``UNPROVEN`` (exact for surrounds; a repetition draw is reported when the move is one that
    is played for the surround check). Returns the number of moves found to end the game.

    ``board``/``hist`` are played on and restored. ``out``: [>= n] int8, written.
    """
    mover = board[PLY] & 1
    hot_w = board[POS + 0] >= 0 and queen_pressure(board, 0) == 5
    hot_b = board[POS + PIECES_PER_COLOUR] >= 0 and queen_pressure(board, 1) == 5
    found = 0
    for i in range(n):
        out[i] = UNPROVEN
        mv = moves[i]
        if not can_surround(board, mv, hot_w, hot_b):
            continue
        token = play(board, hist, mv)
        code = _outcome_code(board, hist, mover)
        unplay(board, mv, token)
        out[i] = code
        if code != UNPROVEN:
            found += 1
    return found


@njit(cache=True, nogil=True)
def _opponent_may_surround(board: np.ndarray, colour: int) -> bool:
    """Whether the side to move (not ``colour``) may surround ``colour``'s queen with one move:
    it has five occupied neighbours, or an enemy pillbug or mosquito (a thrower) touches it."""
    qh = board[POS + colour * PIECES_PER_COLOUR]
    if qh < 0:
        return False
    if queen_pressure(board, colour) == 5:
        return True
    if board[EXPANSIONS] & EXP_PILLBUG == 0:
        return False
    for d in range(6):
        t = board[TOP + NEIGH[qh, d]]
        if t >= 0 and PIECE_COLOUR[t] != colour and (PIECE_BUG[t] == PILLBUG or PIECE_BUG[t] == MOSQUITO):
            return True
    return False


@njit(cache=True, nogil=True)
def opponent_wins_at_once(board: np.ndarray, hist: np.ndarray, buf: np.ndarray, codes: np.ndarray) -> bool:
    """Whether the side to move at ``board`` (a game in progress) has a move that wins at once.

    ``buf``: [MAX_MOVES] int32 and ``codes``: [MAX_MOVES] int8 scratch. ``board`` is restored.
    """
    if not _opponent_may_surround(board, 1 - (board[PLY] & 1)):
        return False
    n = generate_moves(board, buf)
    scan_surrounds(board, hist, buf, n, codes)
    for i in range(n):
        if codes[i] == PROVEN_WIN:
            return True
    return False


@njit(cache=True, nogil=True)
def scan_root(board: np.ndarray, hist: np.ndarray, moves: np.ndarray, n: int, out: np.ndarray,
              buf: np.ndarray, codes: np.ndarray) -> int:
    """:func:`scan_surrounds`, and every other move after which the opponent can win at once
    marked ``PROVEN_LOSS``: the exact one-move threats and defences of a position.

    Returns the proof of the position itself: ``PROVEN_WIN`` when a move wins, ``PROVEN_LOSS``
    or ``PROVEN_DRAW`` when every move is proven (the best of them), else ``UNPROVEN``.
    ``buf``/``codes``: scratch as for :func:`opponent_wins_at_once`.
    """
    scan_surrounds(board, hist, moves, n, out)
    for i in range(n):
        if out[i] != UNPROVEN:
            continue
        mv = moves[i]
        token = play(board, hist, mv)
        if board[STATUS] == IN_PROGRESS and opponent_wins_at_once(board, hist, buf, codes):
            out[i] = PROVEN_LOSS
        unplay(board, mv, token)
    return prove(out, n)


@njit(cache=True, nogil=True)
def _every_reply_loses(board: np.ndarray, hist: np.ndarray, bufs: np.ndarray, codes: np.ndarray) -> bool:
    """Whether every move of the side to move lets the other side win at once (or loses at once).
    ``bufs``: [2, MAX_MOVES] int32 scratch, ``codes``: [MAX_MOVES] int8."""
    us = 1 - (board[PLY] & 1)
    replies = bufs[0]
    n = generate_moves(board, replies)
    for i in range(n):
        mv = replies[i]
        token = play(board, hist, mv)
        if board[STATUS] != IN_PROGRESS:
            ok = _outcome_code(board, hist, us) == PROVEN_WIN
        else:
            ok = opponent_wins_at_once(board, hist, bufs[1], codes)
        unplay(board, mv, token)
        if not ok:
            return False
    return n > 0


@njit(cache=True, nogil=True)
def scan_wins_in_two(board: np.ndarray, hist: np.ndarray, moves: np.ndarray, n: int, out: np.ndarray,
                     bufs: np.ndarray, codes: np.ndarray) -> int:
    """``out[i]`` = 1 when ``moves[i]`` wins in two (the game goes on, and whatever the opponent
    replies, the mover then has a win in one), else 0; exact (every reply is played). Returns
    how many do. ``bufs``: [2, MAX_MOVES] int32 scratch, ``codes``: [MAX_MOVES] int8."""
    found = 0
    for i in range(n):
        out[i] = 0
        mv = moves[i]
        token = play(board, hist, mv)
        if board[STATUS] == IN_PROGRESS and _every_reply_loses(board, hist, bufs, codes):
            out[i] = 1
            found += 1
        unplay(board, mv, token)
    return found


@njit(cache=True, nogil=True)
def prove(codes: np.ndarray, n: int) -> int:
    """Proof of a position from the proof codes of its ``n`` moves (MCTS-Solver): a win when
    one move wins, the best code when every move is proven, else ``UNPROVEN``."""
    best = UNPROVEN
    complete = n > 0
    for i in range(n):
        c = codes[i]
        if c == PROVEN_WIN:
            return PROVEN_WIN
        if c == UNPROVEN:
            complete = False
        elif c > best:
            best = c
    return best if complete else UNPROVEN


def tactics_buffers() -> tuple[np.ndarray, np.ndarray]:
    """Scratch ``(buf, codes)`` for :func:`opponent_wins_at_once` and :func:`scan_root`."""
    return np.zeros(MAX_MOVES, np.int32), np.zeros(MAX_MOVES, np.int8)


def move_proofs(board: np.ndarray, hist: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The legal moves of a position and their one-move proof codes (:func:`scan_root`): the
    Python entry for players and tools. Works on copies: the arguments are not touched."""
    b = np.array(board, np.int16)
    h = np.array(hist, np.uint64)
    moves = np.zeros(MAX_MOVES, np.int32)
    n = generate_moves(b, moves) if b[STATUS] == IN_PROGRESS else 0
    out = np.zeros(max(n, 1), np.int8)
    buf, codes = tactics_buffers()
    scan_root(b, h, moves, n, out, buf, codes)
    return moves[:n].copy(), out[:n].copy()


def wins_in_two(board: np.ndarray, hist: np.ndarray, moves: np.ndarray) -> np.ndarray:
    """[n] bool: which ``moves`` win in two (:func:`scan_wins_in_two`); arguments untouched."""
    b = np.array(board, np.int16)
    h = np.array(hist, np.uint64)
    mv = np.asarray(moves, np.int32)
    out = np.zeros(max(mv.size, 1), np.int8)
    scan_wins_in_two(b, h, mv, mv.size, out, np.zeros((2, MAX_MOVES), np.int32), np.zeros(MAX_MOVES, np.int8))
    return out[: mv.size] == 1


def safe_moves(board: np.ndarray, hist: np.ndarray, moves: np.ndarray) -> np.ndarray:
    """[n] bool: the ``moves`` not proven lost in one (they neither lose at once nor let the
    opponent win at once); all True when every move is lost (a player must still move).
    Winning moves stay in the set: a caller that wants them at once uses :func:`move_proofs`."""
    b = np.array(board, np.int16)
    h = np.array(hist, np.uint64)
    mv = np.asarray(moves, np.int32)
    out = np.zeros(max(mv.size, 1), np.int8)
    buf, codes = tactics_buffers()
    scan_root(b, h, mv, mv.size, out, buf, codes)
    safe = out[: mv.size] != PROVEN_LOSS
    return safe if safe.any() else np.ones(mv.size, bool)


def classify_tactic(board: np.ndarray, hist: np.ndarray) -> tuple[str, list[int]] | None:
    """The exact tactic of a position in progress and its solution moves, or None: ``win1`` (the
    moves that win at once), else ``defend`` (some moves lose in one, and these do not), else
    ``win2`` (the moves that win in two). The tactics suite (``arena.tactics_suite``) and the
    puzzles (``web.puzzles``) are made of these."""
    moves, codes = move_proofs(board, hist)
    if (codes == PROVEN_WIN).any():
        return "win1", [int(m) for m in moves[codes == PROVEN_WIN]]
    lost = codes == PROVEN_LOSS
    if lost.any() and not lost.all():
        return "defend", [int(m) for m in moves[~lost]]
    two = wins_in_two(board, hist, moves)
    if two.any():
        return "win2", [int(m) for m in moves[two]]
    return None
