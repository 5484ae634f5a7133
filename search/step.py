"""The leaf pass of one search step, compiled: cache lookups before the network, stores after.

Between the select kernel and the expand/backup kernel (``search.kernels``) a step must give
every new leaf its legal moves, action ids, policy logits and value. :func:`gather_leaves`
does it in one compiled call for the whole batch: each ``LEAF_EVAL`` leaf's key, its entry
copied from the evaluation cache (``search.cache``) when held, else its board gathered into the
rows that the encoder and the network take; it also counts each game's performed
simulations. After the one network call, :func:`scatter_misses` copies the network's outputs
and the encoder's moves into the leaves' rows and stores them in the cache. The leaves' rows
(:class:`LeafOutputs`, row ``i`` for leaf ``i``) are then what ``expand_backup`` reads
(``LeafBatch.row[i] = i``). No Python runs per leaf or per game.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from .cache import STATE_HITS, STATE_MISSES, CacheTable, board_key, find, insert, read_into
from .leaves import BOARD_SIZE, MAX_MOVES, copy_n
from .tree import LEAF_COLLISION, LEAF_EVAL, LEAF_TERMINAL


class LeafOutputs(NamedTuple):
    """What expanding each leaf row needs (R rows, M = max_legal): keys [R] uint64, logits [R, M]
    float32, values [R] float32, moves [R, MAX_MOVES] int32, actions [R, M] int32, n_legal [R]
    int32 (0 for a row that is not ``LEAF_EVAL``), and the misses: boards [R, BOARD_SIZE] int16
    (row j: the j-th miss's position) and rows [R] int32 (its leaf row)."""

    keys: np.ndarray
    logits: np.ndarray
    values: np.ndarray
    moves: np.ndarray
    actions: np.ndarray
    n_legal: np.ndarray
    miss_boards: np.ndarray
    miss_rows: np.ndarray


def allocate_outputs(rows: int, max_legal: int) -> LeafOutputs:
    """Buffers for ``rows`` leaves (reused by every step of a search)."""
    return LeafOutputs(np.zeros(rows, np.uint64), np.zeros((rows, max_legal), np.float32),
                       np.zeros(rows, np.float32), np.zeros((rows, MAX_MOVES), np.int32),
                       np.zeros((rows, max_legal), np.int32), np.zeros(rows, np.int32),
                       np.zeros((rows, BOARD_SIZE), np.int16), np.zeros(rows, np.int32))


@njit(cache=True, nogil=True)
def gather_leaves(table: CacheTable, cached: bool, leaf_boards, leaf_status, leaf_row, out: LeafOutputs,
                  sims_done, counts):
    """Serve the step's ``LEAF_EVAL`` leaves from the cache, gather the others for the network.

    Sets ``leaf_row[i] = i`` for every ``LEAF_EVAL`` row (-1 else), adds each game's performed
    simulations (``LEAF_EVAL`` and ``LEAF_TERMINAL`` rows) to ``sims_done [B]``, and adds to
    ``counts [2]`` the step's performed simulations and collisions. Returns the misses K: rows
    ``0..K-1`` of ``out.miss_boards`` / ``out.miss_rows``."""
    R = leaf_status.shape[0]
    L = R // sims_done.shape[0]
    misses = 0
    hits = 0
    for i in range(R):
        status = leaf_status[i]
        out.n_legal[i] = 0
        leaf_row[i] = -1
        if status == LEAF_TERMINAL:
            sims_done[i // L] += 1
            counts[0] += 1
        elif status == LEAF_COLLISION:
            counts[1] += 1
        if status != LEAF_EVAL:
            continue
        sims_done[i // L] += 1
        counts[0] += 1
        leaf_row[i] = i
        key = board_key(leaf_boards[i])
        out.keys[i] = key
        slot = find(table, key) if cached else -1
        if slot >= 0:
            out.n_legal[i] = read_into(table, slot, out.moves[i], out.actions[i], out.logits[i])
            out.values[i] = table.values[slot]
            hits += 1
            continue
        copy_n(out.miss_boards[misses], leaf_boards[i], leaf_boards.shape[1])
        out.miss_rows[misses] = i
        misses += 1
    table.state[STATE_HITS] += hits
    table.state[STATE_MISSES] += misses
    return misses


@njit(cache=True, nogil=True)
def scatter_misses(table: CacheTable, cached: bool, k: int, out: LeafOutputs, logits, values, moves, actions,
                   n_legal):
    """Copy the network's outputs (``logits [K, >= n]``, ``values [K]``) and the encoder's moves,
    action ids and counts of the K misses into their leaf rows, and keep them in the cache."""
    for j in range(k):
        i = out.miss_rows[j]
        n = n_legal[j]
        out.n_legal[i] = n
        out.values[i] = values[j]
        copy_n(out.moves[i], moves[j], n)
        copy_n(out.actions[i], actions[j], n)
        copy_n(out.logits[i], logits[j], n)
        if cached:
            insert(table, out.keys[i], values[j], out.moves[i], out.actions[i], out.logits[i], n)
