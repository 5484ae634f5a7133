"""Batched AlphaZero tree search (PUCT, or a Gumbel root) over many games at once.

Each search step selects one leaf (or ``leaves_per_tree`` with virtual loss) in every tree
with a compiled kernel, encodes all leaves that need a network evaluation, evaluates them
in **one** call of the injected ``evaluate`` function, and expands and backs up with a
second compiled kernel. No Python runs per node or per game on this path.

Trees are preallocated structs of arrays (mctx style), one row per game::

    node_*  [B, N]   parent, first edge, edge count (-1 = not expanded), visits, value sum,
                     terminal flag and exact value; node 0 is the first root
    edge_*  [B, E]   move, action id, slot (index in the node's legal list), prior,
                     raw prior (before root noise), child node (-1 = none)

A node's children are the slice ``[first, first + count)`` of the edge arrays: only legal
moves are stored, never a dense [N, A] block. Values are from the view of the side to
move at that node; a parent scores a child by ``-W / N``. Leaf positions are rebuilt by
replaying the path from the root board (a board is 2 KB; no state is stored per node).

``evaluate(obs) -> (policy_logits [L, M] float32, values [L] float32)`` receives the
observation dict of ``hive_env.encode`` for L leaves; values are for the side to move.

Gumbel root (Danihelka et al. 2022, "Policy improvement by planning with Gumbel"): sample
Gumbel noise g, keep the top ``gumbel_m`` actions by ``g + logit``, spend the simulations by
sequential halving (each phase visits the remaining candidates equally, then keeps the best
half by ``g + logit + sigma(q)``), play the best survivor, and train on the improved policy
``softmax(logit + sigma(completed q))``. Interior nodes use PUCT.
"""

from __future__ import annotations

import math
import time
import types
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numba import njit, prange

from hive_env.board import BOARD_SIZE, HIST, IN_PROGRESS, PLY, STATUS, play
from hive_env.encode import (
    MAX_LEGAL,
    allocate_moves,
    allocate_observation,
    encode_batch_kernel,
    encode_games,
    obs_tuple,
    observe_batch_with_moves,
    raise_encoding_errors,
)

Evaluate = Callable[[dict], tuple[np.ndarray, np.ndarray]]

LEAF_EVAL, LEAF_TERMINAL, LEAF_SKIP = 0, 1, 2


@dataclass(frozen=True)
class SearchConfig:
    """Search settings (reference values: AlphaZero, KataGo, Gumbel MuZero papers).

    Args:
        sims: simulations per move (AlphaZero: 800; Gumbel works down to ~16; with the
            Gumbel root a few more may run so that every candidate is visited each phase).
        c_puct: exploration constant of PUCT (AlphaZero ~1.25-2.5).
        fpu_reduction: an unvisited child is valued as its parent minus this (KataGo 0.2).
        root_fpu_reduction: the same at the root, where breadth matters more (Leela: 0).
        dirichlet_alpha: root noise concentration (chess 0.3; ~10 / typical legal moves).
        dirichlet_eps: weight of root noise in self-play (AlphaZero 0.25); 0 disables.
        leaves_per_tree: leaves selected per tree per network call (virtual loss when > 1).
        virtual_loss: visits of loss added to a pending path.
        gumbel: use the Gumbel root instead of PUCT + Dirichlet at the root.
        gumbel_m: candidate actions sampled at the root (paper: 16).
        gumbel_c_visit, gumbel_c_scale: sigma(q) = (c_visit + max N) * c_scale * q (50, 0.1).
        tree_reuse: keep the chosen child's subtree for the next move.
        max_nodes: node capacity per tree (default 3 * sims * leaves_per_tree + 64).
        edges_per_node: average edge capacity per node.
    """

    sims: int = 64
    c_puct: float = 1.5
    fpu_reduction: float = 0.2
    root_fpu_reduction: float = 0.0
    dirichlet_alpha: float = 0.3
    dirichlet_eps: float = 0.25
    leaves_per_tree: int = 1
    virtual_loss: float = 1.0
    gumbel: bool = False
    gumbel_m: int = 16
    gumbel_c_visit: float = 50.0
    gumbel_c_scale: float = 0.1
    tree_reuse: bool = True
    max_nodes: int = 0
    edges_per_node: int = 32

    def __post_init__(self):
        if self.sims < 1:
            raise ValueError(f"search.sims must be >= 1, got {self.sims}")
        if self.leaves_per_tree < 1:
            raise ValueError(f"search.leaves_per_tree must be >= 1, got {self.leaves_per_tree}")
        if not 0 <= self.dirichlet_eps <= 1:
            raise ValueError(f"search.dirichlet_eps must be in [0, 1], got {self.dirichlet_eps}")
        if self.c_puct <= 0:
            raise ValueError(f"search.c_puct must be > 0, got {self.c_puct}")
        if self.gumbel_m < 1:
            raise ValueError(f"search.gumbel_m must be >= 1, got {self.gumbel_m}")


@dataclass
class SearchResult:
    """Root statistics of one search, aligned with the root's legal-move slots.

    Arrays: moves/actions [B, M] int32 (-1 padded), visits [B, M] float32, policy [B, M]
    float32 (training target: visit shares, or the Gumbel improved policy), n_legal [B],
    chosen [B] int32 slot of the move to play (-1 for finished games), value [B] root value.
    """

    moves: np.ndarray
    actions: np.ndarray
    visits: np.ndarray
    policy: np.ndarray
    n_legal: np.ndarray
    chosen: np.ndarray
    value: np.ndarray


# ----- kernels ------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _terminal_value(board) -> float:
    """Exact value of a finished position for the side to move there."""
    status = board[STATUS]
    if status == 3:
        return 0.0
    mover = board[PLY] & 1
    winner = 0 if status == 1 else 1
    return 1.0 if winner == mover else -1.0


@njit(cache=True, nogil=True)
def _pick_edge(b, node, first, count, node_visits, node_wsum, edge_prior, edge_child, c_puct, fpu):
    """PUCT: argmax Q + c * P * sqrt(N) / (1 + n) over the node's edges."""
    n_parent = node_visits[b, node]
    q_parent = node_wsum[b, node] / n_parent if n_parent > 0 else 0.0
    sq = math.sqrt(max(n_parent, 1.0))
    best = first
    best_score = -1e30
    for e in range(first, first + count):
        child = edge_child[b, e]
        if child >= 0 and node_visits[b, child] > 0:
            q = -node_wsum[b, child] / node_visits[b, child]
            n = node_visits[b, child]
        else:
            q = q_parent - fpu
            n = 0.0
        score = q + c_puct * edge_prior[b, e] * sq / (1.0 + n)
        if score > best_score:
            best_score = score
            best = e
    return best


@njit(cache=True, nogil=True)
def _forced_root_edge(b, root, node_first, node_count, edge_child, node_visits, cand):
    """Gumbel root: the remaining candidate with the fewest visits (first on ties)."""
    first = node_first[b, root]
    best = -1
    best_n = 1e30
    for i in range(node_count[b, root]):
        if cand[b, i] != 1:
            continue
        child = edge_child[b, first + i]
        n = node_visits[b, child] if child >= 0 else 0.0
        if n < best_n:
            best_n = n
            best = first + i
    return best


def _select(root_boards, root_hists, roots, node_parent, node_first, node_count, node_visits,
            node_wsum, node_term, node_term_value, n_nodes, edge_move, edge_prior, edge_child,
            leaf_boards, leaf_hists, leaf_node, leaf_status, leaf_value, c_puct, fpu, root_fpu, vl,
            gumbel, cand):
    B = root_boards.shape[0]
    L = leaf_node.shape[0] // B
    N = node_parent.shape[1]
    for b in prange(B):
        for k in range(L):
            i = b * L + k
            leaf_boards[i, :] = root_boards[b]
            leaf_hists[i, :] = root_hists[b]
            node = roots[b]
            leaf_status[i] = LEAF_SKIP
            leaf_node[i] = -1
            if node_count[b, node] < 0:
                continue  # root not expanded (finished game)
            while True:
                if node_term[b, node] == 1:
                    leaf_status[i] = LEAF_TERMINAL
                    leaf_value[i] = node_term_value[b, node]
                    break
                count = node_count[b, node]
                if count < 0:
                    leaf_status[i] = LEAF_SKIP  # pending evaluation from another leaf
                    break
                if gumbel and node == roots[b]:
                    e = _forced_root_edge(b, node, node_first, node_count, edge_child, node_visits, cand)
                else:
                    e = _pick_edge(b, node, node_first[b, node], count, node_visits, node_wsum,
                                   edge_prior, edge_child, c_puct, root_fpu if node == roots[b] else fpu)
                play(leaf_boards[i], leaf_hists[i], edge_move[b, e])
                child = edge_child[b, e]
                if child < 0:
                    if n_nodes[b] >= N:
                        break  # tree full: skip this simulation
                    child = n_nodes[b]
                    n_nodes[b] += 1
                    edge_child[b, e] = child
                    node_parent[b, child] = node
                    node_count[b, child] = -1
                    node_visits[b, child] = 0.0
                    node_wsum[b, child] = 0.0
                    if leaf_boards[i, STATUS] != IN_PROGRESS:
                        node_term[b, child] = 1
                        node_term_value[b, child] = _terminal_value(leaf_boards[i])
                        leaf_status[i] = LEAF_TERMINAL
                        leaf_value[i] = node_term_value[b, child]
                    else:
                        node_term[b, child] = 0
                        leaf_status[i] = LEAF_EVAL
                    node = child
                    break
                node = child
            leaf_node[i] = node
            if leaf_status[i] != LEAF_SKIP:
                v = node
                while v != roots[b]:  # virtual loss: the path looks lost to its choosers
                    node_visits[b, v] += vl
                    node_wsum[b, v] += vl
                    v = node_parent[b, v]


@njit(cache=True, nogil=True)
def _softmax_into(logits, n, out, first):
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


def _expand_backup(roots, node_parent, node_first, node_count, node_visits, node_wsum, n_edges,
                   edge_move, edge_action, edge_prior, edge_prior_raw, edge_child,
                   leaf_node, leaf_status, leaf_value, leaf_row, logits, values, moves,
                   legal_actions, n_legal, vl):
    B = roots.shape[0]
    L = leaf_node.shape[0] // B
    E = edge_move.shape[1]
    for b in prange(B):
        for k in range(L):
            i = b * L + k
            status = leaf_status[i]
            if status == LEAF_SKIP:
                continue
            node = leaf_node[i]
            value = leaf_value[i]
            if status == LEAF_EVAL:
                r = leaf_row[i]
                value = values[r]
                n = n_legal[r]
                if node_count[b, node] < 0 and n_edges[b] + n <= E:
                    first = n_edges[b]
                    n_edges[b] += n
                    for j in range(n):
                        edge_move[b, first + j] = moves[r, j]
                        edge_action[b, first + j] = legal_actions[r, j]
                        edge_child[b, first + j] = -1
                    _softmax_into(logits[r], n, edge_prior[b], first)
                    for j in range(n):
                        edge_prior_raw[b, first + j] = edge_prior[b, first + j]
                    node_first[b, node] = first
                    node_count[b, node] = n
            v = node
            while True:
                if v != roots[b]:
                    node_visits[b, v] -= vl
                    node_wsum[b, v] -= vl
                node_visits[b, v] += 1.0
                node_wsum[b, v] += value
                if v == roots[b]:
                    break
                value = -value
                v = node_parent[b, v]


# Each kernel in a parallel version (prange over games) and a serial one: thread start-up
# costs more than the work when there are few games.
def _twin(fn, suffix: str):
    """A copy of ``fn`` under another name, so the two compiled versions cache apart."""
    twin = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__ + suffix, fn.__defaults__)
    twin.__qualname__ = fn.__qualname__ + suffix
    return twin


_select_par = njit(parallel=True, nogil=True, cache=True)(_twin(_select, "_par"))
_select_ser = njit(nogil=True, cache=True)(_twin(_select, "_ser"))
_expand_backup_par = njit(parallel=True, nogil=True, cache=True)(_twin(_expand_backup, "_par"))
_expand_backup_ser = njit(nogil=True, cache=True)(_twin(_expand_backup, "_ser"))
PARALLEL_MIN_GAMES = 8


@njit(cache=True, nogil=True)
def _encode_serial(boards, obs, moves, errors):
    encode_games(boards, obs, moves, errors, 0, boards.shape[0])


# ----- the search -----------------------------------------------------------------------------


class BatchedMCTS:
    """Tree search for B games of one game type, with optional tree reuse between moves.

    Args:
        config: search settings.
        batch: number of games B.
        expansions: game type bits of every game.
        evaluate: the network (see the module docstring).
        max_legal: M of the observations.
    """

    def __init__(self, config: SearchConfig, batch: int, expansions: int, evaluate: Evaluate,
                 max_legal: int = MAX_LEGAL):
        self.config = config
        self.B = batch
        self.expansions = expansions
        self.evaluate = evaluate
        self.max_legal = max_legal
        L = config.leaves_per_tree
        self.N = config.max_nodes or (config.sims * config.leaves_per_tree * 3 + 64)
        self.E = self.N * config.edges_per_node
        B, N, E = batch, self.N, self.E
        self.node_parent = np.full((B, N), -1, np.int32)
        self.node_first = np.zeros((B, N), np.int32)
        self.node_count = np.full((B, N), -1, np.int32)
        self.node_visits = np.zeros((B, N), np.float32)
        self.node_wsum = np.zeros((B, N), np.float32)
        self.node_term = np.zeros((B, N), np.int8)
        self.node_term_value = np.zeros((B, N), np.float32)
        self.n_nodes = np.ones(B, np.int32)
        self.n_edges = np.zeros(B, np.int32)
        self.edge_move = np.zeros((B, E), np.int32)
        self.edge_action = np.zeros((B, E), np.int32)
        self.edge_prior = np.zeros((B, E), np.float32)
        self.edge_prior_raw = np.zeros((B, E), np.float32)
        self.edge_child = np.full((B, E), -1, np.int32)
        self.roots = np.zeros(B, np.int32)
        self.root_key = np.full(B, -1, np.int64)  # hash + ply of the position the root holds
        self.cand = np.zeros((B, max_legal), np.int8)
        self.leaf_boards = np.zeros((B * L, BOARD_SIZE), np.int16)
        self.leaf_hists = np.zeros((B * L, HIST), np.uint64)
        self.leaf_node = np.zeros(B * L, np.int32)
        self.leaf_status = np.zeros(B * L, np.int8)
        self.leaf_value = np.zeros(B * L, np.float32)
        self.leaf_row = np.full(B * L, -1, np.int32)
        self._obs = allocate_observation(B * L, expansions, max_legal)
        self._moves = allocate_moves(B * L)
        self._errors = np.zeros(B * L, np.int8)
        self.timings = {"tree": 0.0, "env": 0.0, "net": 0.0, "sims": 0}
        """Seconds spent in tree kernels, leaf encoding and the network; simulations run."""

    # ----- tree bookkeeping ---------------------------------------------------------------------
    def reset(self, games: np.ndarray | None = None) -> None:
        """Forget the trees of ``games`` (all by default)."""
        idx = np.arange(self.B) if games is None else np.asarray(games)
        self.roots[idx] = 0
        self.n_nodes[idx] = 1
        self.n_edges[idx] = 0
        self.node_count[idx, 0] = -1
        self.node_visits[idx, 0] = 0
        self.node_wsum[idx, 0] = 0
        self.node_term[idx, 0] = 0
        self.node_parent[idx, 0] = -1
        self.root_key[idx] = -1

    def advance(self, game: int, slot: int, board: np.ndarray, hist: np.ndarray) -> None:
        """Keep the subtree of the root child at ``slot`` as the next root (tree reuse).

        ``board``/``hist`` are the position after the move; the tree is dropped when
        reuse is off, the child was never expanded, or capacity is running low.
        """
        root = self.roots[game]
        child = -1
        if self.config.tree_reuse and self.node_count[game, root] > slot >= 0:
            child = int(self.edge_child[game, self.node_first[game, root] + slot])
        fresh = self.config.sims * self.config.leaves_per_tree + 1
        room = self.N - self.n_nodes[game] > fresh
        edge_room = self.E - self.n_edges[game] > fresh * self.config.edges_per_node
        if child < 0 or self.node_count[game, child] < 0 or not room or not edge_room:
            self.reset(np.array([game]))
            return
        self.roots[game] = child
        self.root_key[game] = _key(board, hist)

    # ----- search ------------------------------------------------------------------------------
    def search(self, boards: np.ndarray, hists: np.ndarray, seeds: np.ndarray, add_noise: bool,
               temperature: np.ndarray | float = 0.0) -> SearchResult:
        """Run ``config.sims`` simulations in every game and choose a move per game.

        Args:
            boards: [B, BOARD_SIZE] int16 root positions (not modified).
            hists: [B, 64] uint64 hash rings.
            seeds: [B] int, one RNG stream per game for root noise and move sampling, so a
                game searched alone or in a batch gives the same result.
            add_noise: Dirichlet (or Gumbel) exploration at the root (self-play).
            temperature: [B] or scalar; 0 plays the most visited move (PUCT).

        Returns:
            SearchResult with root statistics per legal-move slot.
        """
        cfg = self.config
        B = self.B
        boards = self._rb = np.array(boards, dtype=np.int16, order="C")
        hists = self._rh = np.array(hists, dtype=np.uint64, order="C")
        if boards.shape != (B, BOARD_SIZE) or hists.shape != (B, HIST):
            raise ValueError(f"expected boards [{B}, {BOARD_SIZE}] and hists [{B}, {HIST}]")
        rngs = [np.random.default_rng(int(s)) for s in np.asarray(seeds).reshape(B)]
        keys = np.array([_key(boards[b], hists[b]) for b in range(B)])
        stale = np.flatnonzero(keys != self.root_key)
        if stale.size:
            self.reset(stale)
            self.root_key[stale] = keys[stale]
        # Root: evaluate (for priors and Gumbel logits) and expand where needed.
        root_obs, root_moves = observe_batch_with_moves(boards, self.max_legal)
        logits, values = self.evaluate(root_obs)
        logits = self._last_logits = np.asarray(logits, np.float32)
        values = np.asarray(values, np.float32)
        n_legal = root_obs["n_legal"].copy()
        for b in range(B):
            root = self.roots[b]
            n = int(n_legal[b])
            if n == 0:
                continue
            if self.node_count[b, root] < 0:
                first = int(self.n_edges[b])
                self.n_edges[b] += n
                self.edge_move[b, first:first + n] = root_moves[b, :n]
                self.edge_action[b, first:first + n] = root_obs["legal_actions"][b, :n]
                self.edge_child[b, first:first + n] = -1
                p = _softmax(logits[b, :n])
                self.edge_prior_raw[b, first:first + n] = p
                self.node_first[b, root] = first
                self.node_count[b, root] = n
                if self.node_visits[b, root] == 0:
                    self.node_visits[b, root] = 1.0
                    self.node_wsum[b, root] = float(values[b])
            first = int(self.node_first[b, root])
            p = self.edge_prior_raw[b, first:first + n].copy()
            if add_noise and not cfg.gumbel and cfg.dirichlet_eps > 0 and n > 1:
                noise = rngs[b].dirichlet(np.full(n, cfg.dirichlet_alpha))
                p = (1 - cfg.dirichlet_eps) * p + cfg.dirichlet_eps * noise
            self.edge_prior[b, first:first + n] = p
        gumbel_state = self._gumbel_init(logits, n_legal, rngs, add_noise) if cfg.gumbel else None

        L = cfg.leaves_per_tree
        if cfg.gumbel:
            m = max(1, min(cfg.gumbel_m, int(n_legal.max(initial=1))))
            ends = halving_schedule(cfg.sims, m)
            steps = -(-ends[-1] // L)
            phase_ends = {-(-e // L) for e in ends[:-1]}
        else:
            steps, phase_ends = -(-cfg.sims // L), set()
        for step in range(steps):
            self._step()
            if cfg.gumbel and step + 1 in phase_ends:
                self._gumbel_prune(gumbel_state, n_legal)
        return self._result(n_legal, values, rngs, temperature, gumbel_state, logits)

    def _step(self) -> None:
        """One batched simulation: select (compiled), encode + evaluate the leaves, back up."""
        cfg = self.config
        parallel = self.B >= PARALLEL_MIN_GAMES
        select = _select_par if parallel else _select_ser
        expand_backup = _expand_backup_par if parallel else _expand_backup_ser
        t0 = time.perf_counter()
        select(self._rb, self._rh, self.roots, self.node_parent, self.node_first, self.node_count,
               self.node_visits, self.node_wsum, self.node_term, self.node_term_value, self.n_nodes,
               self.edge_move, self.edge_prior, self.edge_child, self.leaf_boards, self.leaf_hists,
               self.leaf_node, self.leaf_status, self.leaf_value, cfg.c_puct, cfg.fpu_reduction,
               cfg.root_fpu_reduction, cfg.virtual_loss, cfg.gumbel, self.cand)
        need = np.flatnonzero(self.leaf_status == LEAF_EVAL)
        self.leaf_row[:] = -1
        self.leaf_row[need] = np.arange(need.size, dtype=np.int32)
        t1 = time.perf_counter()
        k = need.size
        sub = {key: v[:k] for key, v in self._obs.items()}
        logits = np.zeros((1, self.max_legal), np.float32)
        values = np.zeros(1, np.float32)
        t2 = t1
        if k:
            self._errors[:k] = 0
            encode = encode_batch_kernel if k > PARALLEL_MIN_GAMES else _encode_serial
            encode(self.leaf_boards[need], obs_tuple(sub), self._moves[:k], self._errors[:k])
            raise_encoding_errors(self._errors[:k], self.max_legal)
            t2 = time.perf_counter()
            logits, values = self.evaluate(sub)
            logits = np.ascontiguousarray(logits, np.float32)
            values = np.ascontiguousarray(values, np.float32)
        t3 = time.perf_counter()
        expand_backup(self.roots, self.node_parent, self.node_first, self.node_count, self.node_visits,
                      self.node_wsum, self.n_edges, self.edge_move, self.edge_action, self.edge_prior,
                      self.edge_prior_raw, self.edge_child, self.leaf_node, self.leaf_status,
                      self.leaf_value, self.leaf_row, logits, values, self._moves, sub["legal_actions"],
                      sub["n_legal"], cfg.virtual_loss)
        t4 = time.perf_counter()
        self.timings["tree"] += (t1 - t0) + (t4 - t3)
        self.timings["env"] += t2 - t1
        self.timings["net"] += t3 - t2
        self.timings["sims"] += k + int((self.leaf_status == LEAF_TERMINAL).sum())

    # ----- root statistics and move choice ----------------------------------------------------
    def _child_stats(self, b: int, n: int) -> tuple[np.ndarray, np.ndarray]:
        root = self.roots[b]
        first = int(self.node_first[b, root])
        child = self.edge_child[b, first:first + n]
        visits = np.where(child >= 0, self.node_visits[b, np.maximum(child, 0)], 0.0).astype(np.float32)
        wsum = np.where(child >= 0, self.node_wsum[b, np.maximum(child, 0)], 0.0)
        q = np.where(visits > 0, -wsum / np.maximum(visits, 1e-9), np.nan)
        return visits, q

    def _completed_q(self, b: int, n: int, logits_b: np.ndarray, visits: np.ndarray, q: np.ndarray,
                     root_value: float) -> np.ndarray:
        """sigma(completed q) of the Gumbel paper, for all n root actions."""
        cfg = self.config
        prior = _softmax(logits_b[:n])
        seen = visits > 0
        total = visits.sum()
        if seen.any():
            weighted = (prior[seen] * q[seen]).sum() / max(prior[seen].sum(), 1e-9)
            v_mix = (root_value + total * weighted) / (1.0 + total)
        else:
            v_mix = root_value
        completed = np.where(seen, q, v_mix)
        lo, hi = completed.min(), completed.max()
        normed = (completed - lo) / (hi - lo) if hi > lo else np.full(n, 0.5)
        return (cfg.gumbel_c_visit + visits.max()) * cfg.gumbel_c_scale * normed

    def _gumbel_init(self, logits, n_legal, rngs, add_noise):
        cfg = self.config
        g = np.zeros((self.B, self.max_legal), np.float64)
        self.cand[:] = 0
        for b in range(self.B):
            n = int(n_legal[b])
            if n == 0:
                continue
            g[b, :n] = rngs[b].gumbel(size=n) if add_noise else 0.0
            score = g[b, :n] + logits[b, :n]
            top = np.argsort(-score, kind="stable")[: min(cfg.gumbel_m, n)]
            self.cand[b, top] = 1
        return g

    def _gumbel_prune(self, g, n_legal) -> None:
        for b in range(self.B):
            n = int(n_legal[b])
            alive = np.flatnonzero(self.cand[b, :n] == 1)
            if alive.size <= 1:
                continue
            visits, q = self._child_stats(b, n)
            root = self.roots[b]
            root_value = float(self.node_wsum[b, root] / max(self.node_visits[b, root], 1.0))
            sigma = self._completed_q(b, n, self._last_logits[b], visits, q, root_value)
            score = g[b, :n] + self._last_logits[b, :n] + sigma
            keep = alive[np.argsort(-score[alive], kind="stable")[: -(-alive.size // 2)]]
            self.cand[b, :n] = 0
            self.cand[b, keep] = 1

    def _result(self, n_legal, values, rngs, temperature, g, logits) -> SearchResult:
        B, M = self.B, self.max_legal
        out = SearchResult(
            moves=np.full((B, M), -1, np.int32), actions=np.full((B, M), -1, np.int32),
            visits=np.zeros((B, M), np.float32), policy=np.zeros((B, M), np.float32),
            n_legal=n_legal.astype(np.int32), chosen=np.full(B, -1, np.int32),
            value=np.zeros(B, np.float32),
        )
        temps = np.broadcast_to(np.asarray(temperature, np.float64), (B,))
        for b in range(B):
            n = int(n_legal[b])
            if n == 0:
                continue
            root = self.roots[b]
            first = int(self.node_first[b, root])
            out.moves[b, :n] = self.edge_move[b, first:first + n]
            out.actions[b, :n] = self.edge_action[b, first:first + n]
            visits, q = self._child_stats(b, n)
            out.visits[b, :n] = visits
            out.value[b] = self.node_wsum[b, root] / max(self.node_visits[b, root], 1.0)
            if self.config.gumbel:
                sigma = self._completed_q(b, n, logits[b], visits, q, float(values[b]))
                out.policy[b, :n] = _softmax(logits[b, :n] + sigma)
                alive = np.flatnonzero(self.cand[b, :n] == 1)
                score = g[b, :n] + logits[b, :n] + sigma
                out.chosen[b] = alive[np.argmax(score[alive])]
            else:
                total = visits.sum()
                out.policy[b, :n] = visits / total if total > 0 else 1.0 / n
                if temps[b] <= 1e-6 or total == 0:
                    out.chosen[b] = int(np.argmax(visits))
                else:
                    w = visits.astype(np.float64) ** (1.0 / temps[b])
                    out.chosen[b] = int(rngs[b].choice(n, p=w / w.sum()))
        return out


def halving_schedule(sims: int, m: int) -> list[int]:
    """Cumulative simulation counts at the end of each sequential-halving phase.

    ``ceil(log2 m)`` phases; a phase with ``k`` candidates gives each of them
    ``max(1, sims // (phases * k))`` visits (Gumbel MuZero), so every survivor is visited in
    every phase even when that takes a few more than ``sims`` simulations in all.
    """
    phases = max(1, math.ceil(math.log2(m))) if m > 1 else 1
    ends, total, k = [], 0, m
    for _ in range(phases):
        total += k * max(1, sims // (phases * k))
        ends.append(total)
        k = max(1, -(-k // 2))
    return ends


def _softmax(x: np.ndarray) -> np.ndarray:
    z = np.exp(x - x.max())
    return (z / z.sum()).astype(np.float32)


def _key(board: np.ndarray, hist: np.ndarray) -> int:
    """Identity of a root position: its hash and ply (tree reuse must match both)."""
    ply = int(board[PLY])
    return (int(hist[ply % HIST]) & 0x7FFF_FFFF_FFFF) * 1024 + (ply & 1023)
