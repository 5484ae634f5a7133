"""A hand-written Hive evaluation, compiled: the leaf score of ``alphabeta`` and ``greedy``.

The score (:func:`evaluate`) is an int from the side to move's view, the sum of one term per
colour, own minus enemy: pressure on the Queens, mobile tiles by bug, pinned and covered tiles,
tiles in reserve, and the tempo; each weight is a named module constant. Weights live in one
``[N_WEIGHTS] int32`` array (:func:`make_weights`) that kernels take as an argument, so they can be
tuned without recompiling and no kernel reads a global setting.

See docs/players.md (the heuristic).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hive_env.board import (
    BLACK_WINS,
    DRAW,
    EXPANSIONS,
    IN_PROGRESS,
    LEVEL,
    PLY,
    POS,
    STATUS,
    TOP,
    play,
    unplay,
)
from hive_env.grid import N_HEX
from hive_env.movegen import can_slide
from hive_env.outcome import queen_pressure
from hive_env.pieces import ANT, PIECE_BUG, PIECES_PER_COLOUR, PILLBUG, QUEEN, SPIDER
from hive_env.pinned import articulation_hexes

# ----- default weights (score units: a movable ant is worth about 6) ------------------------
QUEEN_PRESSURE = (0, 8, 20, 45, 90, 170)
"""Penalty for a Queen with 0..5 occupied neighbours (own Queen: minus; enemy Queen: plus)."""
MOBILE_BY_BUG = (6, 3, 5, 4, 6, 5, 5, 4)
"""Bonus per tile able to move now, by bug Q S B G A M L P."""
PINNED = 3
"""Penalty per ground tile pinned by the one-hive rule."""
COVERED = 12
"""Penalty per tile covered by a beetle or mosquito."""
QUEEN_COVERED = 40
"""Extra penalty for a covered Queen (it cannot move and its owner's tiles lose support)."""
RESERVE = 2
"""Bonus per tile in reserve (only bugs of the game type count)."""
TEMPO = 4
"""Bonus for the side to move."""

WIN_SCORE = 100_000
"""Score of a won position (``alphabeta`` subtracts the ply count: faster wins score more)."""

# Offsets into the weight array.
W_PRESSURE = 0
W_MOBILE = 6
W_PINNED = 14
W_COVERED = 15
W_QUEEN_COVERED = 16
W_RESERVE = 17
W_TEMPO = 18
N_WEIGHTS = 19

_EXP_BIT = np.array([0, 0, 0, 0, 0, 1, 2, 4], dtype=np.int64)


def make_weights(
    queen_pressure: tuple[int, ...] = QUEEN_PRESSURE,
    mobile_by_bug: tuple[int, ...] = MOBILE_BY_BUG,
    pinned: int = PINNED,
    covered: int = COVERED,
    queen_covered: int = QUEEN_COVERED,
    reserve: int = RESERVE,
    tempo: int = TEMPO,
) -> np.ndarray:
    """The ``[N_WEIGHTS] int32`` weight array the kernels take (defaults: the module constants)."""
    if len(queen_pressure) != 6 or len(mobile_by_bug) != 8:
        raise ValueError("queen_pressure needs 6 values (0..5 neighbours), mobile_by_bug 8 (Q S B G A M L P)")
    w = np.zeros(N_WEIGHTS, dtype=np.int32)
    w[W_PRESSURE : W_PRESSURE + 6] = queen_pressure
    w[W_MOBILE : W_MOBILE + 8] = mobile_by_bug
    w[W_PINNED], w[W_COVERED], w[W_QUEEN_COVERED] = pinned, covered, queen_covered
    w[W_RESERVE], w[W_TEMPO] = reserve, tempo
    return w


DEFAULT_WEIGHTS = make_weights()


@njit(cache=True)
def _can_slide_somewhere(board: np.ndarray, h: int) -> bool:
    """Whether the lone ground tile on ``h`` has at least one legal slide (tile lifted)."""
    p = board[TOP + h]
    board[TOP + h] = -1
    ok = False
    for d in range(6):
        if can_slide(board, h, d):
            ok = True
            break
    board[TOP + h] = p
    return ok


@njit(cache=True)
def _colour_term(board: np.ndarray, colour: int, pinned: np.ndarray, weights: np.ndarray) -> int:
    """This colour's share of the score (good for ``colour`` = positive)."""
    base = colour * PIECES_PER_COLOUR
    exp = board[EXPANSIONS]
    queen_in = board[POS + base] >= 0
    s = -weights[W_PRESSURE + queen_pressure(board, colour)]
    for i in range(PIECES_PER_COLOUR):
        p = base + i
        bug = PIECE_BUG[p]
        h = board[POS + p]
        if h < 0:
            if _EXP_BIT[bug] == 0 or (exp & _EXP_BIT[bug]) != 0:
                s += weights[W_RESERVE]
            continue
        if board[TOP + h] != p:
            s -= weights[W_COVERED]
            if bug == QUEEN:
                s -= weights[W_QUEEN_COVERED]
            continue
        if board[LEVEL + p] == 0 and pinned[h]:
            s -= weights[W_PINNED]
            continue
        if not queen_in:
            continue  # nothing moves before its Queen is in play
        slider = bug == QUEEN or bug == SPIDER or bug == ANT or bug == PILLBUG
        if board[LEVEL + p] == 0 and slider and not _can_slide_somewhere(board, h):
            continue
        s += weights[W_MOBILE + bug]
    return s


@njit(cache=True)
def evaluate(board: np.ndarray, weights: np.ndarray) -> int:
    """Heuristic score of a position in progress, from the side to move's view: per colour, own
    minus enemy::

        - QUEEN_PRESSURE[k]   for a Queen with k occupied neighbours (k = 0..5; 6 is a loss)
        + MOBILE_BY_BUG[bug]  per tile that can move now (uncovered, not pinned, can slide/jump)
        - PINNED              per ground tile that the one-hive rule pins
        - COVERED             per tile under a beetle (or mosquito), QUEEN_COVERED more for a Queen
        + RESERVE             per tile still in reserve (placements are options)
        + TEMPO               for being the side to move

    Pressure grows faster than linearly: the fifth neighbour of a Queen is worth far more than
    the first, because it makes the surround one move away. Mobility counts tiles, not moves (an
    ant's 40 destinations are one option, not 40), which is cheap and keeps ants from dominating
    the sum. Terminal positions are scored by the search, not here.

    Args:
        board: [BOARD_SIZE] int16 board (read only; briefly modified and restored).
        weights: [N_WEIGHTS] int32 from ``make_weights``.
    """
    pinned = np.zeros(N_HEX, dtype=np.bool_)
    articulation_hexes(board, pinned)
    me = board[PLY] & 1
    return _colour_term(board, me, pinned, weights) - _colour_term(board, 1 - me, pinned, weights) + weights[
        W_TEMPO
    ]


@njit(cache=True)
def terminal_score(board: np.ndarray, ply_from_root: int) -> int:
    """Score of a finished game from the side to move's view; faster wins score higher."""
    status = board[STATUS]
    if status == DRAW:
        return 0
    winner = 1 if status == BLACK_WINS else 0
    s = WIN_SCORE - ply_from_root
    return s if winner == (board[PLY] & 1) else -s


@njit(cache=True)
def score_moves(board: np.ndarray, hist: np.ndarray, moves: np.ndarray, weights: np.ndarray,
                out: np.ndarray) -> None:
    """One-ply scores of ``moves`` from the mover's view (the ``greedy`` player).

    A winning move scores ``WIN_SCORE``, a losing one ``-WIN_SCORE``, a draw 0, any other
    minus the evaluation of the position it reaches (that is the opponent's view).

    Args:
        board, hist: the position (modified and restored).
        moves: [n] int32 legal moves.
        weights: [N_WEIGHTS] int32.
        out: [n] int64, written.
    """
    for i in range(moves.shape[0]):
        mv = moves[i]
        token = play(board, hist, mv)
        if board[STATUS] != IN_PROGRESS:
            out[i] = -terminal_score(board, np.int64(0))
        else:
            out[i] = -evaluate(board, weights)
        unplay(board, mv, token)
