"""The fixed discrete action space: UHP-style moves relative to the side to move.

One action space per game type, pass included: ``action = (src_rel * n + ref_rel) * 7 + pos``,
a move named by its tile and a reference tile next to the destination, both numbered relative to
the side to move, with exactly one canonical action per legal move. Kernels here are ``@njit`` on
one board (``encode_moves`` fills an action buffer from a move buffer); the Python helpers at the
end convert to and from MoveStrings.

See docs/encoding.md (action ids).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import uhp
from .board import BELOW, BOARD_SIZE, EXPANSIONS, PASS, PLY, POS, TOP, move_dest, move_of, move_piece
from .errors import HiveError
from .grid import N_HEX, NEIGH, ORIGIN
from .pieces import N_PIECES, PIECE_BUG, PIECES_PER_COLOUR, bug_in_game, parse_game_type

N_POS = 7
ON_TOP = 6  # pos value: on top of the reference's stack


class IllegalActionError(HiveError):
    """An action id that is out of range, not canonical, or not legal in its position."""


def _build_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rel_piece = np.full((8, 2, N_PIECES), -1, dtype=np.int64)
    piece_rel = np.full((8, 2, N_PIECES), -1, dtype=np.int64)
    n_game = np.zeros(8, dtype=np.int64)
    for exp in range(8):
        slots = [s for s in range(PIECES_PER_COLOUR) if bug_in_game(int(PIECE_BUG[s]), exp)]
        half = len(slots)
        n_game[exp] = 2 * half
        for mover in range(2):
            for i, s in enumerate(slots):
                own = mover * PIECES_PER_COLOUR + s
                opp = (1 - mover) * PIECES_PER_COLOUR + s
                rel_piece[exp, mover, i] = own
                rel_piece[exp, mover, half + i] = opp
                piece_rel[exp, mover, own] = i
                piece_rel[exp, mover, opp] = half + i
    return rel_piece, piece_rel, n_game


REL_PIECE, PIECE_REL, N_GAME_PIECES = _build_tables()
"""``REL_PIECE[exp, mover, rel]`` -> piece and ``PIECE_REL[exp, mover, piece]`` -> rel (-1 when
the piece is not in the game type), ``[8, 2, 28] int64``; ``N_GAME_PIECES[exp]`` = n, ``[8]``."""


def action_space_size(game_type: str | int) -> int:
    """A = n * n * 7 + 1 for a game type string (``"Base+MLP"``) or expansion bits."""
    exp = parse_game_type(game_type) if isinstance(game_type, str) else int(game_type)
    n = int(N_GAME_PIECES[exp])
    return n * n * N_POS + 1


@njit(cache=True, inline="always")
def num_actions(expansions: int) -> int:
    """A for expansion bits (compiled twin of :func:`action_space_size`)."""
    n = N_GAME_PIECES[expansions]
    return n * n * N_POS + 1


@njit(cache=True)
def encode_move(board: np.ndarray, move: int) -> int:
    """Canonical action of ``move`` (before it is played), relative to the side to move.

    The reference is chosen exactly as ``uhp.format_move`` does (docs/encoding.md, action ids).
    The move is not checked for legality; its piece must belong to the game type.
    """
    exp = board[EXPANSIONS]
    return action_of(board, move, exp, N_GAME_PIECES[exp], board[PLY] & 1)


@njit(cache=True, inline="always")
def action_of(board: np.ndarray, move: int, exp: int, n: int, mover: int) -> int:
    """:func:`encode_move` of ``move``, given the game type ``exp``, its piece count
    ``n = N_GAME_PIECES[exp]`` and the side to move (loops over moves compute them once)."""
    if move == PASS:
        return n * n * N_POS
    p = move_piece(move)
    dest = move_dest(move)
    ref = board[TOP + dest]
    pos = ON_TOP
    if ref < 0:
        for k in range(6):
            r = board[TOP + NEIGH[dest, k]]
            if r == p:
                r = board[BELOW + p]
            if r >= 0:
                ref = r
                pos = (k + 3) % 6  # direction from the reference to the destination
                break
    if ref < 0:
        ref = p  # empty board: the first tile of the game
    return (PIECE_REL[exp, mover, p] * n + PIECE_REL[exp, mover, ref]) * N_POS + pos


@njit(cache=True)
def decode_action(board: np.ndarray, action: int) -> int:
    """Move named by a canonical action, or -1 if ``action`` is not canonical here.

    -1 covers: out of range, a reference tile not in play, the no-reference form on a
    non-empty board, and any non-canonical (reference, pos) for a move. Legality is not
    checked: a canonical action may still be illegal (use the legal mask).
    """
    exp = board[EXPANSIONS]
    n = N_GAME_PIECES[exp]
    pass_action = n * n * N_POS
    if action == pass_action:
        return PASS
    if action < 0 or action > pass_action:
        return -1
    mover = board[PLY] & 1
    pos = action % N_POS
    ref_rel = (action // N_POS) % n
    src_rel = action // (N_POS * n)
    p = REL_PIECE[exp, mover, src_rel]
    ref = REL_PIECE[exp, mover, ref_rel]
    ref_hex = board[POS + ref]
    if ref_hex < 0:
        if ref != p or pos != ON_TOP:
            return -1
        dest = ORIGIN  # candidate first tile; re-encoding rejects it on a non-empty board
    elif pos == ON_TOP:
        dest = ref_hex
    else:
        dest = NEIGH[ref_hex, pos]
    move = move_of(p, dest)
    if encode_move(board, move) != action:
        return -1
    return move


@njit(cache=True)
def encode_moves(board: np.ndarray, moves: np.ndarray, n: int, out: np.ndarray) -> None:
    """``out[i] = encode_move(board, moves[i])`` for ``i < n`` (``out`` int32 or wider)."""
    for i in range(n):
        out[i] = encode_move(board, moves[i])


@njit(cache=True)
def _transform_layout(board: np.ndarray, hmap: np.ndarray, out: np.ndarray) -> None:
    """Write into ``out`` the image of ``board`` under a hex map (no hash: enough to encode)."""
    out[:] = board
    for h in range(N_HEX):
        out[TOP + h] = -1
    for p in range(N_PIECES):
        h = board[POS + p]
        if h >= 0:
            out[POS + p] = hmap[h]
    for h in range(N_HEX):
        t = board[TOP + h]
        if t >= 0:
            out[TOP + hmap[h]] = t


@njit(cache=True)
def _transform_actions(board: np.ndarray, actions: np.ndarray, hmap: np.ndarray, out: np.ndarray) -> None:
    img = np.empty_like(board)
    _transform_layout(board, hmap, img)
    for i in range(actions.shape[0]):
        a = actions[i]
        move = decode_action(board, a) if a >= 0 else -1
        if move < 0:
            out[i] = -1 if a < 0 else -2
        elif move == PASS:
            out[i] = a
        else:
            out[i] = encode_move(img, move_of(move_piece(move), hmap[move_dest(move)]))


def transform_actions(board: np.ndarray, actions: np.ndarray, sym: int) -> np.ndarray:
    """Ids of the same moves in ``transform_board(board, ., sym)`` (data augmentation).

    Args:
        board: [BOARD_SIZE] int16 position the actions belong to.
        actions: [k] int actions, canonical in ``board``; -1 entries (padding) stay -1.
        sym: symmetry 0..11 (``hive_env.symmetry``).

    Returns:
        [k] int32 actions in the transformed board.

    Raises:
        IllegalActionError: an action is not canonical in ``board``.
    """
    from .symmetry import HEX_MAPS

    acts = np.ascontiguousarray(actions, dtype=np.int64).reshape(-1)
    out = np.empty(acts.shape[0], dtype=np.int32)
    _transform_actions(np.ascontiguousarray(board, dtype=np.int16), acts, HEX_MAPS[sym].astype(np.int64), out)
    bad = np.flatnonzero(out == -2)
    if bad.size:
        raise IllegalActionError(f"action {int(acts[bad[0]])} is not a canonical action of this position")
    return out.reshape(np.shape(actions))


# ----- Python helpers (edges, tests, humans) ------------------------------------------------
def _check_board(board: np.ndarray) -> np.ndarray:
    board = np.asarray(board)
    if board.shape != (BOARD_SIZE,) or board.dtype != np.int16:
        raise HiveError(f"expected a [{BOARD_SIZE}] int16 board, got {board.shape} {board.dtype}")
    return board


def move_to_action(board: np.ndarray, move: int) -> int:
    """Canonical action of an encoded move in ``board`` (legality not checked)."""
    return int(encode_move(_check_board(board), int(move)))


def action_to_move(board: np.ndarray, action: int) -> int:
    """Encoded move of a canonical action in ``board`` (legality not checked).

    Raises:
        IllegalActionError: ``action`` is not a canonical action of this position.
    """
    move = int(decode_action(_check_board(board), int(action)))
    if move < 0:
        raise IllegalActionError(f"action {int(action)} is not a canonical action of this position")
    return move


def action_to_string(board: np.ndarray, action: int) -> str:
    """UHP MoveString of a canonical action in ``board``."""
    return uhp.format_move(action_to_move(board, action), board)


def string_to_action(board: np.ndarray, text: str) -> int:
    """Canonical action of a MoveString (any reference tile accepted) in ``board``.

    Raises:
        NotationError / IllegalMoveError: as ``uhp.parse_move``.
    """
    board = _check_board(board)
    return move_to_action(board, uhp.parse_move(text, board, int(board[EXPANSIONS])))


def split_action(action: int, game_type: str | int) -> tuple[int, int, int]:
    """``(src_rel, ref_rel, pos)`` of a non-pass action (for inspection and tests)."""
    exp = parse_game_type(game_type) if isinstance(game_type, str) else int(game_type)
    n = int(N_GAME_PIECES[exp])
    return action // (N_POS * n), (action // N_POS) % n, action % N_POS


def pass_action(game_type: str | int) -> int:
    """The id of ``pass``: A - 1."""
    return action_space_size(game_type) - 1


__all__ = [
    "IllegalActionError",
    "N_POS",
    "ON_TOP",
    "action_space_size",
    "action_to_move",
    "action_of",
    "action_to_string",
    "decode_action",
    "encode_move",
    "encode_moves",
    "move_to_action",
    "num_actions",
    "pass_action",
    "split_action",
    "string_to_action",
    "transform_actions",
]
