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

Where the step runs on one thread (``search.mcts``: one numba thread, or a batch too small for
the parallel kernels), the whole step is two compiled calls around the network: :func:`begin_step`
(select, adjudicate, gather, encode the misses) and :func:`end_step` (scatter, expand, back up,
the phases that ended). They call the same kernels in the same order as the separate calls, so
the trees are the same bit for bit; what they save is the Python between the calls (the
player at 1 s a move runs about 1.2x the simulations a second: docs/scaling.md).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from .cache import STATE_HITS, STATE_MISSES, CacheTable, board_key, find, insert, read_into
from .kernels import expand_backup_serial, select_serial
from .leaves import BOARD_SIZE, MAX_MOVES, adjudicate_leaves_, copy_n, encode_games
from .tree import LEAF_COLLISION, LEAF_EVAL, LEAF_NO_ROOM, LEAF_TERMINAL


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


# ----- the one-call step: everything between two network calls in one compiled call each ------

STEP_DONE = -1
"""``begin_step``: every game has performed its simulations of this search (or phase)."""
STEP_NEEDS_NODES = -2
"""``begin_step``: a tree has no room for ``L`` more nodes (grow it, call again)."""
STEP_NO_ROOM = -3
"""A kernel ran out of room all the same (a bug: the driver grows the tree before each call)."""
STEP_ENCODING_ERROR = -4
"""``begin_step``: a leaf does not fit the observation padding (``errors`` says which)."""
STEP_NO_SIMULATION = -5
"""``end_step``: the step performed no simulation (a root not expanded?)."""
STEP_NEEDS_EDGES = -6
"""``end_step``: a tree has no room for the new leaves' edges, ``counts[2]`` of them (grow it,
call again with ``k = 0``: the network's outputs are already in their rows)."""


@njit(cache=True, nogil=True, inline="always")
def _any_no_room(status) -> bool:
    for i in range(status.shape[0]):
        if status[i] == LEAF_NO_ROOM:
            return True
    return False


@njit(cache=True, nogil=True)
def begin_step(tree, root_boards, root_hists, phase_ends, phase, sims_done, want, leaves, params, cand, draws,
               margin, table, cached, out, counts, obs, moves, errors):
    """The first half of a search step for every game, in one call: each game's leaves to select
    (``want [B]``: up to ``L`` while its phase has simulations left), selection with virtual loss
    (``search.kernels.select_serial``), the adjudication of drawn terminal leaves when ``margin``
    > 0, the cache lookups of :func:`gather_leaves`, and the encoding of the misses into the
    rows ``0 .. K-1`` of ``obs`` (an ``ObsArrays``), ``moves`` and ``errors`` (a ``LeafEncoder``'s
    buffers, each row cleared of what the last encode wrote).

    Returns K (the misses, the network's batch, possibly 0) or a ``STEP_*`` code (negative):
    ``STEP_DONE`` and ``STEP_NEEDS_NODES`` before anything changed."""
    B = tree.roots.shape[0]
    L = leaves.status.shape[0] // B
    wanted = False
    for b in range(B):
        w = min(phase_ends[b, phase[b]] - sims_done[b], L)
        want[b] = w
        wanted |= w > 0
    if not wanted:
        return STEP_DONE
    if tree.n_nodes.max() + L > tree.node_parent.shape[1]:
        return STEP_NEEDS_NODES
    select_serial(tree, root_boards, root_hists, want, leaves, params, cand, draws)
    if _any_no_room(leaves.status):
        return STEP_NO_ROOM
    if margin > 0:
        adjudicate_leaves_(leaves, tree.node_terminal_value, margin)
    counts[0] = 0
    counts[1] = 0
    k = gather_leaves(table, cached, leaves.boards, leaves.status, leaves.row, out, sims_done, counts)
    if k:
        errors[:] = 0
        encode_games(out.miss_boards, obs, moves, errors, 0, k, True)
        for j in range(k):
            if errors[j] != 0:
                return STEP_ENCODING_ERROR
    return k


@njit(cache=True, nogil=True)
def end_step(tree, leaves, table, cached, k, out, logits, values, moves, actions, n_legal, virtual_loss,
             draws, counts, phase_ends, phase, last_phase, sims_done, phase_over):
    """The second half of a search step, in one call: the K misses' network outputs into their
    rows and the cache (:func:`scatter_misses`), then expansion and backup of every game
    (``search.kernels.expand_backup_serial``).

    Returns the games whose phase (``phase_ends [B, P]``, ``phase [B]``, ``last_phase [B]``)
    just ended but not their last, their indices in ``phase_over [:n]``; or a ``STEP_*`` code:
    ``STEP_NEEDS_EDGES`` (nothing expanded yet), ``STEP_NO_ROOM`` or ``STEP_NO_SIMULATION``."""
    if k:
        scatter_misses(table, cached, k, out, logits, values, moves, actions, n_legal)
    B = tree.roots.shape[0]
    L = leaves.status.shape[0] // B
    need = 0
    for b in range(B):
        edges = tree.n_edges[b]
        for i in range(b * L, (b + 1) * L):
            edges += out.n_legal[i]
        need = max(need, edges)
    if need > tree.edge_move.shape[1]:
        counts[2] = need
        return STEP_NEEDS_EDGES
    expand_backup_serial(tree, leaves, out.logits, out.values, out.moves, out.actions, out.n_legal,
                         virtual_loss, draws)
    if _any_no_room(leaves.status):
        return STEP_NO_ROOM
    if counts[0] == 0:
        return STEP_NO_SIMULATION
    n = 0
    for b in range(B):
        if sims_done[b] == phase_ends[b, phase[b]] and phase[b] < last_phase[b]:
            phase_over[n] = b
            n += 1
    return n
