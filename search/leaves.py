"""Leaf positions: the one door of ``search/`` into the game engine (``hive_env``).

The kernels rebuild a leaf's position by replaying its path from the root board with ``play``
(re-exported here), score finished positions with ``terminal_value`` (with an adjudication
margin, as self-play labels them: :func:`adjudicate_leaves_`), run the exact one-move checks of
``hive_env.tactics`` for the solver, and the driver encodes the leaves that need the network with
:class:`LeafEncoder`. Everything else in ``search/`` sees only arrays.

See docs/search.md and docs/layout.md (allowed imports).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from hive_env.board import BOARD_SIZE, DRAW, HIST, IN_PROGRESS, PLY, POS, STATUS, play
from hive_env.encode import (
    CHUNK,
    MAX_LEGAL,
    allocate_moves,
    allocate_observation,
    encode_batch_kernel,
    encode_games,
    obs_arrays,
    observe_batch_with_moves,
    raise_encoding_errors,
)
from hive_env.outcome import adjudicate, is_real_draw, score_for, terminal_value
from hive_env.parallel import launching
from hive_env.rules import MAX_MOVES
from hive_env.tactics import (
    PROVEN_DRAW,
    PROVEN_LOSS,
    PROVEN_WIN,
    UNPROVEN,
    flip_proof,
    proof_value,
    prove,
    scan_root,
    scan_surrounds,
    tactics_buffers,
)

from .tree import LEAF_TERMINAL

__all__ = ["BOARD_SIZE", "HIST", "MAX_LEGAL", "MAX_MOVES", "PLY", "POS", "PROVEN_DRAW", "PROVEN_LOSS",
           "PROVEN_WIN", "UNPROVEN", "LeafBatch", "LeafEncoder", "adjudicate_leaves_", "adjudicated_value",
           "allocate_leaves", "copy_n", "flip_proof", "is_finished", "launching", "observe_roots", "play",
           "position_key", "position_keys", "previous_key", "proof_value", "prove", "scan_root",
           "scan_surrounds", "tactics_buffers", "terminal_value"]


class LeafBatch(NamedTuple):
    """The leaves selected in one search step (R = B * leaves_per_tree rows): row
    ``i = b * L + k`` is game b's k-th leaf (``L = leaves_per_tree``); the status codes are in
    ``search.tree``.

    Fields:
        boards: [R, BOARD_SIZE] int16 leaf positions (root board + the path's moves).
        hists: [R, HIST] uint64 their hash rings (repetition draws need them).
        node: [R] int32 leaf node, ``NO_NODE`` when the row selected nothing.
        status: [R] int8 a ``LEAF_*`` code of ``search.tree``.
        value: [R] float32 exact value of a terminal leaf, for its side to move.
        row: [R] int32 row of the leaf in the network batch (``LEAF_EVAL`` rows only).
    """

    boards: np.ndarray
    hists: np.ndarray
    node: np.ndarray
    status: np.ndarray
    value: np.ndarray
    row: np.ndarray


def allocate_leaves(rows: int) -> LeafBatch:
    """An empty :class:`LeafBatch` of ``rows`` rows (filled by the select kernel)."""
    return LeafBatch(np.zeros((rows, BOARD_SIZE), np.int16), np.zeros((rows, HIST), np.uint64),
                     np.full(rows, -1, np.int32), np.zeros(rows, np.int8), np.zeros(rows, np.float32),
                     np.full(rows, -1, np.int32))


@njit(cache=True, nogil=True, inline="always")
def copy_n(dst: np.ndarray, src: np.ndarray, n: int) -> None:
    """``dst[:n] = src[:n]`` as a plain loop: no temporary array, whatever numba makes of a slice."""
    for j in range(n):
        dst[j] = src[j]


@njit(cache=True, nogil=True)
def is_finished(board: np.ndarray) -> bool:
    """Whether the game is over at ``board`` (a terminal node)."""
    return board[STATUS] != IN_PROGRESS


def position_key(board: np.ndarray, hist: np.ndarray) -> int:
    """Identity of a root position: its hash and ply (tree reuse must match both)."""
    ply = int(board[PLY])
    return int(key_of(hist[ply % HIST], ply))


def previous_key(board: np.ndarray, hist: np.ndarray) -> int:
    """:func:`position_key` of the position one ply before ``board``, read from the hash ring
    (-1 at ply 0). A set-up position's ring knows only its own hash: its previous key then
    matches no real position."""
    ply = int(board[PLY])
    return int(key_of(hist[(ply - 1) % HIST], ply - 1)) if ply > 0 else -1


KEY_HASH_BITS, KEY_PLY_BITS = 47, 10
"""A position key holds the low 47 bits of the position's hash above the low 10 of its ply:
57 bits, a non-negative int64."""
_KEY_HASH_MASK = (1 << KEY_HASH_BITS) - 1
_KEY_PLY_SPAN = 1 << KEY_PLY_BITS


@njit(cache=True, nogil=True)
def key_of(hash_: np.uint64, ply: int) -> np.int64:
    """The key of a position from its hash (``hist`` entry, uint64) and ply (layout at
    :data:`KEY_HASH_BITS`)."""
    hashed = np.int64(hash_ & np.uint64(_KEY_HASH_MASK))
    return hashed * _KEY_PLY_SPAN + (np.int64(ply) & (_KEY_PLY_SPAN - 1))


@njit(cache=True, nogil=True)
def position_keys(boards: np.ndarray, hists: np.ndarray) -> np.ndarray:
    """[B] int64 :func:`position_key` of each position (compiled, for a batch)."""
    out = np.empty(boards.shape[0], np.int64)
    for b in range(boards.shape[0]):
        ply = np.int64(boards[b, PLY])
        out[b] = key_of(hists[b, ply % HIST], ply)
    return out


@njit(cache=True, nogil=True)
def adjudicated_value(board: np.ndarray, hist: np.ndarray, margin: int) -> float:
    """Value of a finished position for its side to move, scored as self-play labels it: a
    draw by the ply cap (not ``is_real_draw``) gets ``adjudicate(board, margin)``'s result
    (``margin <= 0``: a draw, the same as :func:`terminal_value`)."""
    status = board[STATUS]
    if status == DRAW and margin > 0 and not is_real_draw(board, hist):
        status = adjudicate(board, margin)
    return score_for(status, board[PLY] & 1)


@njit(cache=True, nogil=True)
def adjudicate_leaves_(leaves: LeafBatch, node_terminal_value: np.ndarray, margin: int) -> None:
    """Re-value the drawn terminal leaves of a step with :func:`adjudicated_value` (a game drawn by
    the ply cap, not a real draw, gets the adjudicated result, as self-play labels it), in
    ``leaves.value`` and in the tree (``node_terminal_value [B, N] float32``), so that later
    visits reuse it. Run between the select and the backup kernels when ``margin > 0``."""
    L = leaves.node.shape[0] // node_terminal_value.shape[0]
    for i in range(leaves.node.shape[0]):
        if leaves.status[i] != LEAF_TERMINAL or leaves.boards[i, STATUS] != DRAW:
            continue
        v = adjudicated_value(leaves.boards[i], leaves.hists[i], margin)
        leaves.value[i] = v
        node_terminal_value[i // L, leaves.node[i]] = v


def observe_roots(boards: np.ndarray, max_legal: int) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Observations of the root positions and their legal moves ``[B, MAX_MOVES] int32``
    (slot m of game b is the move of ``legal_actions[b, m]``)."""
    return observe_batch_with_moves(boards, max_legal)


@njit(cache=True, nogil=True)
def _encode_serial(boards, obs, moves, errors, reuse):
    encode_games(boards, obs, moves, errors, 0, boards.shape[0], reuse)


class LeafEncoder:
    """Reusable observation buffers for up to ``rows`` leaves of one game type.

    Args:
        rows: most leaves encoded at once (B * leaves_per_tree).
        expansions: game type bits.
        max_legal: M of the observations.
    """

    def __init__(self, rows: int, expansions: int, max_legal: int):
        self.max_legal = max_legal
        self._obs = allocate_observation(rows, expansions, max_legal)
        self._moves = allocate_moves(rows)
        self._errors = np.zeros(rows, np.int8)

    def encode(self, boards: np.ndarray) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """Observations of ``boards`` ([K, BOARD_SIZE] int16) and their moves [K, MAX_MOVES] int32.

        The arrays are views of this encoder's buffers: valid until the next call, and read
        only (each call clears just what the last one wrote: ``hive_env.encode.encode_games``
        with ``reuse``).

        Raises:
            EncodingError: a position does not fit the observation padding.
        """
        k = boards.shape[0]
        obs, moves = self.rows(k)
        errors = self._errors[:k]
        errors[:] = 0
        encode = encode_batch_kernel if k > CHUNK else _encode_serial
        with launching(k > CHUNK):
            encode(boards, obs_arrays(obs), moves, errors, True)
        raise_encoding_errors(errors, self.max_legal)
        return obs, moves

    def rows(self, k: int) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """The first ``k`` rows of the buffers (views): the observations and moves the last
        encode of ``k`` boards wrote."""
        return {key: v[:k] for key, v in self._obs.items()}, self._moves[:k]

    def buffers(self) -> tuple:
        """The whole buffers as a kernel encodes into them (``search.step.begin_step``): the
        ``ObsArrays``, the moves [rows, MAX_MOVES] and the error codes [rows]."""
        return obs_arrays(self._obs), self._moves, self._errors

    def raise_errors(self) -> None:
        """Raise ``EncodingError`` for the first row whose last encode failed."""
        raise_encoding_errors(self._errors, self.max_legal)
