"""Compiled search kernels: select leaves, then expand and back up, for B trees at once.

Each kernel is one per-game body (:func:`_select_game`, :func:`_expand_backup_game`) and two
wrappers that call it for every game: a serial loop and a parallel ``prange`` loop (thread
start-up costs more than the work when there are few games, see ``PARALLEL_MIN_GAMES``). Games
never touch each other's rows, so both wrappers give the same trees. Selection is PUCT (or the
Gumbel root's), with virtual loss; proven values follow MCTS-Solver (Winands et al. 2008).

See docs/search.md (exact tactics in the tree).
"""

from __future__ import annotations

import math
from typing import NamedTuple

from numba import njit, prange

from .leaves import (
    PLY,
    PROVEN_DRAW,
    PROVEN_LOSS,
    PROVEN_WIN,
    UNPROVEN,
    copy_n,
    flip_proof,
    is_finished,
    play,
    proof_value,
    prove,
    scan_surrounds,
    terminal_value,
)
from .tree import (
    LEAF_COLLISION,
    LEAF_EVAL,
    LEAF_NO_ROOM,
    LEAF_NONE,
    LEAF_TERMINAL,
    NO_NODE,
    UNEXPANDED,
)

PARALLEL_MIN_GAMES = 8
"""Games from which the parallel wrappers pay off."""


class SelectParams(NamedTuple):
    """Scalars of the select kernel (see ``search.mcts.SearchConfig``)."""

    c_puct: float
    fpu_reduction: float
    root_fpu_reduction: float
    virtual_loss: float
    gumbel: bool


@njit(cache=True, nogil=True, inline="always")
def draw_value(draws, b, board) -> float:
    """A draw's value in game b for the side to move at ``board``: ``draws [B, 2] float32`` by
    colour (0 without contempt; with it, ``-contempt`` for the root's mover, see
    ``search.mcts.SearchConfig.contempt``)."""
    return draws[b, board[PLY] & 1]


@njit(cache=True, nogil=True, inline="always")
def finished_value(value, draws, b, board) -> float:
    """A finished game's ``value`` (its exact value) for the side to move at ``board``, a draw's
    :func:`draw_value`."""
    return draw_value(draws, b, board) if value == 0.0 else value


@njit(cache=True, nogil=True, inline="always")
def proven_value(code, draws, b, board) -> float:
    """The exact value of a proven ``code`` for the side to move at ``board`` (a draw's:
    :func:`draw_value`)."""
    return draw_value(draws, b, board) if code == PROVEN_DRAW else proof_value(code)


# ----- selection ----------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _pick_edge(b, node, first, count, node_visits, node_wsum, edge_prior, edge_child, edge_proof, c_puct,
               fpu, draw_q):
    """PUCT: the edge maximising Q + c * P * sqrt(N) / (1 + n) (first on ties); a proven edge
    is valued exactly (a proven draw at ``draw_q``, its value for the mover), a proven-lost one is
    skipped while another exists."""
    n_parent = node_visits[b, node]
    q_parent = node_wsum[b, node] / n_parent if n_parent > 0 else 0.0
    sq = math.sqrt(max(n_parent, 1.0))
    best = -1
    best_score = -1e30
    for lost_too in range(2):  # the second pass only when every move is proven lost
        for e in range(first, first + count):
            proof = edge_proof[b, e]
            if proof == PROVEN_LOSS and lost_too == 0:
                continue
            child = edge_child[b, e]
            n = node_visits[b, child] if child != NO_NODE else 0.0
            if proof == PROVEN_DRAW:
                q = draw_q
            elif proof != UNPROVEN:
                q = proof_value(proof)
            elif n > 0:
                q = -node_wsum[b, child] / n
            else:
                q = q_parent - fpu
            score = q + c_puct * edge_prior[b, e] * sq / (1.0 + n)
            if score > best_score:
                best_score = score
                best = e
        if best >= 0:
            break
    return best


@njit(cache=True, nogil=True)
def _forced_root_edge(b, first, count, node_visits, edge_child, edge_proof, cand):
    """Gumbel root: the remaining candidate with the fewest visits (first on ties), a
    proven-lost one only when every remaining candidate is."""
    best = -1
    best_n = 1e30
    for lost_too in range(2):
        for i in range(count):
            if cand[b, i] == 0 or (lost_too == 0 and edge_proof[b, first + i] == PROVEN_LOSS):
                continue
            child = edge_child[b, first + i]
            n = node_visits[b, child] if child != NO_NODE else 0.0
            if n < best_n:
                best_n = n
                best = first + i
        if best >= 0:
            break
    return best


@njit(cache=True, nogil=True)
def _select_game(b, tree, root_boards, root_hists, want, leaves, params, cand, draws):
    """Select ``want[b]`` leaves of game b (rows ``b * L ..``); the other rows get ``LEAF_NONE``.

    PUCT (AlphaZero): ``argmax_e  Q(e) + c_puct * P(e) * sqrt(N(parent)) / (1 + N(e))``, an
    unvisited child valued at ``Q(parent) - fpu`` (:func:`_pick_edge`). Gumbel root: the remaining
    candidate with the fewest visits, which visits the candidates of a halving phase equally.
    With ``leaves_per_tree > 1`` each selected path gets a virtual loss (it looks lost to its
    choosers) until it is backed up, so that the next leaf of the step looks elsewhere. A proven
    node below the root is treated like a finished one (its exact value is backed up, no network
    call). A proven root is still searched, so that its moves get the visits the targets are made
    from (its proven moves cost no network call). A draw, finished or proven, is worth
    ``draws[b, colour]`` to the side to move (:func:`draw_value`).

    numba note: the bodies copy the tree's array fields into locals before writing them; writes
    through a tuple field inside ``prange`` have been seen to go wrong silently
    (``tests/search/test_mcts.py`` compares batched and per-game searches to guard this).
    """
    roots, n_nodes = tree.roots, tree.n_nodes
    node_parent, node_first, node_count = tree.node_parent, tree.node_first, tree.node_count
    node_visits, node_wsum = tree.node_visits, tree.node_wsum
    node_terminal, node_terminal_value = tree.node_terminal, tree.node_terminal_value
    node_proof, edge_proof = tree.node_proof, tree.edge_proof
    edge_move, edge_prior, edge_child = tree.edge_move, tree.edge_prior, tree.edge_child
    leaf_boards, leaf_hists, leaf_node = leaves.boards, leaves.hists, leaves.node
    leaf_status, leaf_value = leaves.status, leaves.value
    L = leaf_node.shape[0] // roots.shape[0]
    N = node_parent.shape[1]
    root = roots[b]
    for k in range(L):
        i = b * L + k
        leaf_status[i] = LEAF_NONE
        leaf_node[i] = NO_NODE
        if k >= want[b]:
            continue
        copy_n(leaf_boards[i], root_boards[b], root_boards.shape[1])
        copy_n(leaf_hists[i], root_hists[b], root_hists.shape[1])
        node = root
        status = LEAF_COLLISION
        while True:
            if node_terminal[b, node]:
                status = LEAF_TERMINAL
                leaf_value[i] = finished_value(node_terminal_value[b, node], draws, b, leaf_boards[i])
                break
            code = node_proof[b, node]
            if code != UNPROVEN and node != root:  # solved: its exact value
                status = LEAF_TERMINAL
                leaf_value[i] = proven_value(code, draws, b, leaf_boards[i])
                break
            count = node_count[b, node]
            if count == UNEXPANDED:
                break  # created by an earlier leaf of this step, awaiting evaluation
            if params.gumbel and node == root:
                e = _forced_root_edge(b, node_first[b, node], count, node_visits, edge_child, edge_proof,
                                      cand)
            else:
                fpu = params.root_fpu_reduction if node == root else params.fpu_reduction
                draw_q = draw_value(draws, b, leaf_boards[i])
                e = _pick_edge(b, node, node_first[b, node], count, node_visits, node_wsum, edge_prior,
                               edge_child, edge_proof, params.c_puct, fpu, draw_q)
            play(leaf_boards[i], leaf_hists[i], edge_move[b, e])
            child = edge_child[b, e]
            if child == NO_NODE:
                if n_nodes[b] >= N:
                    status = LEAF_NO_ROOM
                    break
                child = n_nodes[b]
                n_nodes[b] += 1
                edge_child[b, e] = child
                node_parent[b, child] = node
                node_count[b, child] = UNEXPANDED
                node_visits[b, child] = 0.0
                node_wsum[b, child] = 0.0
                node_proof[b, child] = UNPROVEN
                node_terminal[b, child] = is_finished(leaf_boards[i])
                node = child
                if node_terminal[b, child]:
                    node_terminal_value[b, child] = terminal_value(leaf_boards[i])
                    leaf_value[i] = finished_value(node_terminal_value[b, child], draws, b, leaf_boards[i])
                    status = LEAF_TERMINAL
                else:
                    status = LEAF_EVAL
                break
            node = child
        leaf_status[i] = status
        if status == LEAF_EVAL or status == LEAF_TERMINAL:
            leaf_node[i] = node
            v = node
            while v != root:  # virtual loss: the path looks lost to its choosers
                node_visits[b, v] += params.virtual_loss
                node_wsum[b, v] += params.virtual_loss
                v = node_parent[b, v]


@njit(cache=True, nogil=True)
def select_serial(tree, root_boards, root_hists, want, leaves, params, cand, draws):
    """Select leaves in every game, one game after another.

    Args:
        tree: the :class:`search.tree.Tree`; gains at most ``want[b]`` nodes in game b
            (room for them is the caller's duty: ``LEAF_NO_ROOM`` otherwise).
        root_boards: [B, BOARD_SIZE] int16 root positions; root_hists: [B, HIST] uint64.
        want: [B] int32 leaves to select per game (at most leaves_per_tree).
        leaves: the :class:`search.leaves.LeafBatch` of B * leaves_per_tree rows, written.
        params: :class:`SelectParams`.
        cand: [B, M] int8 Gumbel root candidates (1 = still in), by root slot.
        draws: [B, 2] float32 a draw's value for the side to move, by colour (:func:`draw_value`).
    """
    for b in range(tree.roots.shape[0]):
        _select_game(b, tree, root_boards, root_hists, want, leaves, params, cand, draws)


@njit(cache=True, nogil=True, parallel=True)
def select_parallel(tree, root_boards, root_hists, want, leaves, params, cand, draws):
    """:func:`select_serial` in parallel over games."""
    for b in prange(tree.roots.shape[0]):
        _select_game(b, tree, root_boards, root_hists, want, leaves, params, cand, draws)


# ----- expansion and backup -----------------------------------------------------------------


@njit(cache=True, nogil=True)
def _softmax_into(logits, n, out, first):
    """``out[first:first + n] = softmax(logits[:n])``."""
    m = -1e30
    for j in range(n):
        if logits[j] > m:
            m = logits[j]
    s = 0.0
    for j in range(n):
        out[first + j] = math.exp(logits[j] - m)
        s += out[first + j]
    for j in range(n):
        out[first + j] /= s


@njit(cache=True, nogil=True)
def _code_of_value(value):
    """Proof code of an exact value (a finished position's, for its side to move)."""
    if value > 0.5:
        return PROVEN_WIN
    if value < -0.5:
        return PROVEN_LOSS
    return PROVEN_DRAW


@njit(cache=True, nogil=True)
def _pass_proof_up(b, v, node_parent, node_first, node_count, node_proof, edge_child, edge_proof):
    """Node v was just proven: give its parent's edge the flipped code and prove the parent
    again. Returns the parent when it became proven (pass on from there), else ``NO_NODE``."""
    p = node_parent[b, v]
    if p == NO_NODE:
        return NO_NODE
    first, count = node_first[b, p], node_count[b, p]
    for e in range(first, first + count):
        if edge_child[b, e] == v:
            edge_proof[b, e] = flip_proof(node_proof[b, v])
            break
    if node_proof[b, p] != UNPROVEN:
        return NO_NODE
    code = prove(edge_proof[b, first:first + count], count)
    if code == UNPROVEN:
        return NO_NODE
    node_proof[b, p] = code
    return p


@njit(cache=True, nogil=True)
def _expand_backup_game(b, tree, leaves, logits, values, moves, legal_actions, n_legal, virtual_loss, draws):
    """Expand game b's evaluated leaves (with the exact surround check of their moves), pass
    new proofs up, and back up every performed simulation.

    Proven values (MCTS-Solver): every node and edge carries a proof code
    (``search.leaves.PROVEN_*``). A finished position is proven by its exact value; at every
    expansion the exact surround check (``scan_surrounds``) proves the moves that end the game at
    once; a node with a winning move is a proven win, a node all of whose moves are proven takes
    the best of them (a loss when all lose). A new proof is passed up the path during backup
    (:func:`_pass_proof_up`)."""
    roots, n_edges = tree.roots, tree.n_edges
    node_parent, node_first, node_count = tree.node_parent, tree.node_first, tree.node_count
    node_visits, node_wsum, node_proof = tree.node_visits, tree.node_wsum, tree.node_proof
    edge_move, edge_action, edge_child = tree.edge_move, tree.edge_action, tree.edge_child
    edge_prior, edge_prior_raw, edge_proof = tree.edge_prior, tree.edge_prior_raw, tree.edge_proof
    leaf_node, leaf_status, leaf_value, leaf_row = leaves.node, leaves.status, leaves.value, leaves.row
    leaf_boards, leaf_hists = leaves.boards, leaves.hists
    L = leaf_node.shape[0] // roots.shape[0]
    E = edge_move.shape[1]
    root = roots[b]
    for k in range(L):
        i = b * L + k
        status = leaf_status[i]
        if status != LEAF_EVAL and status != LEAF_TERMINAL:
            continue
        node = leaf_node[i]
        value = leaf_value[i]
        proven = False  # the leaf node was proven now: pass it up
        if status == LEAF_TERMINAL:
            if node_proof[b, node] == UNPROVEN:  # a finished position: its exact value proves it
                node_proof[b, node] = _code_of_value(tree.node_terminal_value[b, node])
                proven = True
        else:
            r = leaf_row[i]
            value = values[r]
            n = n_legal[r]
            if n_edges[b] + n > E:
                leaf_status[i] = LEAF_NO_ROOM
                continue
            first = n_edges[b]
            n_edges[b] += n
            for j in range(n):
                edge_move[b, first + j] = moves[r, j]
                edge_action[b, first + j] = legal_actions[r, j]
                edge_child[b, first + j] = NO_NODE
            _softmax_into(logits[r], n, edge_prior[b], first)
            for j in range(n):
                edge_prior_raw[b, first + j] = edge_prior[b, first + j]
            node_first[b, node] = first
            node_count[b, node] = n
            if scan_surrounds(leaf_boards[i], leaf_hists[i], moves[r], n, edge_proof[b, first:first + n]) > 0:
                code = prove(edge_proof[b, first:first + n], n)
                if code != UNPROVEN:
                    node_proof[b, node] = code
                    value = proven_value(code, draws, b, leaf_boards[i])
                    proven = True
        if proven:
            u = node
            while u != NO_NODE and u != root:
                u = _pass_proof_up(b, u, node_parent, node_first, node_count, node_proof, edge_child,
                                   edge_proof)
        v = node
        while True:
            if v != root:
                node_visits[b, v] -= virtual_loss
                node_wsum[b, v] -= virtual_loss
            node_visits[b, v] += 1.0
            node_wsum[b, v] += value
            if v == root:
                break
            value = -value  # zero-sum: the parent's mover sees the opposite
            v = node_parent[b, v]


@njit(cache=True, nogil=True)
def expand_backup_serial(tree, leaves, logits, values, moves, legal_actions, n_legal, virtual_loss, draws):
    """Expand the evaluated leaves and back up all performed simulations, game after game.

    Args:
        tree: the :class:`search.tree.Tree`; game b gains the edges of its evaluated leaves
            (room for them is the caller's duty: ``LEAF_NO_ROOM`` otherwise, nothing backed up).
        leaves: the :class:`search.leaves.LeafBatch` the select kernel wrote.
        logits: [K, M] float32 policy logits of the K evaluated leaves (``leaves.row``).
        values: [K] float32 their values, for the side to move there.
        moves: [K, MAX_MOVES] int32 their legal moves; legal_actions: [K, M] int32 action ids;
        n_legal: [K] int32 legal move counts.
        virtual_loss: the virtual loss the select kernel added, taken off again.
        draws: [B, 2] float32 a draw's value for the side to move, by colour (:func:`draw_value`).
    """
    for b in range(tree.roots.shape[0]):
        _expand_backup_game(b, tree, leaves, logits, values, moves, legal_actions, n_legal, virtual_loss,
                            draws)


@njit(cache=True, nogil=True, parallel=True)
def expand_backup_parallel(tree, leaves, logits, values, moves, legal_actions, n_legal, virtual_loss, draws):
    """:func:`expand_backup_serial` in parallel over games."""
    for b in prange(tree.roots.shape[0]):
        _expand_backup_game(b, tree, leaves, logits, values, moves, legal_actions, n_legal, virtual_loss,
                            draws)
