"""Batched AlphaZero tree search (PUCT, or a Gumbel root) over many games at once.

Each search step selects leaves in every tree with compiled kernels (``search.kernels``), serves
cached ones and encodes the rest (``search.step``, ``search.cache``, ``search.leaves``), evaluates
them in one call of the injected network, and expands and backs up with compiled kernels: no
Python per leaf, node or game. The root's exploration, schedule and move choice are a root
policy's (``search.root_policy``), chosen once; exact tactics (proven values) live in the tree.

See docs/search.md.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass

import numba
import numpy as np

from hive_zero.checks import RangeError, bounded, check_ranges

from . import gumbel
from .cache import NO_LOGIT, EvalCache, as_outputs
from .kernels import (
    PARALLEL_MIN_GAMES,
    SelectParams,
    expand_backup_parallel,
    expand_backup_serial,
    select_parallel,
    select_serial,
)
from .leaves import (
    BOARD_SIZE,
    CHUNK,
    HIST,
    MAX_LEGAL,
    PLY,
    PROVEN_LOSS,
    PROVEN_WIN,
    UNPROVEN,
    LeafBatch,
    LeafEncoder,
    adjudicate_leaves_,
    allocate_leaves,
    launching,
    observe_roots,
    position_keys,
    tactics_buffers,
)
from .root_gumbel import GumbelRoot
from .root_policy import RootPolicy, RootState
from .root_puct import PuctRoot
from .roots import DROPPED_FOR_SIZE, KEPT, advance_trees, check_roots, root_stats
from .step import (
    STEP_DONE,
    STEP_ENCODING_ERROR,
    STEP_NEEDS_EDGES,
    STEP_NEEDS_NODES,
    STEP_NO_ROOM,
    STEP_NO_SIMULATION,
    allocate_outputs,
    begin_step,
    end_step,
    gather_leaves,
    scatter_misses,
)
from .tree import (
    LEAF_NO_ROOM,
    NO_NODE,
    UNEXPANDED,
    Tree,
    allocate_tree,
    grow_tree,
    reset_trees_,
)

Evaluate = Callable[[dict], tuple[np.ndarray, np.ndarray]]


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
        gumbel_m: candidate actions sampled at the root (paper: 16); per game at most its
            number of legal moves.
        gumbel_c_visit, gumbel_c_scale: sigma(q) = (c_visit + max N) * c_scale * q (50, 0.1).
        tree_reuse: keep the chosen child's subtree for the next move.
        max_nodes: nodes a kept tree may hold: at the next move it is compacted to the played
            move's subtree, dropped if that could not take one more search within this
            (0 = 3 * nodes_per_search + 64). At least
            ``nodes_per_search`` (one search's nodes). Not a hard cap: arrays grow on demand.
        edges_per_node: initial edge room per node (typical legal moves: Base ~30,
            Base+MLP 50-150); the edge arrays grow on demand.
        eval_cache: positions whose network output is kept (``search.cache.EvalCache``:
            transpositions and re-searched roots skip the network); 0 = no cache. About
            1.2 KB a position of capacity (arrays, their pages touched as they fill); the
            oldest are dropped first.
        contempt: what a draw (a repetition, both queens surrounded; finished or proven in the
            tree) costs the side to move at the root: it is worth ``-contempt`` to that side and
            ``+contempt`` to the other (chess engines' contempt: against a weaker opponent a draw
            gives away expected score). 0 in self-play, whose targets must not learn it.
    """

    sims: int = bounded(64, ge=1)
    c_puct: float = bounded(1.5, gt=0.0)
    fpu_reduction: float = 0.2
    root_fpu_reduction: float = 0.0
    dirichlet_alpha: float = 0.3
    dirichlet_eps: float = bounded(0.25, ge=0.0, le=1.0)
    leaves_per_tree: int = bounded(1, ge=1)
    virtual_loss: float = 1.0
    gumbel: bool = False
    gumbel_m: int = bounded(16, ge=1)
    gumbel_c_visit: float = 50.0
    gumbel_c_scale: float = 0.1
    tree_reuse: bool = True
    max_nodes: int = 0
    edges_per_node: int = bounded(64, ge=1)
    eval_cache: int = bounded(20_000, ge=0)
    contempt: float = bounded(0.0, ge=0.0, le=1.0)

    def __post_init__(self):
        check_ranges(self)
        if self.max_nodes and self.max_nodes < self.nodes_per_search:
            raise RangeError("max_nodes", f"must be 0 (automatic) or >= {self.nodes_per_search} (one "
                             f"search's nodes: simulations + root), got {self.max_nodes}")

    def sims_per_search(self, n_legal: int) -> int:
        """Simulations one search performs at a root with ``n_legal`` moves (0: finished)."""
        return self.root_policy().sims_done(self.sims, n_legal) if n_legal > 0 else 0

    def root_policy(self) -> RootPolicy:
        """The root policy (``search.root_policy``): the one place that reads ``gumbel``."""
        if self.gumbel:
            return GumbelRoot(self.gumbel_m, self.gumbel_c_visit, self.gumbel_c_scale)
        return PuctRoot(self.dirichlet_alpha, self.dirichlet_eps)

    @functools.cached_property
    def nodes_per_search(self) -> int:
        """Most nodes one search adds to a tree (one per simulation), plus its root."""
        return max(self.sims_per_search(n) for n in range(1, self.gumbel_m + 1)) + 1

    @property
    def node_limit(self) -> int:
        """``max_nodes``, or its automatic value."""
        return self.max_nodes or 3 * self.nodes_per_search + 64


@dataclass
class SearchResult:
    """Root statistics of one search, aligned with the root's legal-move slots.

    Arrays: moves/actions [B, M] int32 (-1 padded), visits [B, M] float32, policy [B, M]
    float32 (training target: visit shares, or the Gumbel improved policy), n_legal [B] int32,
    chosen [B] int32 slot of the move to play (-1 for finished games), value [B] float32 root
    value, sims_done [B] int32 simulations this search performed (``sims`` or the Gumbel
    schedule's total; 0 for finished games), proof [B] int8 the root's proof code for its side
    to move (``search.leaves.PROVEN_*``, 0 = unproven), move_proof [B, M] int8 each move's proof
    code for the same side, proof_plies [B] int32 at a root proven won or lost the plies to the
    end the tree proves after the chosen move (the move included), else -1.
    """

    moves: np.ndarray
    actions: np.ndarray
    visits: np.ndarray
    policy: np.ndarray
    n_legal: np.ndarray
    chosen: np.ndarray
    value: np.ndarray
    sims_done: np.ndarray
    proof: np.ndarray
    move_proof: np.ndarray
    proof_plies: np.ndarray


@dataclass
class _Search:
    """The state of one search call (never kept between calls); arrays are per game [B] or per
    game and root move slot [B, M]."""

    boards: np.ndarray
    """[B, BOARD_SIZE] the roots."""
    hists: np.ndarray
    """[B, HIST] the roots' hash rings."""
    roots: RootState
    """The roots' legal-move counts, network outputs, random streams, noise and candidates."""
    phase_ends: np.ndarray
    """[B, P] int64 cumulative simulations at the end of each phase (the root policy's; padded
    with the total)."""
    phase: np.ndarray
    """[B] the current phase."""
    last_phase: np.ndarray
    """[B] each game's last phase."""
    sims_done: np.ndarray
    """[B] simulations performed so far."""
    wins_now: np.ndarray
    """[B, M] bool the root moves that win at once (the root checks)."""
    leaves: LeafBatch
    """The step's leaf rows."""
    select_params: SelectParams
    """The select kernel's settings."""
    draws: np.ndarray
    """[B, 2] float32 a draw's value for the side to move, by colour (:func:`draw_values`)."""


class BatchedMCTS:
    """Tree search for B games of one game type, with optional tree reuse between moves.

    ``evaluate(obs) -> (policy_logits [L, M] float32, values [L] float32)`` receives the
    observation dict of ``hive_env.encode`` for L leaves; values are for the side to move. Each
    root's exact checks before a search, its statistics after it, and tree reuse are one compiled
    call for all games (``search.roots``); per game Python only draws from its own random stream
    (root noise, a move sampled at a temperature), and at Gumbel phase ends.

    Every search performs exactly its simulations per game (``SearchResult.sims_done``): ``sims``
    with PUCT, the halving schedule's total with the Gumbel root, 0 when the root is finished.
    Room is made before each kernel call (``search.tree.grow_tree``), a leaf that runs into a node
    still awaiting evaluation is selected again in the next step, and a game that has done its
    simulations selects nothing. Simulations ending in a finished position count; finished
    positions are valued exactly.

    Exact tactics: proven values are kept in the tree and passed up (MCTS-Solver,
    ``search.kernels``), every expansion checks which moves end the game at once, and every root
    also which moves let the opponent win at once (``scan_root``): those are proven losses, never
    entered while another move exists. A root proven won plays a win in one, else the fastest win
    the tree proves (the solver itself knows no distances); a root proven lost the slowest loss; a
    move proven lost is never chosen while another is not. ``SearchResult.proof`` and
    ``move_proof`` report what was proven; the training targets are made as before (visit shares,
    or the Gumbel policy from the visited moves' mean values).

    Trees are kept between moves until a tree holds ``max_nodes`` nodes; then it is dropped at the
    next move, which bounds memory (nodes, and so edges: at most M per node). A kept root already
    expanded is not evaluated again (PUCT; the Gumbel root needs the network's logits and value,
    which the evaluation cache then serves). Network outputs are kept by position in a bounded
    :class:`search.cache.EvalCache` (``eval_cache``); a new network (``evaluate`` set again, or
    :meth:`clear_cache`) empties it.

    Args:
        config: search settings.
        batch: number of games B.
        expansions: game type bits of every game.
        evaluate: the network (above); may be replaced between searches.
        max_legal: M of the observations.
        adjudicate_margin: value a position drawn by the ply cap by ``hive_env.outcome.adjudicate``
            with this margin, as self-play labels capped games (``selfplay.adjudicate_margin``);
            0 = such a position is a draw.
    """

    def __init__(self, config: SearchConfig, batch: int, expansions: int, evaluate: Evaluate,
                 max_legal: int = MAX_LEGAL, adjudicate_margin: int = 0):
        self.config = config
        self.adjudicate_margin = int(adjudicate_margin)
        self.B = batch
        self.expansions = expansions
        self.cache = EvalCache(config.eval_cache)
        self.evaluate = evaluate
        self.max_legal = max_legal
        self.root: RootPolicy = config.root_policy()
        """The root policy (``search.root_policy``), chosen here once: the search itself never
        branches on ``config.gumbel``."""
        per_search = config.nodes_per_search
        self.tree: Tree = allocate_tree(batch, config.node_limit, per_search * config.edges_per_node)
        self.root_key = np.full(batch, -1, np.int64)  # position_key of the position each root holds
        self._encoder = LeafEncoder(batch * config.leaves_per_tree, expansions, max_legal)
        self._outputs = allocate_outputs(batch * config.leaves_per_tree, max_legal)
        self._counts = np.zeros(3, np.int64)  # a step's performed simulations, collisions, edges needed
        self._tactics_buf = None  # scratch of the root checks, made on first use
        self.one_call_steps = True
        """Run each step as two compiled calls (``search.step.begin_step`` / ``end_step``) where it
        runs on one thread: one numba thread, or fewer games than ``PARALLEL_MIN_GAMES`` and
        leaves than an encoder chunk. False: the separate calls (the same trees; benchmarks
        compare the two)."""
        self.timings = {"tree": 0.0, "env": 0.0, "net": 0.0, "sims": 0, "collisions": 0, "resets": 0}
        """Seconds in tree kernels, leaf encoding and the network; simulations performed;
        leaf selections that ran into a pending node and were retried (leaves_per_tree > 1);
        kept trees dropped for size at ``advance``. In the two-call steps the encoding runs
        inside the first call, so its seconds count as ``tree`` there (``env`` stays 0)."""

    @property
    def evaluate(self) -> Evaluate:
        """The network; setting it (even to the same evaluator with new weights) empties the cache."""
        return self._evaluate

    @evaluate.setter
    def evaluate(self, evaluate: Evaluate) -> None:
        self._evaluate = evaluate
        self.cache.clear()

    def clear_cache(self) -> None:
        """Forget every cached network output (the network's weights changed)."""
        self.cache.clear()

    # ----- tree bookkeeping ---------------------------------------------------------------------
    def reset(self, games: np.ndarray | None = None) -> None:
        """Forget the trees of ``games`` (all by default)."""
        idx = np.arange(self.B) if games is None else np.asarray(games)
        reset_trees_(self.tree, idx)
        self.root_key[idx] = -1

    def advance(self, game: int, slot: int, board: np.ndarray, hist: np.ndarray) -> None:
        """Keep the subtree of the root child at ``slot`` as the next root (tree reuse): game
        ``game``'s part of :meth:`advance_all`."""
        slots = np.full(self.B, -1, np.int64)
        slots[game] = slot
        boards = np.zeros((self.B, BOARD_SIZE), np.int16)
        hists = np.zeros((self.B, HIST), np.uint64)
        boards[game], hists[game] = board, hist
        self.advance_all(slots, boards, hists)

    def advance_all(self, slots: np.ndarray, boards: np.ndarray, hists: np.ndarray) -> None:
        """In every game whose ``slots[b] >= 0``, keep the subtree of the root child at that slot
        as the next root (tree reuse); ``boards``/``hists`` [B] are the positions after the moves.

        Each tree is compacted to the child's subtree (``search.tree.compact_tree_``: the rest is
        freed, the child becomes node 0); it is dropped when reuse is off, the child was never
        expanded, or the subtree could not take another search within ``max_nodes``.
        """
        cfg = self.config
        slots = np.ascontiguousarray(slots, np.int64)
        status = np.empty(self.B, np.int64)
        advance_trees(self.tree, slots, cfg.tree_reuse, cfg.node_limit, cfg.nodes_per_search, status)
        kept = status == KEPT
        self.root_key[(status >= 0) & ~kept] = -1
        self.root_key[kept] = position_keys(np.ascontiguousarray(boards[kept], np.int16),
                                            np.ascontiguousarray(hists[kept], np.uint64))
        self.timings["resets"] += int((status == DROPPED_FOR_SIZE).sum())

    def child_slot(self, game: int, move: int) -> int | None:
        """The root-edge slot of ``move`` in the kept tree of ``game`` (None: not expanded there)."""
        t = self.tree
        root = t.roots[game]
        n = int(t.node_count[game, root])
        if n == UNEXPANDED:
            return None
        first = int(t.node_first[game, root])
        slots = np.flatnonzero(t.edge_move[game, first:first + n] == move)
        return int(slots[0]) if slots.size else None

    def root_visits(self, game: int) -> float:
        """Visits of the root of ``game``'s kept tree (0 for a fresh tree)."""
        return float(self.tree.node_visits[game, self.tree.roots[game]])

    # ----- search ------------------------------------------------------------------------------
    def search(self, boards: np.ndarray, hists: np.ndarray, seeds: np.ndarray, add_noise: bool,
               temperature: np.ndarray | float = 0.0, stop: Callable[[], bool] | None = None,
               sims: int | None = None) -> SearchResult:
        """Run every game's simulations and choose a move per game.

        Args:
            boards: [B, BOARD_SIZE] int16 root positions (not modified).
            hists: [B, 64] uint64 hash rings.
            seeds: [B] int, one RNG stream per game for root noise and move sampling, so a
                game searched alone or in a batch gives the same result.
            add_noise: Dirichlet (or Gumbel) exploration at the root (self-play).
            temperature: [B] or scalar; 0 plays the most visited move (PUCT).
            stop: asked after every step; True ends the search early (a time cap): the move is
                then chosen from what was searched (Gumbel: among the surviving candidates),
                and ``sims_done`` says how many simulations ran.
            sims: simulations of this search instead of ``config.sims`` (at most that; the
                fast searches of playout-cap randomisation, ``training.selfplay``).

        Returns:
            SearchResult with root statistics per legal-move slot.
        """
        B = self.B
        boards = np.array(boards, dtype=np.int16, order="C")
        hists = np.array(hists, dtype=np.uint64, order="C")
        if boards.shape != (B, BOARD_SIZE) or hists.shape != (B, HIST):
            raise ValueError(f"expected boards [{B}, {BOARD_SIZE}] and hists [{B}, {HIST}]")
        if sims is not None and not 1 <= sims <= self.config.sims:
            raise ValueError(f"sims must be in 1..{self.config.sims} (search.sims), got {sims}")
        seeds = np.asarray(seeds, np.int64).reshape(B)
        keys = position_keys(boards, hists)
        stale = np.flatnonzero(keys != self.root_key)
        if stale.size:
            self.reset(stale)
            self.root_key[stale] = keys[stale]
        s = self._start(boards, hists, seeds, add_noise, sims or self.config.sims)
        L = self.config.leaves_per_tree
        one_thread = numba.get_num_threads() == 1 or (B < PARALLEL_MIN_GAMES and B * L <= CHUNK)
        if self.one_call_steps and one_thread:
            self._run_one_call_steps(s, stop)
            return self._result(s, temperature)
        while True:
            target = s.phase_ends[np.arange(B), s.phase]
            want = np.minimum(target - s.sims_done, L).astype(np.int32)
            if not want.any():
                break
            self._step(s, want)
            phase_over = np.flatnonzero((s.sims_done == target) & (s.phase < s.last_phase))
            for b in phase_over:
                self.root.end_phase(self.tree, s.roots, int(b))
            s.phase[phase_over] += 1
            if stop is not None and stop():
                break
        return self._result(s, temperature)

    def _start(self, boards, hists, seeds, add_noise, sims: int) -> _Search:
        """Evaluate and expand the roots, then let the root policy add its noise and lay out every
        game's schedule.

        The root policy says which roots go to the network (PUCT: those not expanded yet; the
        Gumbel root needs every root's logits and value, then a kept root is a cache hit)."""
        cfg, B, M = self.config, self.B, self.max_legal
        count = self.tree.node_count[np.arange(B), self.tree.roots]
        logits, values, n_legal, root_moves, root_actions, at = self._evaluate_roots(boards, count)
        fresh = (n_legal > 0) & (count == UNEXPANDED)
        t = self.tree = grow_tree(self.tree, self.tree.node_capacity,
                                  int((self.tree.n_edges + np.where(fresh, n_legal, 0)).max()))
        wins_now = np.zeros((B, M), bool)
        lost = np.zeros((B, M), bool)
        for b in np.flatnonzero(fresh):
            self._expand_root(int(b), int(n_legal[b]), root_moves[at[b]], root_actions[at[b]], logits[b],
                              float(values[b]))
        if self._tactics_buf is None:
            self._tactics_buf = (*tactics_buffers(), np.zeros(M, np.int8))
        buf, scratch, codes = self._tactics_buf
        check_roots(t, boards, hists, n_legal, fresh, lost, wins_now, buf, codes, scratch)
        roots = RootState(n_legal=n_legal, logits=logits, values=values, seeds=seeds,
                          noise=np.zeros((B, M), np.float64), candidates=np.zeros((B, M), np.int8))
        ends = [self.root.begin(t, roots, b, lost[b, :n_legal[b]], add_noise, sims) if n_legal[b] else [0]
                for b in range(B)]
        phase_ends, last_phase = _schedule(ends)
        params = SelectParams(float(cfg.c_puct), float(cfg.fpu_reduction), float(cfg.root_fpu_reduction),
                              float(cfg.virtual_loss), bool(self.root.forced_root))
        return _Search(
            boards=boards, hists=hists, roots=roots, phase_ends=phase_ends, phase=np.zeros(B, np.int64),
            last_phase=last_phase, sims_done=np.zeros(B, np.int64), wins_now=wins_now,
            leaves=allocate_leaves(B * cfg.leaves_per_tree), select_params=params,
            draws=draw_values(boards, cfg.contempt),
        )

    def _evaluate_roots(self, boards: np.ndarray, count: np.ndarray) -> tuple:
        """The network at the roots the root policy asks for (PUCT: those not expanded; Gumbel:
        all), through the cache. Returns logits [B, M], values [B], n_legal [B] (a kept root's
        from its tree), the evaluated roots' moves and actions, and each game's row among them
        (-1: none)."""
        B, M = self.B, self.max_legal
        rows = self.root.roots_to_evaluate(count)
        logits = np.full((B, M), NO_LOGIT, np.float32)
        values = np.zeros(B, np.float32)
        n_legal = np.where(count == UNEXPANDED, 0, count).astype(np.int32)
        root_moves = root_actions = None
        if rows.size:
            root_obs, root_moves = observe_roots(boards[rows], M)
            root_actions = root_obs["legal_actions"]
            lg, vals = self.cache.evaluate(self._evaluate, root_obs, boards[rows], root_moves)
            logits[rows] = lg
            values[rows] = vals
            n_legal[rows] = root_obs["n_legal"]
        at = np.full(B, -1, np.int64)
        at[rows] = np.arange(rows.size)
        return logits, values, n_legal, root_moves, root_actions, at

    def _expand_root(self, b: int, n: int, moves: np.ndarray, actions: np.ndarray, logits: np.ndarray,
                     value: float) -> None:
        """Give game b's unexpanded root its ``n`` edges (raw priors: the softmax of ``logits``)
        and, on its first visit, the network's ``value``."""
        t = self.tree
        root = t.roots[b]
        first = int(t.n_edges[b])
        t.n_edges[b] += n
        t.edge_move[b, first:first + n] = moves[:n]
        t.edge_action[b, first:first + n] = actions[:n]
        t.edge_child[b, first:first + n] = NO_NODE
        t.edge_proof[b, first:first + n] = UNPROVEN
        t.edge_prior_raw[b, first:first + n] = gumbel.softmax(logits[:n])
        t.node_first[b, root] = first
        t.node_count[b, root] = n
        if t.node_visits[b, root] == 0:
            t.node_visits[b, root] = 1.0
            t.node_wsum[b, root] = value

    def _proof_plies(self, b: int, node: int) -> int:
        """Plies to the end of game b's proven ``node`` under the tree's best play: a win as fast
        as the tree proves it, a loss as slow (a proven move without a child node ends the game)."""
        t = self.tree
        if t.node_terminal[b, node]:
            return 0
        code = int(t.node_proof[b, node])
        first, n = int(t.node_first[b, node]), int(t.node_count[b, node])
        best = None
        for e in range(first, first + n):
            if t.edge_proof[b, e] != code and code != PROVEN_LOSS:
                continue  # a win (or draw) is made by its winning (drawing) moves
            child = int(t.edge_child[b, e])
            plies = 1 if child == NO_NODE else 1 + self._proof_plies(b, child)
            if best is None or (plies < best if code != PROVEN_LOSS else plies > best):
                best = plies
        return 1 if best is None else best

    def _proven_choice(self, b: int, code: int, first: int, n: int, visits: np.ndarray,
                       win_now: np.ndarray) -> tuple[int, int]:
        """The root slot to play at a proven root: a win in one, else the proven win the tree
        shows to be fastest (a solver knows no distances: without this a won game could go on
        forever); at a lost root the slowest loss. Ties: the most visited. Returns the slot and
        the plies to the end the tree proves after it (the move included)."""
        t = self.tree
        if code == PROVEN_WIN and win_now.any():
            slots = np.flatnonzero(win_now)
        else:
            slots = np.flatnonzero(t.edge_proof[b, first:first + n] == code) if code == PROVEN_WIN \
                else np.arange(n)
        plies = []
        for slot in slots:
            child = int(t.edge_child[b, first + slot])
            plies.append(1 if child == NO_NODE else 1 + self._proof_plies(b, child))
        sign = 1 if code == PROVEN_WIN else -1
        order = sorted(range(len(slots)), key=lambda i: (sign * plies[i], -visits[slots[i]], i))
        return int(slots[order[0]]), plies[order[0]]

    def _run_one_call_steps(self, s: _Search, stop: Callable[[], bool] | None) -> None:
        """The search loop with every step two compiled calls around the network
        (``search.step.begin_step`` and ``end_step``): Python runs only to call the network, to
        grow a tree that is short of room, and at a Gumbel phase's end."""
        cfg, B, L = self.config, self.B, self.config.leaves_per_tree
        obs_buf, moves_buf, errors = self._encoder.buffers()
        out, counts = self._outputs, self._counts
        want, over = np.zeros(B, np.int32), np.zeros(B, np.int64)
        virtual_loss, margin = float(cfg.virtual_loss), self.adjudicate_margin
        table, cached = self.cache.table, self.cache.capacity > 0
        # the network's outputs of a step without misses (0 rows, the types of the real ones)
        none = (out.logits[:0], out.values[:0], moves_buf[:0], obs_buf.legal_actions[:0], obs_buf.n_legal[:0])
        while True:
            t0 = time.perf_counter()
            k = begin_step(self.tree, s.boards, s.hists, s.phase_ends, s.phase, s.sims_done, want, s.leaves,
                           s.select_params, s.roots.candidates, s.draws, margin, table, cached, out, counts,
                           obs_buf, moves_buf, errors)
            if k == STEP_NEEDS_NODES:
                self.tree = grow_tree(self.tree, int(self.tree.n_nodes.max()) + L, self.tree.edge_capacity)
                continue
            if k == STEP_DONE:
                break
            if k == STEP_ENCODING_ERROR:
                self._encoder.raise_errors()
            _check_step(k)
            net = 0.0
            outputs = none
            if k:
                obs, moves = self._encoder.rows(k)
                t1 = time.perf_counter()
                logits, values = as_outputs(self._evaluate(obs))
                net = time.perf_counter() - t1
                outputs = (logits, values, moves, obs["legal_actions"], obs["n_legal"])
            args = (s.draws, counts, s.phase_ends, s.phase, s.last_phase, s.sims_done, over)
            n = end_step(self.tree, s.leaves, table, cached, k, out, *outputs, virtual_loss, *args)
            if n == STEP_NEEDS_EDGES:  # the outputs are in their rows now: k = 0
                self.tree = grow_tree(self.tree, self.tree.node_capacity, int(counts[2]))
                n = end_step(self.tree, s.leaves, table, cached, 0, out, *none, virtual_loss, *args)
            _check_step(n)
            for b in over[:n]:
                self.root.end_phase(self.tree, s.roots, int(b))
            s.phase[over[:n]] += 1
            self._count_step(time.perf_counter() - t0 - net, 0.0, net)
            if stop is not None and stop():
                break

    def _step(self, s: _Search, want: np.ndarray) -> None:
        """One batched simulation step: select ``want[b]`` leaves per game (compiled), serve the
        new ones from the cache or encode and evaluate them in one network call (``search.step``),
        expand and back up (compiled)."""
        cfg, B, L = self.config, self.B, self.config.leaves_per_tree
        parallel = B >= PARALLEL_MIN_GAMES
        select = select_parallel if parallel else select_serial
        expand_backup = expand_backup_parallel if parallel else expand_backup_serial
        t0 = time.perf_counter()
        nodes = int(self.tree.n_nodes.max()) + L  # room for L new nodes a game
        if nodes > self.tree.node_capacity:
            self.tree = grow_tree(self.tree, nodes, self.tree.edge_capacity)
        leaves, out, counts = s.leaves, self._outputs, self._counts
        with launching(parallel):
            select(self.tree, s.boards, s.hists, want, leaves, s.select_params, s.roots.candidates, s.draws)
        _check_room(leaves)
        if self.adjudicate_margin > 0:
            adjudicate_leaves_(leaves, self.tree.node_terminal_value, self.adjudicate_margin)
        table, cached = self.cache.table, self.cache.capacity > 0
        counts[:] = 0
        k = gather_leaves(table, cached, leaves.boards, leaves.status, leaves.row, out, s.sims_done, counts)
        encoding = net = 0.0
        if k:  # only the leaves the cache does not hold are encoded and evaluated
            t1 = time.perf_counter()
            obs, moves = self._encoder.encode(out.miss_boards[:k])
            t2 = time.perf_counter()
            logits, values = as_outputs(self._evaluate(obs))
            t3 = time.perf_counter()
            encoding, net = t2 - t1, t3 - t2
            scatter_misses(table, cached, k, out, logits, values, moves, obs["legal_actions"], obs["n_legal"])
        # Room for the new nodes' edges: the real legal-move counts, known only now.
        if B == 1:
            edges = int(self.tree.n_edges[0]) + int(out.n_legal.sum())
        else:
            edges = int((self.tree.n_edges + out.n_legal.reshape(B, L).sum(axis=1)).max())
        if edges > self.tree.edge_capacity:
            self.tree = grow_tree(self.tree, self.tree.node_capacity, edges)
        with launching(parallel):
            expand_backup(self.tree, leaves, out.logits, out.values, out.moves, out.actions, out.n_legal,
                          float(cfg.virtual_loss), s.draws)
        _check_room(leaves)
        if not counts[0]:
            _check_step(STEP_NO_SIMULATION)
        self._count_step(time.perf_counter() - t0 - encoding - net, encoding, net)

    def _count_step(self, tree: float, env: float, net: float) -> None:
        """Add a step's seconds and its performed simulations and collisions (``_counts``) to
        :attr:`timings`."""
        self.timings["tree"] += tree
        self.timings["env"] += env
        self.timings["net"] += net
        self.timings["sims"] += int(self._counts[0])
        self.timings["collisions"] += int(self._counts[1])

    # ----- root statistics and move choice ----------------------------------------------------
    def _result(self, s: _Search, temperature) -> SearchResult:
        """Every root's statistics, training target and move: the root policy's, overruled at a
        proven root (the fastest win, the slowest loss)."""
        B, M, n_legal = self.B, self.max_legal, s.roots.n_legal
        out = SearchResult(
            moves=np.full((B, M), -1, np.int32), actions=np.full((B, M), -1, np.int32),
            visits=np.zeros((B, M), np.float32), policy=np.zeros((B, M), np.float32),
            n_legal=n_legal.copy(), chosen=np.full(B, -1, np.int32),
            value=np.zeros(B, np.float32), sims_done=s.sims_done.astype(np.int32),
            proof=np.zeros(B, np.int8), move_proof=np.zeros((B, M), np.int8),
            proof_plies=np.full(B, -1, np.int32),
        )
        q = np.zeros((B, M), np.float64)
        prior_raw = np.zeros((B, M), np.float32)
        root_stats(self.tree, n_legal, out.moves, out.actions, out.visits, q, out.move_proof, prior_raw,
                   out.value, out.proof)
        legal = np.arange(M)[None] < n_legal[:, None]
        allowed = legal & (out.move_proof != PROVEN_LOSS)
        allowed |= legal & ~allowed.any(axis=1, keepdims=True)  # every move lost: all allowed
        temps = np.broadcast_to(np.asarray(temperature, np.float64), (B,))
        self.root.choose(s.roots, out.visits, q, allowed, prior_raw, temps, out.policy, out.chosen)
        # the fastest win, the slowest loss
        for b in np.flatnonzero(np.isin(out.proof, (PROVEN_WIN, PROVEN_LOSS))):
            nb = int(n_legal[b])
            first = int(self.tree.node_first[b, self.tree.roots[b]])
            out.chosen[b], out.proof_plies[b] = self._proven_choice(int(b), int(out.proof[b]), first, nb,
                                                                    out.visits[b, :nb], s.wins_now[b, :nb])
        return out


def draw_values(boards: np.ndarray, contempt: float) -> np.ndarray:
    """[B, 2] float32 a draw's value for the side to move, by colour, in each game whose root is
    ``boards[b]``: ``-contempt`` for the root's mover, ``+contempt`` for the other."""
    draws = np.full((boards.shape[0], 2), contempt, np.float32)
    draws[np.arange(boards.shape[0]), boards[:, PLY] & 1] = -contempt
    return draws


def _schedule(ends: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    """Each game's phase ends [B, P] (padded with its total) and its last phase [B]."""
    P = max(len(e) for e in ends)
    return (np.array([e + [e[-1]] * (P - len(e)) for e in ends], np.int64),
            np.array([len(e) - 1 for e in ends], np.int64))


def _check_step(code: int) -> None:
    """Raise for a ``search.step`` error code (a code >= 0 is a count, no error)."""
    if code == STEP_NO_ROOM:
        raise RuntimeError("search tree out of room inside a kernel (the driver grows it before each call)")
    if code == STEP_NO_SIMULATION:
        raise RuntimeError("search step performed no simulation (a root not expanded?)")


def _check_room(leaves: LeafBatch) -> None:
    if (leaves.status == LEAF_NO_ROOM).any():
        _check_step(STEP_NO_ROOM)
