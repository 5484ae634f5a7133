"""The one home of game results: terminal values, rewards, real draws and capped-game adjudication.

Status codes are those of ``board``: ``IN_PROGRESS``, ``WHITE_WINS``, ``BLACK_WINS``, ``DRAW``.
Colours: 0 = white, 1 = black; the side to move at ``board`` is ``board[PLY] & 1``.

- A *value* is from the view of the side to move at a position (search backs values up).
- A *reward* is from the view of the player who just moved (RL environments).
- A draw is *real* when the rules make it (double surround, threefold repetition), not the ply cap.
- A capped game can be *adjudicated* by queen pressure: the side whose opponent's queen has at
  least ``margin`` more occupied neighbours than its own wins (``margin <= 0``: a draw).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .board import BLACK_WINS, DRAW, PLY, PLY_CAP, POS, STATUS, TOP, WHITE_WINS, compute_status
from .grid import NEIGH
from .pieces import PIECES_PER_COLOUR

DEFAULT_PLY_CAP = 300
"""Plies after which a game that must end (self-play, arena, RL environments) is a draw.
The rules have no cap: ``Game`` and UHP play use none unless given one."""


@njit(cache=True, nogil=True)
def score_for(status: int, colour: int) -> float:
    """+1 when ``colour`` won, -1 when it lost, 0 for a draw or a game in progress."""
    if status == WHITE_WINS:
        return 1.0 if colour == 0 else -1.0
    if status == BLACK_WINS:
        return 1.0 if colour == 1 else -1.0
    return 0.0


@njit(cache=True, nogil=True)
def terminal_value(board: np.ndarray) -> float:
    """Value of a finished position for the side to move there."""
    return score_for(board[STATUS], board[PLY] & 1)


@njit(cache=True, nogil=True)
def mover_reward(board: np.ndarray) -> float:
    """Reward of the player who made the move that reached ``board``."""
    return score_for(board[STATUS], 1 - (board[PLY] & 1))


@njit(cache=True, nogil=True)
def is_real_draw(board: np.ndarray, hist: np.ndarray) -> bool:
    """Whether a drawn game is drawn by the rules (double surround, repetition), not by the cap."""
    cap = board[PLY_CAP]
    board[PLY_CAP] = 0
    real = compute_status(board, hist) == DRAW
    board[PLY_CAP] = cap
    return real


@njit(cache=True, nogil=True)
def queen_pressure(board: np.ndarray, colour: int) -> int:
    """Occupied cells around ``colour``'s queen (0 while it is in reserve)."""
    qh = board[POS + colour * PIECES_PER_COLOUR]
    if qh < 0:
        return 0
    k = 0
    for d in range(6):
        if board[TOP + NEIGH[qh, d]] >= 0:
            k += 1
    return k


@njit(cache=True, nogil=True)
def adjudicate(board: np.ndarray, margin: int) -> int:
    """Result of a game stopped by the ply cap: queen pressure decides by ``margin``, else a draw."""
    if margin <= 0:
        return DRAW
    white_in_danger = queen_pressure(board, 0)
    black_in_danger = queen_pressure(board, 1)
    if black_in_danger - white_in_danger >= margin:
        return WHITE_WINS
    if white_in_danger - black_in_danger >= margin:
        return BLACK_WINS
    return DRAW

