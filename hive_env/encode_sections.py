"""The encoder cut after each of its sections, for measuring where its time goes
(``scripts/bench_encode.py``): the same calls as ``encode_row``, in the same order, stopped early.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import encode as enc
from . import position
from .board import EXPANSIONS, NO_REFCOUNT, PLY
from .pinned import articulation_pieces
from .rules import generate_moves_pinned, new_move_scratch

SECTIONS = ("clearing the row", "+ reserve nodes, articulation points", "+ stack and frontier nodes",
            "+ cell features", "+ move generation", "+ actions and node links of the moves",
            "+ global features (all of encode_row)")
"""The cumulative variants, in order: variant ``k`` runs the sections up to the ``k``-th."""


def random_positions(game_type: str, count: int, seed: int = 0) -> np.ndarray:
    """[count, BOARD_SIZE] boards of games in progress after 10-60 uniformly random plies
    (:func:`hive_env.position.random_positions`)."""
    return np.stack([g.board for g in position.random_positions(count, game_type, seed, 10, 60)])


@njit(cache=True)
def encode_sections(boards, obs, moves, level, repeats):
    """Encode every board ``repeats`` times (board i into row i mod rows) running the sections up
    to ``level`` (an index of :data:`SECTIONS`); returns the legal moves counted (kept live)."""
    node_of_hex = np.full(enc.N_HEX, -1, dtype=np.int16)
    scratch = new_move_scratch()
    total = 0
    for _ in range(repeats):
        for i in range(boards.shape[0]):
            b = i % moves.shape[0]
            total += section_row(boards[i], b, obs, moves[b], node_of_hex, scratch, level)
    return total


@njit(cache=True, **NO_REFCOUNT)
def section_row(board, b, obs, moves, node_of_hex, scratch, level):
    """``encode_row`` (rows reused) cut after section ``level``; returns the legal moves."""
    enc._clear_used(obs, b)
    if level == 0:
        return 0
    me = np.int64(board[PLY]) & 1
    first = 2 * enc._N_KINDS[board[EXPANSIONS]]
    reserve_own, reserve_opp = enc._reserve_nodes(board, obs, b, me)
    articulation_pieces(board, scratch.pinned, scratch.work)
    n_nodes = first
    stack_end = first
    if level >= 2:
        stack_end = enc._stack_nodes(board, obs, b, me, first, node_of_hex, scratch.pinned)
        n_nodes, _ = enc._frontier_nodes(board, obs, b, first, stack_end, node_of_hex)
    if level >= 3:
        enc._cell_features(board, obs, b, me, first, stack_end, n_nodes, node_of_hex)
    n_legal = 0
    if level == 4:
        n_legal = generate_moves_pinned(board, moves, scratch)
    elif level >= 5:
        n_legal, _ = enc._legal_moves(board, obs, b, moves, node_of_hex, scratch)
    if level >= 6:
        enc._global_features(board, obs.global_feat[b], reserve_own, reserve_opp)
        obs.current_player[b] = me
    obs.n_nodes[b] = n_nodes
    obs.n_legal[b] = n_legal if level >= 5 else 0  # the mask bits only where they were set
    enc._restore_scratch(obs.node_hex[b], first, n_nodes, node_of_hex)
    return n_legal
