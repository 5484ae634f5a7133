"""Iterative-deepening alpha-beta (negamax) over the compiled engine: the ``alphabeta`` player.

The search is one recursive numba kernel (:func:`_negamax`) working in place on a copy of the
board arrays, with a transposition table, killer and history move ordering and a Hive heuristic;
the exact one-move checks of ``hive_env.tactics`` run at its root (:meth:`AlphaBeta.search`). A
timed search spends :data:`TIME_SHARE` of its time, Python running the deepening loop and a
timer thread stopping the kernel at the deadline (:meth:`AlphaBeta._deepen`).

See docs/players.md (players).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

from hive_env import Game
from hive_env.board import (
    EXPANSIONS,
    HIST,
    IN_PROGRESS,
    LAST,
    PASS,
    PLY,
    POS,
    STATUS,
    move_dest,
    move_piece,
    play,
    unplay,
)
from hive_env.grid import NEIGH
from hive_env.pieces import PIECES_PER_COLOUR
from hive_env.rules import MAX_MOVES, generate_moves
from hive_env.tactics import PROVEN_LOSS, PROVEN_WIN, scan_root, tactics_buffers

from .base import Budget, check_in_progress, resolve_budget
from .heuristic import DEFAULT_WEIGHTS, WIN_SCORE, evaluate, score_moves, terminal_score

MAX_PLY = 64
"""Deepest search (plies from the root); buffers are sized for it."""
INF = 1_000_000
MATE_BOUND = WIN_SCORE - 1000
"""Scores beyond this are forced wins (or losses) found by the search."""
EXACT, LOWER, UPPER = 0, 1, 2
DEFAULT_TT_BITS = 20
"""2**20 entries, about 18 MB."""
NPS_MIN_NODES = 1000
"""A finished depth measures the search speed only with at least this many nodes (and 10 ms)."""
TIME_SHARE = 0.9
"""Share of a time budget searched (``search.alphazero_player.TIME_SHARE`` is the same)."""
NODE_SLACK = 4.0
"""A depth's node budget is this many times the nodes the measured speed predicts for the time
left: the deadline timer is what stops a timed search; a tight budget stopped it early whenever
the speed measured on a shallower depth was low (0.5-0.6 s of a 0.9 s share)."""
MIN_DEPTH_SECONDS = 0.002
"""A depth is not started with less time than this left (it could not finish a root move)."""

_N_HISTORY = PASS + 1

# stats slots shared between Python and the kernel ([8] int64); S_STOP is raised by the
# deadline timer thread while the kernel runs
S_NODES, S_LIMIT, S_ABORTED, S_BEST, S_SCORE, S_PREV, S_STOP = 0, 1, 2, 3, 4, 5, 6


class Tables(NamedTuple):
    """Every array the search kernel reads and writes (numba takes this tuple of arrays as one
    argument, as ``search.tree.Tree``). Fixed dtypes: the recursive kernel is compiled for
    exactly one signature (see :func:`search_depth`).

    Fields (T = transposition table size, a power of two):
        moves: [MAX_PLY, MAX_MOVES] int32 the legal moves of each ply's node.
        scores: [MAX_PLY, MAX_MOVES] int64 their ordering keys.
        tt_keys: [T] uint64 position key of each entry (``_tt_key``).
        tt_moves: [T] int32 best move found there, -1 when empty.
        tt_scores: [T] int32 its score (a mate score relative to the node).
        tt_depths: [T] int16 depth searched, -1 when empty.
        tt_flags: [T] int8 ``EXACT``, ``LOWER`` or ``UPPER`` bound.
        killers: [MAX_PLY, 2] int32 two moves per ply that caused a cut-off.
        history: [PASS + 1] int64 cut-off credit of each move.
        weights: [N_WEIGHTS] int32 evaluation weights (``heuristic.make_weights``).
        stats: [8] int64 the ``S_*`` slots shared with Python (``S_STOP`` raised by the timer).
    """

    moves: np.ndarray
    scores: np.ndarray
    tt_keys: np.ndarray
    tt_moves: np.ndarray
    tt_scores: np.ndarray
    tt_depths: np.ndarray
    tt_flags: np.ndarray
    killers: np.ndarray
    history: np.ndarray
    weights: np.ndarray
    stats: np.ndarray


def allocate_tables(tt_bits: int, weights: np.ndarray) -> Tables:
    """Empty tables with a transposition table of ``2 ** tt_bits`` entries and a copy of ``weights``."""
    size = 1 << tt_bits
    return Tables(
        moves=np.zeros((MAX_PLY, MAX_MOVES), dtype=np.int32),
        scores=np.zeros((MAX_PLY, MAX_MOVES), dtype=np.int64),
        tt_keys=np.zeros(size, dtype=np.uint64),
        tt_moves=np.full(size, -1, dtype=np.int32),
        tt_scores=np.zeros(size, dtype=np.int32),
        tt_depths=np.full(size, -1, dtype=np.int16),
        tt_flags=np.zeros(size, dtype=np.int8),
        killers=np.full((MAX_PLY, 2), -1, dtype=np.int32),
        history=np.zeros(_N_HISTORY, dtype=np.int64),
        weights=np.array(weights, dtype=np.int32, order="C"),  # a copy: tuning one searcher leaves others
        stats=np.zeros(8, dtype=np.int64),
    )


@njit(cache=True)
def _tt_key(board: np.ndarray, hist: np.ndarray) -> np.uint64:
    """Zobrist hash of the position, mixed with the last-moved tile and the game type."""
    h = hist[np.int64(board[PLY]) % HIST]
    extra = np.uint64((np.int64(board[LAST]) + 2) * 16 + np.int64(board[EXPANSIONS]))
    return h ^ (extra * np.uint64(0xD6E8FEB86659FD93))


@njit(cache=True, inline="always")
def _adjacent(a: int, b: int) -> bool:
    for d in range(6):
        if NEIGH[a, d] == b:
            return True
    return False


@njit(cache=True)
def _order_scores(board, moves, n, scores, tt_move, killers, ply, history, noise):
    """Ordering key of each move: TT move, killers, then Hive pressure plus history."""
    me = board[PLY] & 1
    own_q = board[POS + me * PIECES_PER_COLOUR]
    enemy_q = board[POS + (1 - me) * PIECES_PER_COLOUR]
    my_queen = me * PIECES_PER_COLOUR
    for i in range(n):
        mv = moves[i]
        if mv == tt_move:
            scores[i] = 1 << 40
            continue
        if mv == killers[ply, 0]:
            scores[i] = 1 << 38
            continue
        if mv == killers[ply, 1]:
            scores[i] = 1 << 37
            continue
        s = np.int64(history[mv])
        if mv != PASS:
            p = move_piece(mv)
            dst = move_dest(mv)
            src = board[POS + p]
            if enemy_q >= 0:
                near_src = src >= 0 and _adjacent(src, enemy_q)
                if dst == enemy_q:
                    s += 30000
                elif _adjacent(dst, enemy_q):
                    if not near_src:
                        s += 40000
                elif near_src:
                    s -= 10000
            if own_q >= 0:
                if p == my_queen:
                    s += 10000
                elif src >= 0 and _adjacent(src, own_q) and not _adjacent(dst, own_q):
                    s += 20000
        if noise:
            s += np.random.randint(0, 64)
        scores[i] = s


@njit(cache=True)
def _negamax(board, hist, depth, alpha, beta, ply, t):
    """Fail-soft negamax with alpha-beta over the :class:`Tables` ``t``; the score is from the
    side to move's view (``generate_moves`` / ``play`` / ``unplay`` in place), with

    - a transposition table in preallocated arrays indexed by the low bits of the engine's
      Zobrist hash (mixed with the last-moved tile and the game type, which the hash omits and
      move legality depends on), storing key, depth, score, bound flag and best move;
    - move ordering: TT move, then two killer moves per ply, then a static Hive order (moves that
      add a neighbour to the enemy Queen, moves that free a neighbour of our own Queen, Queen
      moves) plus a history table; a little seeded noise at the root breaks ties between equal
      moves so that games differ;
    - terminal scores ``+-(WIN_SCORE - ply)``: a faster win (and a slower loss) scores higher, so a
      win in one is always played and a threat of one is parried whenever possible;
    - a forced move (a lone legal move, usually a pass) extends the search by one ply.
    """
    stats, killers, history = t.stats, t.killers, t.history
    stats[S_NODES] += 1
    if stats[S_NODES] >= stats[S_LIMIT] or stats[S_STOP]:
        stats[S_ABORTED] = 1
        return 0
    if board[STATUS] != IN_PROGRESS:
        return terminal_score(board, ply)
    if depth <= 0 or ply >= MAX_PLY - 1:
        return evaluate(board, t.weights)

    key = _tt_key(board, hist)
    slot = np.int64(key & np.uint64(t.tt_keys.shape[0] - 1))
    tt_move = -1
    if t.tt_keys[slot] == key:
        tt_move = t.tt_moves[slot]
        if ply > 0 and t.tt_depths[slot] >= depth:
            s = np.int64(t.tt_scores[slot])
            if s > MATE_BOUND:  # stored relative to the node, read relative to the root
                s -= ply
            elif s < -MATE_BOUND:
                s += ply
            flag = t.tt_flags[slot]
            if flag == EXACT or (flag == LOWER and s >= beta) or (flag == UPPER and s <= alpha):
                return s

    if ply == 0 and stats[S_PREV] >= 0:
        tt_move = stats[S_PREV]  # the previous depth's best goes first, whatever the TT kept
    buf = t.moves[ply]
    order = t.scores[ply]
    n = generate_moves(board, buf)
    _order_scores(board, buf, n, order, tt_move, killers, ply, history, ply == 0)
    # a forced reply (often a pass) costs no depth: the search sees one move further there
    child_depth = depth if n == 1 else depth - 1
    alpha0 = alpha
    best = -INF
    best_move = buf[0]
    for i in range(n):
        # selection sort, one step at a time: cut-offs usually come early
        k = i
        for j in range(i + 1, n):
            if order[j] > order[k]:
                k = j
        if k != i:
            buf[i], buf[k] = buf[k], buf[i]
            order[i], order[k] = order[k], order[i]
        mv = buf[i]
        token = play(board, hist, mv)
        s = -_negamax(board, hist, child_depth, -beta, -alpha, ply + 1, t)
        unplay(board, mv, token)
        if stats[S_ABORTED]:
            return 0
        if s > best:
            best = s
            best_move = mv
            if ply == 0:
                stats[S_BEST] = mv
                stats[S_SCORE] = s
            if s > alpha:
                alpha = s
                if alpha >= beta:
                    if mv != killers[ply, 0]:
                        killers[ply, 1] = killers[ply, 0]
                        killers[ply, 0] = mv
                    history[mv] += depth * depth
                    break

    stored = best
    if stored > MATE_BOUND:
        stored += ply
    elif stored < -MATE_BOUND:
        stored -= ply
    t.tt_keys[slot] = key
    t.tt_moves[slot] = best_move
    t.tt_scores[slot] = stored
    t.tt_depths[slot] = depth
    t.tt_flags[slot] = UPPER if best <= alpha0 else (LOWER if best >= beta else EXACT)
    return best


@njit(cache=True, nogil=True)
def search_depth(board, hist, depth, t, seed):
    """One full-width search of ``depth`` plies from the root (board restored on return), over
    the :class:`Tables` ``t``.

    Writes the best root move and its score into ``t.stats[S_BEST]``, ``t.stats[S_SCORE]``
    (for an aborted search: the best among the root moves it finished, or -1).
    """
    np.random.seed(seed)
    t.stats[S_ABORTED] = 0
    t.stats[S_BEST] = -1
    # int64 variables, not literals: one compiled signature for the recursive kernel (numba's
    # cache mishandles a recursive function compiled for several signatures)
    alpha = np.int64(-INF)
    beta = np.int64(INF)
    ply = np.int64(0)
    return _negamax(board, hist, np.int64(depth), alpha, beta, ply, t)


@dataclass
class AlphaBetaResult:
    """What one ``AlphaBeta.search`` found."""

    move: int
    score: int
    depth: int
    """Deepest fully finished depth (0 when the move was forced)."""
    nodes: int
    seconds: float


class AlphaBeta:
    """An alpha-beta searcher with its own transposition and history tables.

    It owns every array the kernel touches (its :class:`Tables`), with fixed dtypes, so the
    recursive kernel is compiled for exactly one signature (see ``search_depth``).

    Args:
        tt_bits: log2 of the transposition table size.
        weights: [N_WEIGHTS] int32 evaluation weights (``heuristic.make_weights``).
        seed: seeds the root tie-break noise (a different stream per search).
    """

    def __init__(self, tt_bits: int = DEFAULT_TT_BITS, weights: np.ndarray | None = None, seed: int = 0):
        self.tables = allocate_tables(tt_bits, DEFAULT_WEIGHTS if weights is None else weights)
        self.nps = 50_000.0
        self._rng = np.random.default_rng(seed)
        self._proofs = np.zeros(MAX_MOVES, np.int8)
        self._tactics_buf = tactics_buffers()

    def search(self, board: np.ndarray, hist: np.ndarray, depth: int | None = None,
               time_s: float | None = None) -> AlphaBetaResult:
        """Best move of a position in progress within a depth and/or time limit.

        The exact one-move checks of ``hive_env.tactics`` at the root hold at any depth and under
        any time limit: a win in one is played at once, a lone move that does not let the
        opponent win at once is played at once, and a depth-1 or cut search that picked a move
        after which the opponent wins at once is overruled (the best other move by one-ply score).

        Args:
            board, hist: the position (copied; the caller's arrays are not touched).
            depth: deepest depth to search; None = until time runs out (or MAX_PLY).
            time_s: seconds to stay within; None = no time limit (then ``depth`` is needed).

        Raises:
            ValueError: the game is over, or neither limit is given.
        """
        start = time.perf_counter()
        if depth is None and time_s is None:
            raise ValueError("alphabeta needs a depth or a time limit")
        board, hist = board.copy(), hist.copy()
        legal = self.tables.moves[0]
        n = generate_moves(board, legal)
        if n == 0:
            raise ValueError("the game is over: there is no move to choose")
        if n == 1:
            return AlphaBetaResult(int(legal[0]), 0, 0, 0, time.perf_counter() - start)
        proofs = self._proofs[:n]
        scan_root(board, hist, legal, n, proofs, *self._tactics_buf)
        wins = np.flatnonzero(proofs == PROVEN_WIN)
        if wins.size:  # the exact check: a win in one is played at once
            return AlphaBetaResult(int(legal[wins[0]]), WIN_SCORE - 1, 1, n, time.perf_counter() - start)
        lost = proofs == PROVEN_LOSS
        if lost.all():
            lost[:] = False  # every move loses: the search picks the longest resistance
        root_moves = legal[:n].copy()
        if (~lost).sum() == 1:  # one move does not lose at once: forced
            return AlphaBetaResult(int(root_moves[~lost][0]), 0, 0, n, time.perf_counter() - start)
        max_depth = min(depth if depth is not None else MAX_PLY - 2, MAX_PLY - 2)
        deadline = None if time_s is None else start + TIME_SHARE * time_s
        self.tables.history[:] //= 8
        self.tables.killers[:] = -1
        # a fresh stats array per search: a late timer can only stop the search that armed it
        stats = np.zeros(8, dtype=np.int64)
        self.tables = self.tables._replace(stats=stats)
        timer = None
        if deadline is not None:
            timer = threading.Timer(max(0.0, deadline - time.perf_counter()), stats.__setitem__, (S_STOP, 1))
            timer.daemon = True
            timer.start()
        try:
            best, nodes_total = self._deepen(board, hist, legal, max_depth, start, deadline)
        finally:
            if timer is not None:
                timer.cancel()
        if lost.any() and lost[root_moves == best.move].any():
            # a depth-1 (or cut) search may pick a move after which the opponent wins at once:
            # the best of the others by one-ply score instead
            safe = root_moves[~lost]
            scores = np.empty(safe.size, np.int64)
            score_moves(board, hist, safe, self.tables.weights, scores)
            best = AlphaBetaResult(int(safe[np.argmax(scores)]), int(scores.max()), best.depth, 0, 0.0)
        best.nodes = nodes_total
        best.seconds = time.perf_counter() - start
        return best

    def _deepen(self, board: np.ndarray, hist: np.ndarray, legal: np.ndarray, max_depth: int,
                start: float, deadline: float | None) -> tuple[AlphaBetaResult, int]:
        """The iterative-deepening loop: (best result, nodes searched).

        Numba code cannot read a clock, so Python runs this loop and :meth:`search` arms a timer
        thread that raises, at the deadline, a stop flag the kernel reads at every node
        (``search_depth`` releases the GIL to let the timer run). The loop starts the next depth
        while time is left: an aborted depth keeps the best root move among the root moves it
        finished, and the previous depth's best is searched first, so the deeper search can only
        replace it by a move it found better (stopping at a depth predicted not to fit left a
        third of the time unused). Each depth also gets a node budget, :data:`NODE_SLACK` times
        what the measured speed (nodes per second, :func:`_speed_sample`) predicts for the time
        left, a backstop should the timer be late; a depth that budget cut while time is left
        (the speed measured too low) runs again with the speed it measured."""
        stats = self.tables.stats
        best = AlphaBetaResult(int(legal[0]), 0, 0, 0, 0.0)
        nodes_total = 0
        d = 1
        while d <= max_depth:
            now = time.perf_counter()
            if deadline is None:
                limit = 1 << 62
            else:
                left = deadline - now
                if d > 1 and left < MIN_DEPTH_SECONDS:
                    break
                limit = max(200, int(NODE_SLACK * left * self.nps))
            stats[:S_STOP] = 0
            stats[S_LIMIT] = limit
            stats[S_PREV] = best.move if d > 1 else -1
            t0 = time.perf_counter()
            score = search_depth(board, hist, d, self.tables, int(self._rng.integers(1 << 31)))
            spent = time.perf_counter() - t0
            nodes = int(stats[S_NODES])
            nodes_total += nodes
            if _speed_sample(nodes, spent, bool(stats[S_ABORTED])):
                self.nps = max(1000.0, nodes / spent)
            if stats[S_ABORTED]:
                if stats[S_BEST] >= 0:
                    best = AlphaBetaResult(int(stats[S_BEST]), int(stats[S_SCORE]), best.depth, 0, 0.0)
                if stats[S_STOP] or deadline is None or deadline - time.perf_counter() < MIN_DEPTH_SECONDS:
                    break
                # The node budget cut it, not the clock: the speed it was set from was too low (a
                # slow early depth: the table's first page faults). That depth ran flat out and
                # measured the speed again: the same depth again, with the time that is left.
                continue
            best = AlphaBetaResult(int(stats[S_BEST]), int(score), d, 0, 0.0)
            if abs(score) > MATE_BOUND:
                break  # a forced result: deeper search cannot change it
            d += 1
        return best, nodes_total


def _speed_sample(nodes: int, seconds: float, aborted: bool) -> bool:
    """Whether one depth's ``nodes`` in ``seconds`` measure the search speed: a depth cut by its
    node budget (the kernel ran flat out), or a finished one of at least ``NPS_MIN_NODES`` in
    10 ms. A few nodes in a long time (a first call that loads the compiled kernels) would
    otherwise set the speed so low that every later budget stays too small to measure it again:
    depth 1 in a millisecond a move, whatever the time given."""
    if seconds <= 0:
        return False
    return aborted or (nodes >= NPS_MIN_NODES and seconds > 0.01)


_WARM = "Base;InProgress;White[3];wS1;bG1 -wS1;wQ wS1-;bQ \\bG1"
_warmed = False


def warm_kernels() -> None:
    """Search a small position once per process (a timed search: the timer thread too), so that
    loading the compiled kernels (seconds in a fresh process) never falls inside a timed move."""
    global _warmed
    if _warmed:
        return
    game = Game.from_string(_WARM)
    AlphaBeta(tt_bits=10).search(game.board, game.hist, depth=2, time_s=60.0)
    _warmed = True


class AlphaBetaPlayer:
    """Iterative-deepening alpha-beta with the Hive heuristic, as a player.

    Args:
        default_budget: used when ``choose`` gets no budget (spec ``depth=``/``time=``); depth 3.
        tt_bits: log2 of the transposition table size.
        seed: seeds the tie-breaks between equal root moves.
    """

    def __init__(self, default_budget: Budget | None = None, tt_bits: int = DEFAULT_TT_BITS,
                 seed: int = 0, name: str = "alphabeta"):
        warm_kernels()
        self.name = name
        self.threads = 1
        """Search threads: the kernel is serial."""
        self.default_budget = default_budget or Budget(depth=3)
        self.search = AlphaBeta(tt_bits=tt_bits, seed=seed)
        self.last: AlphaBetaResult | None = None
        """The last ``AlphaBetaResult`` (score, depth reached, nodes, seconds), for logs."""
        self.last_stats: dict[str, int] = {}
        """``{"nodes": N}``: the nodes the last ``choose`` searched, every depth of its iterative
        deepening (an aborted last depth included); 0 for a forced move (``players.base``)."""

    def choose(self, game: Game, budget: Budget | None = None) -> int:
        check_in_progress(game)
        self.last_stats = {}
        b = resolve_budget(budget, self.default_budget)
        if b.depth is None and b.time_s is None:
            b = self.default_budget  # e.g. a sims-only budget meant for AlphaZero
        self.last = self.search.search(game.board, game.hist, depth=b.depth, time_s=b.time_s)
        self.last_stats = {"nodes": self.last.nodes}
        return self.last.move

    def close(self) -> None:
        pass


def make_player(seed: int, name: str, depth: int | None = None, time: float | None = None,
                tt: int = DEFAULT_TT_BITS) -> AlphaBetaPlayer:
    """The ``alphabeta`` spec kind (``players.registry``)."""
    from .registry import spec_budget

    return AlphaBetaPlayer(spec_budget(time, depth, Budget(depth=3)), tt_bits=tt, seed=seed, name=name)
