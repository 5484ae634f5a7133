"""Compiled bookkeeping of every game's root: its exact checks before a search, its statistics
after it, and the kept subtree between moves (tree reuse), for B trees in one call each.

These were per-game Python at every move; with tens of simulations a move they cost as much
as a good part of the simulations themselves. What needs a game's own random stream (root
noise, sampling a move) stays in ``search.mcts``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .leaves import PROVEN_LOSS, PROVEN_WIN, UNPROVEN, prove, scan_root
from .tree import NO_NODE, UNEXPANDED, Tree, compact_tree_, reset_tree

KEPT, DROPPED, DROPPED_FOR_SIZE = 0, 1, 2
"""What :func:`advance_trees` did with a game's tree."""


@njit(cache=True, nogil=True)
def check_roots(tree: Tree, boards, hists, n_legal, fresh, lost, wins_now, buf, codes, scratch):
    """The exact one-move checks of every root with moves (``scan_root``: wins, moves that lose
    at once or let the opponent win at once), merged into its edges' proofs; the root proven
    from them (a fresh root's first visit then takes the exact value); the priors PUCT uses set
    to the raw ones (root noise is the caller's). Writes ``lost [B, M]`` and ``wins_now [B, M]``."""
    for b in range(boards.shape[0]):
        n = n_legal[b]
        if n == 0:
            continue
        root = tree.roots[b]
        first = tree.node_first[b, root]
        for i in range(n):
            codes[i] = UNPROVEN
        scan_root(boards[b], hists[b], tree.edge_move[b, first:first + n], n, codes, buf, scratch)
        edges = tree.edge_proof[b, first:first + n]
        for i in range(n):
            if edges[i] == UNPROVEN:
                edges[i] = codes[i]
            lost[b, i] = edges[i] == PROVEN_LOSS
            wins_now[b, i] = codes[i] == PROVEN_WIN
            tree.edge_prior[b, first + i] = tree.edge_prior_raw[b, first + i]
        if tree.node_proof[b, root] == UNPROVEN:
            tree.node_proof[b, root] = prove(edges, n)
        if fresh[b] and tree.node_visits[b, root] == 1.0 and tree.node_proof[b, root] != UNPROVEN:
            tree.node_wsum[b, root] = np.float32(tree.node_proof[b, root]) - 2.0  # its first visit: exact


@njit(cache=True, nogil=True)
def root_stats(tree: Tree, n_legal, moves, actions, visits, q, move_proof, prior_raw, value, proof):
    """Every root's moves, action ids, children's visits and values q (the root mover's view, 0
    unvisited), move proofs and raw priors into the [B, M] arrays (the first ``n_legal[b]``
    slots), its mean value and proof into the [B] ones."""
    for b in range(n_legal.shape[0]):
        n = n_legal[b]
        if n == 0:
            continue
        root = tree.roots[b]
        first = tree.node_first[b, root]
        value[b] = tree.node_wsum[b, root] / max(tree.node_visits[b, root], np.float32(1.0))
        proof[b] = tree.node_proof[b, root]
        for i in range(n):
            e = first + i
            moves[b, i] = tree.edge_move[b, e]
            actions[b, i] = tree.edge_action[b, e]
            move_proof[b, i] = tree.edge_proof[b, e]
            prior_raw[b, i] = tree.edge_prior_raw[b, e]
            child = tree.edge_child[b, e]
            if child == NO_NODE:
                continue
            v = tree.node_visits[b, child]
            visits[b, i] = v
            if v > 0:
                q[b, i] = -np.float64(tree.node_wsum[b, child]) / max(np.float64(v), 1e-9)


@njit(cache=True, nogil=True)
def advance_trees(tree: Tree, slots, reuse: bool, limit: int, per_search: int, status):
    """Keep, in every game whose ``slots[b] >= 0``, the subtree of the root child at that slot as
    the next root (``compact_tree_``); drop the tree (a lone unexpanded root) when reuse is off,
    the child was never expanded, or the subtree could not take another search within ``limit``
    nodes. ``status [B]``: ``KEPT``, ``DROPPED`` or ``DROPPED_FOR_SIZE`` (-1: not asked)."""
    for b in range(slots.shape[0]):
        status[b] = -1
        slot = slots[b]
        if slot < 0:
            continue
        root = tree.roots[b]
        child = NO_NODE
        if reuse and slot < tree.node_count[b, root]:
            child = tree.edge_child[b, tree.node_first[b, root] + slot]
        if child == NO_NODE or tree.node_count[b, child] == UNEXPANDED:
            status[b] = DROPPED
        else:
            compact_tree_(tree, b, child)
            status[b] = KEPT if tree.n_nodes[b] + per_search <= limit else DROPPED_FOR_SIZE
        if status[b] != KEPT:
            reset_tree(tree, b)


