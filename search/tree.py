"""The search tree: one preallocated struct of arrays for B trees, its sentinels and its growth.

Trees are stored mctx style, one row per game, never as Python node objects (:class:`Tree`): a
node's children are a slice of the edge arrays holding only its legal moves. Capacity is a
contract of the driver, not of the kernels: before each kernel call it makes room with
:func:`grow_tree` (doubling), so that no simulation is ever dropped for lack of it; a tree kept
for the next move is compacted to the played child's subtree (:func:`compact_tree_`).

See docs/search.md.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

ROOT = 0
"""Node index of a fresh tree's root (a kept tree's root is ``roots[b]``, any node)."""
NO_NODE = -1
"""``node_parent`` of a root; ``edge_child`` of an edge whose child was never created."""
UNEXPANDED = -1
"""``node_count`` of a node not yet expanded (created, awaiting its network evaluation)."""

# What one leaf selection did (``LeafBatch.status``, see ``search.leaves``).
LEAF_NONE = 0
"""Nothing selected: the game has done its simulations (or its phase's), or the root is finished."""
LEAF_EVAL = 1
"""A new node was created: its position goes to the network, then it is expanded and backed up."""
LEAF_TERMINAL = 2
"""The path ended in a finished position: its exact value is backed up, no network call."""
LEAF_COLLISION = 3
"""The path ran into a node still awaiting evaluation in this step (leaves_per_tree > 1): no
simulation was performed; the game selects again in the next step."""
LEAF_NO_ROOM = 4
"""The node or edge arrays were full. The driver grows them before each kernel call, so this is
a bug; the driver raises rather than drop the simulation."""


class Tree(NamedTuple):
    """B search trees (numba takes this tuple of arrays as one argument)::

        node_*  [B, N]   node v of game b: parent, first edge, edge count, visits, value sum, ...
        edge_*  [B, E]   edge e of game b: move, action id, prior, child node, ...

    A node's children are the slice ``[node_first, node_first + node_count)`` of the edge arrays
    and hold only its legal moves (Hive has tens of thousands of action ids and ~10-150 legal
    moves, so a dense [B, N, A] block would not fit). Node ``v`` and edge ``e`` are allocated by
    bumping ``n_nodes[b]`` / ``n_edges[b]``. Values are from the view of the side to move at the
    node; a parent scores a child by ``-node_wsum / node_visits``. Positions are not stored: a
    leaf's board is rebuilt by replaying the path from the root board (``search.kernels``).

    Fields (N = node capacity, E = edge capacity, both grow on demand):
        roots: [B] int32 node index of each tree's root (``ROOT`` when fresh).
        n_nodes: [B] int32 nodes allocated (the next free node index).
        n_edges: [B] int32 edges allocated (the next free edge index).
        node_parent: [B, N] int32 parent node, ``NO_NODE`` for the first root.
        node_first: [B, N] int32 first edge of the node's children.
        node_count: [B, N] int32 number of children (legal moves), ``UNEXPANDED`` until expanded.
        node_visits: [B, N] float32 visit count N (plus pending virtual loss during a step).
        node_wsum: [B, N] float32 sum W of backed-up values, for the side to move at the node.
        node_terminal: [B, N] bool the position is finished (never expanded, never evaluated).
        node_terminal_value: [B, N] float32 exact value of a finished position.
        node_proof: [B, N] int8 proof code of the node for its side to move (MCTS-Solver,
            ``search.leaves.PROVEN_*``): ``UNPROVEN``, or a proven loss, draw or win.
        edge_move: [B, E] int32 engine move of the edge.
        edge_action: [B, E] int32 action id of the edge (the network's policy index).
        edge_prior: [B, E] float32 prior used by PUCT (root: with Dirichlet noise when asked).
        edge_prior_raw: [B, E] float32 the network's prior, before root noise.
        edge_child: [B, E] int32 child node, ``NO_NODE`` until first selected.
        edge_proof: [B, E] int8 proof code of the move for the parent's side to move: from the
            exact checks at expansion (surrounds; at the root also the opponent's wins in one)
            or from its child's proof (flipped).
    """

    roots: np.ndarray
    n_nodes: np.ndarray
    n_edges: np.ndarray
    node_parent: np.ndarray
    node_first: np.ndarray
    node_count: np.ndarray
    node_visits: np.ndarray
    node_wsum: np.ndarray
    node_terminal: np.ndarray
    node_terminal_value: np.ndarray
    node_proof: np.ndarray
    edge_move: np.ndarray
    edge_action: np.ndarray
    edge_prior: np.ndarray
    edge_prior_raw: np.ndarray
    edge_child: np.ndarray
    edge_proof: np.ndarray

    @property
    def node_capacity(self) -> int:
        return self.node_parent.shape[1]

    @property
    def edge_capacity(self) -> int:
        return self.edge_move.shape[1]


# Fill value of each [B, N] / [B, E] field: what a never-used slot holds.
_NODE_FILL = {"node_parent": (NO_NODE, np.int32), "node_first": (0, np.int32),
              "node_count": (UNEXPANDED, np.int32), "node_visits": (0.0, np.float32),
              "node_wsum": (0.0, np.float32), "node_terminal": (False, np.bool_),
              "node_terminal_value": (0.0, np.float32), "node_proof": (0, np.int8)}
_EDGE_FILL = {"edge_move": (0, np.int32), "edge_action": (0, np.int32), "edge_prior": (0.0, np.float32),
              "edge_prior_raw": (0.0, np.float32), "edge_child": (NO_NODE, np.int32),
              "edge_proof": (0, np.int8)}


def allocate_tree(batch: int, nodes: int, edges: int) -> Tree:
    """B empty trees (each a lone unexpanded root) with room for ``nodes`` nodes and ``edges`` edges."""
    if nodes < 1 or edges < 1:
        raise ValueError(f"a tree needs room for at least one node and edge, got {nodes}, {edges}")
    fields = {"roots": np.full(batch, ROOT, np.int32), "n_nodes": np.ones(batch, np.int32),
              "n_edges": np.zeros(batch, np.int32)}
    for name, (fill, dtype) in _NODE_FILL.items():
        fields[name] = np.full((batch, nodes), fill, dtype)
    for name, (fill, dtype) in _EDGE_FILL.items():
        fields[name] = np.full((batch, edges), fill, dtype)
    return Tree(**fields)


def grow_tree(tree: Tree, nodes: int, edges: int) -> Tree:
    """``tree`` with room for at least ``nodes`` nodes and ``edges`` edges per game.

    A capacity that is short is doubled (until it suffices), so growth costs amortised O(1)
    per element; contents are copied. Returns ``tree`` itself when it already has the room.
    """
    N, E = tree.node_capacity, tree.edge_capacity
    new_n, new_e = N, E
    while new_n < nodes:
        new_n *= 2
    while new_e < edges:
        new_e *= 2
    if (new_n, new_e) == (N, E):
        return tree
    grown = allocate_tree(tree.roots.shape[0], new_n, new_e)
    for name in ("roots", "n_nodes", "n_edges"):
        getattr(grown, name)[:] = getattr(tree, name)
    for name in _NODE_FILL:
        getattr(grown, name)[:, :N] = getattr(tree, name)
    for name in _EDGE_FILL:
        getattr(grown, name)[:, :E] = getattr(tree, name)
    return grown


def reset_trees_(tree: Tree, games: np.ndarray) -> None:
    """Make the trees of ``games`` (int indices) empty again: a lone unexpanded root at ``ROOT``."""
    for b in np.asarray(games).reshape(-1):
        reset_tree(tree, int(b))


@njit(cache=True, nogil=True)
def reset_tree(tree: Tree, b: int) -> None:
    """Game b's tree made empty again: its root slot back to a fresh tree's (``_NODE_FILL``);
    every other node and edge is rewritten when it is allocated."""
    tree.roots[b] = ROOT
    tree.n_nodes[b] = 1
    tree.n_edges[b] = 0
    tree.node_parent[b, ROOT] = NO_NODE
    tree.node_first[b, ROOT] = 0
    tree.node_count[b, ROOT] = UNEXPANDED
    tree.node_visits[b, ROOT] = 0.0
    tree.node_wsum[b, ROOT] = 0.0
    tree.node_terminal[b, ROOT] = False
    tree.node_terminal_value[b, ROOT] = 0.0
    tree.node_proof[b, ROOT] = 0


@njit(cache=True, nogil=True)
def compact_tree_(tree: Tree, b: int, root: int) -> None:
    """Keep only the subtree of node ``root`` in game ``b``'s tree, moved to the front of its
    arrays: ``root`` becomes node 0 (``ROOT``, no parent), its descendants follow in breadth-first
    order, each node's edges stay one slice in their order; the nodes and edges off the subtree
    (the garbage of the moves not played) are freed. Statistics, priors and proofs are kept."""
    n_old = tree.n_nodes[b]
    new_of = np.full(n_old, -1, np.int32)
    order = np.empty(n_old, np.int32)
    order[0] = root
    new_of[root] = 0
    k = 1
    head = 0
    edges = 0
    while head < k:  # breadth first: number the subtree's nodes and count its edges
        v = order[head]
        head += 1
        count = tree.node_count[b, v]
        if count > 0:
            first = tree.node_first[b, v]
            edges += count
            for e in range(first, first + count):
                c = tree.edge_child[b, e]
                if c != NO_NODE:
                    new_of[c] = k
                    order[k] = c
                    k += 1
    parent = np.empty(k, np.int32)
    node_first = np.zeros(k, np.int32)
    count_ = np.empty(k, np.int32)
    visits = np.empty(k, np.float32)
    wsum = np.empty(k, np.float32)
    terminal = np.empty(k, np.bool_)
    terminal_value = np.empty(k, np.float32)
    proof = np.empty(k, np.int8)
    move = np.empty(edges, np.int32)
    action = np.empty(edges, np.int32)
    prior = np.empty(edges, np.float32)
    prior_raw = np.empty(edges, np.float32)
    child = np.empty(edges, np.int32)
    edge_proof = np.empty(edges, np.int8)
    m = 0
    for i in range(k):
        v = order[i]
        p = tree.node_parent[b, v]
        parent[i] = NO_NODE if i == 0 else new_of[p]
        count_[i] = tree.node_count[b, v]
        visits[i] = tree.node_visits[b, v]
        wsum[i] = tree.node_wsum[b, v]
        terminal[i] = tree.node_terminal[b, v]
        terminal_value[i] = tree.node_terminal_value[b, v]
        proof[i] = tree.node_proof[b, v]
        if count_[i] > 0:
            node_first[i] = m
            first = tree.node_first[b, v]
            for e in range(first, first + count_[i]):
                move[m] = tree.edge_move[b, e]
                action[m] = tree.edge_action[b, e]
                prior[m] = tree.edge_prior[b, e]
                prior_raw[m] = tree.edge_prior_raw[b, e]
                c = tree.edge_child[b, e]
                child[m] = NO_NODE if c == NO_NODE else new_of[c]
                edge_proof[m] = tree.edge_proof[b, e]
                m += 1
    tree.node_parent[b, :k] = parent
    tree.node_first[b, :k] = node_first
    tree.node_count[b, :k] = count_
    tree.node_visits[b, :k] = visits
    tree.node_wsum[b, :k] = wsum
    tree.node_terminal[b, :k] = terminal
    tree.node_terminal_value[b, :k] = terminal_value
    tree.node_proof[b, :k] = proof
    tree.edge_move[b, :m] = move
    tree.edge_action[b, :m] = action
    tree.edge_prior[b, :m] = prior
    tree.edge_prior_raw[b, :m] = prior_raw
    tree.edge_child[b, :m] = child
    tree.edge_proof[b, :m] = edge_proof
    tree.roots[b] = ROOT
    tree.n_nodes[b] = k
    tree.n_edges[b] = m
