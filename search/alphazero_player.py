"""The AlphaZero player: a checkpoint's network guiding tree search, behind the player interface.

Spec: ``alphazero[:ckpt=PATH][,level=N|sims=N|time=S][,leaves=L][,gumbel=1][,device=cpu|cuda|auto][,cpuct=X]
[,contempt=C][,backend=auto|torch|packed|numba|onnx][,hard=0]``; without ``ckpt`` the network shipped with
the package for the game's type (``models.shipped``: Base's until a game of another type comes, through
:meth:`AlphaZeroPlayer.prepare` or ``choose``; a type with none is a :class:`PlayerSpecError`).
``leaves``: leaves per
network call within the tree (virtual loss; :data:`DEFAULT_LEAVES`); ``backend``: the inference
backend (``search.network.BACKENDS``; ``auto``: numba for play's small batches, the packed GEMMs from 16).
``contempt``: what a draw costs this player, in value (0..1 of the -1..1 scale; default 0;
``search.mcts.SearchConfig.contempt``).

**Levels** (``players.levels``): ``level=N`` (1..10) sets the budget and how the move is chosen
(a draw among the likeliest moves below the top, the exact tactics from level 4 up); with
``sims=``, ``time=`` or ``gumbel=1`` it is refused. A spec with none of ``level=``, ``sims=``,
``time=`` is the top level, :data:`players.levels.DEFAULT_LEVEL`: 1 s a move, the player at its
strength (``alphazero:time=1`` plays the same moves).

Budgets (``players.base.Budget``), whichever limit comes first:

- none, an empty one, or ``depth`` only (depth means nothing to this search): the spec's
  ``sims``, or with ``time=S`` that time, or the level's (:attr:`AlphaZeroPlayer.default_budget`);
- ``sims``: that many simulations;
- ``time_s`` with ``sims``: those simulations, stopped early when the time is up;
- ``time_s`` with ``depth`` (a cap, e.g. hive-uhp's MaxTime on ``bestmove depth N``): the
  default budget, its simulations stopped early (or its time shortened) when the time is up;
- ``time_s`` alone: search until the time is up, however big the tree grows;
- ``time_s`` with ``max_time_s`` (a game clock's time manager, ``players.clock``): search
  ``time_s``, then go on towards ``max_time_s`` in steps of ``time_s`` while the position is hard
  (:meth:`AlphaZeroPlayer.is_hard`: no move holds :data:`HARD_SHARE` of the root's visits, or the
  root's value fell by :data:`VALUE_DROP` or more since this player's last move), the time saved
  on easy moves spent on hard ones. PUCT only (a Gumbel search ends at ``time_s``); ``hard=0``
  keeps to ``time_s``.

A level below the top only ever searches less than its own budget (``players.levels.Level.limit``).

**Time.** A PUCT search looks at the clock after every step (one network call of ``leaves``
leaves) and stops when the next step, predicted from the longest so far, would end past
:data:`TIME_SHARE` of the budget: the move never takes longer than the budget (with steps
of stable length). A Gumbel root's sequential halving cannot be split, so a capped Gumbel
``sims`` budget is one search that the clock stops between steps (the move is chosen among
the candidates surviving then); a Gumbel time budget runs consecutive Gumbel searches of
:data:`CHUNK_SIMS` on the growing tree (their roots: evaluation-cache hits).

**The kept tree.** The tree is kept between moves of one game (the chosen subtree, then the
opponent's reply), but only while the positions match exactly: the kept root must be the
position just before the opponent's move (``search.leaves.position_key``); any other game
history starts afresh (and so does a tree searched for the other side, with contempt: its
draws were valued for that side). Its size limit follows the budget: room for :data:`KEPT_SEARCHES`
searches of the simulations a move is expected to take (the budget's ``sims``, or the
measured simulations per second times the time, at most :data:`KEPT_SIMS_MAX`). An expanded kept root is not
evaluated again; transpositions are served by the search's evaluation cache.
No root noise: this is play, not self-play.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
import torch

from hive_env import Game
from models import shipped
from players.base import Budget, PlayerSpecError, check_in_progress
from players.levels import DEFAULT_LEVEL, check_level_options, pick
from players.levels import level as level_of

from .checkpoint import load_model
from .leaves import PROVEN_LOSS, PROVEN_WIN, play, position_key, previous_key
from .mcts import BatchedMCTS, SearchConfig, SearchResult
from .network import make_evaluator, pick_device

FIRST_TREE_SIMS = 200
"""The simulations the first tree of a player with a time budget is sized for (it grows on demand)."""
C_PUCT = SearchConfig.c_puct
"""The exploration constant at play: the search's own default (``search.mcts.SearchConfig``)."""
DEFAULT_LEAVES = 4
"""Leaves per network call at play (``leaves=``): chosen by an equal-time match (0.25 s a move,
20 games a pairing: leaves 4 scored 72.5% against 1 and 52.5% against 8; docs/strength.md,
"Throughput of the packed network")."""
CHUNK_SIMS = 16
"""Simulations of each consecutive Gumbel search under a time budget."""
TIME_SHARE = 0.9
"""Share of a time budget spent searching (the rest: choosing, replying)."""
TREE_SIMS = 2048
"""Most simulations the tree's initial room is sized for: a bigger budget grows the tree on
demand instead of allocating it up front."""
KEPT_SIMS_MAX = 50_000
"""Most simulations a move is expected to take that the kept tree's limit is sized for."""
KEPT_SEARCHES = 8
"""The kept tree's limit: room for this many searches of the expected size (nodes off the
kept subtree are not freed until the tree is dropped: the limit sets how many moves reuse
lasts; at most ~400,000 nodes, a few hundred MB in Base+MLP)."""
UNLIMITED_SIMS = 1 << 40
WARM_UP_GAME = ("Base;InProgress;White[9];wB1;bG1 wB1/;wG1 -wB1;bA1 \\bG1;wQ wB1\\;bQ -bA1;wA1 /wG1;"
                "bQ \\bA1;wB2 -wG1;bB1 /bQ;wA1 -bB1;bB2 bG1-;wG2 /wG1;bQ bA1/;wG3 /wB2;bG2 -bQ")
"""A Base middle game every bug can move in, searched once when a player is made (``_warm_up``)."""
"""The simulations of a search that only the clock stops."""
FIRST_RATE = 2000.0
"""Simulations per second assumed before the first timed move has measured them."""
HARD_SHARE = 0.5
"""A position is hard while its most visited move holds less than this share of the root's visits."""
VALUE_DROP = 0.2
"""A position is hard when the root's value (for the side to move, in [-1, 1]) fell by this much
or more since the same player's last move of the game."""


def kept_config(config: SearchConfig, expected_sims: int) -> SearchConfig:
    """The search settings that size the kept tree for moves of ``expected_sims`` simulations:
    room for :data:`KEPT_SEARCHES` of them (``SearchConfig.max_nodes``)."""
    sims = max(1, min(int(expected_sims), KEPT_SIMS_MAX))
    return replace(config, sims=sims, max_nodes=KEPT_SEARCHES * (sims + 1) + 64)


class AlphaZeroPlayer:
    """Network + batched search (batch of one game) as a :class:`players.registry.Player`.

    Attributes:
        default_budget: ``Budget(sims=sims)`` (``Budget(time_s=time)`` with ``time``, the level's
            budget with ``level``), what a bare request (e.g. hive-uhp's ``bestmove``) searches.
        level: the :class:`players.levels.Level` played, None with ``sims=`` or ``time=``.
        sims: the spec's (or level's) simulations a move, None with a time budget.
        threads: the threads one search uses (1 on the CPU: torch and the tree kernels).
        last_sims: simulations the last ``choose`` performed.
        last_stats: ``{"sims": last_sims, "value_milli": v}`` (``players.base``: what the arena
            records): v the root's value after the search for the mover, in thousandths (-1000..1000).
        rate: simulations per second measured over the timed moves so far.
        clock: seconds, monotonic (``time.perf_counter``; tests pass a fake one).
    """

    def __init__(self, ckpt: str | Path | None = None, sims: int | None = None, gumbel: bool = False,
                 device: str = "auto", cpuct: float = C_PUCT, seed: int = 0, name: str = "alphazero",
                 clock: Callable[[], float] = time.perf_counter, leaves: int = DEFAULT_LEAVES,
                 backend: str = "auto", time_s: float | None = None, hard: bool = True,
                 level: int | None = None, contempt: float = 0.0):
        check_level_options(level, sims, time_s, gumbel)
        if level is None and sims is None and not time_s:
            level = DEFAULT_LEVEL
        self.level = level_of(level) if level is not None else None
        if self.level is not None:
            sims, time_s = self.level.sims, self.level.time_s
        self.name = name
        self.hard = hard
        """Take more of a clock's allowance on hard moves (``Budget.max_time_s``); False: keep to
        the share (spec ``hard=0``, for comparing time managers)."""
        self.threads = 1
        self.device = pick_device(device)
        if self.device.type == "cpu":
            torch.set_num_threads(1)  # small batches: more threads only spin (and stall under load)
        self.ckpt = ckpt
        self.backend = backend
        self.game_type: str | None = None if ckpt is not None else "Base"
        """The game type whose shipped network is loaded (None: ``ckpt`` given, any type)."""
        self._load(shipped.CHECKPOINT if ckpt is None else ckpt)
        self.sims = None if time_s else sims
        self.default_budget = Budget(time_s=time_s) if time_s else Budget(sims=sims)
        sized = self.sims or FIRST_TREE_SIMS
        self.config = SearchConfig(sims=sized, gumbel=gumbel, dirichlet_eps=0.0, c_puct=cpuct,
                                   leaves_per_tree=leaves, contempt=contempt)
        self.seed = seed
        self.clock = clock
        self.last_sims = 0
        self.last_stats: dict[str, int] = {"sims": 0}
        self._last_value: tuple[int, float] = (-1, 0.0)
        """(ply, root value) of this player's last move: :meth:`is_hard` compares with it."""
        self.last_proof: int | None = None
        """After a ``choose`` at a position the search proved won: the plies to the end the
        tree proves after the move played (the move included); else None."""
        self.rate = FIRST_RATE
        self._searched_for = -1
        """The side to move at the kept tree's searches (with contempt, a draw's value is that side's)."""
        self._keep = kept_config(self.config, sized)
        self._mcts: BatchedMCTS | None = None
        self._warm_up()

    def _load(self, path: str | Path) -> None:
        """The network of ``path`` and its evaluator (a kept tree of another network is dropped)."""
        self.model, state = load_model(path, self.device)
        self.step = state.get("step")
        self.trained_ply_cap = int((state.get("lineage") or {}).get("ply_cap") or 0) or None
        """The ply cap of the self-play games the network learnt from (None: not recorded)."""
        self._past_cap_warned = False
        self.evaluate = make_evaluator(self.model, self.device, bf16=self.device.type == "cuda",
                                       backend=self.backend)
        self._mcts = None

    def prepare(self, game_type: str) -> None:
        """Before a game of ``game_type``: without ``ckpt=``, load the network shipped for it.

        Raises:
            PlayerSpecError: no network is shipped for that type (one line).
        """
        if self.ckpt is not None or game_type == self.game_type:
            return
        try:
            network = shipped.network(game_type)
        except shipped.NoShippedNetworkError as e:
            raise PlayerSpecError(f"player 'alphazero': {e}") from None
        self._load(network.checkpoint)
        self.game_type = game_type

    def _warm_up(self) -> None:
        """Search the empty board and a middle game once now (milliseconds once the kernels are
        cached), so that loading or compiling the kernels (placements, every bug's movement, the
        exact tactics) never falls inside a timed move: in an arena match from a cold cache the
        first move took 7.75 s of its 5 s before the middle game was added here."""
        for game in (Game("Base"), Game.from_string(WARM_UP_GAME)):
            BatchedMCTS(replace(self.config, sims=2 * self.config.leaves_per_tree), 1, game.expansions,
                        self.evaluate).search(game.board[None], game.hist[None], [0], add_noise=False)

    def _kept_tree(self, game: Game) -> BatchedMCTS:
        """The search, its tree following ``game``: kept when its root is the current position or
        the position just before the opponent's last move (then that move's subtree), else reset
        (and with contempt, when it was searched for the other side). The kept tree's limit
        follows ``self._keep`` (``kept_config`` of the current budget)."""
        if self._mcts is None or self._mcts.expansions != game.expansions:
            self._mcts = BatchedMCTS(replace(self.config, sims=min(self.config.sims, TREE_SIMS)), 1,
                                     game.expansions, self.evaluate)
        mcts = self._mcts
        mcts.config = self._keep
        if self.config.contempt and self._searched_for != game.side_to_move:
            mcts.reset()  # its draws were valued for the other side
            return mcts
        kept = int(mcts.root_key[0])
        if kept == position_key(game.board, game.hist):
            return mcts
        slot = None
        if game.moves and kept == previous_key(game.board, game.hist):
            slot = mcts.child_slot(0, game.moves[-1])
        if slot is None:
            mcts.reset()
        else:
            mcts.advance(0, slot, game.board, game.hist)
        return mcts

    def _search(self, mcts: BatchedMCTS, game: Game, sims: int,
                stop: Callable[[], bool] | None = None) -> SearchResult:
        """One search of ``sims`` simulations on the kept tree (``stop`` may end it early)."""
        seed = (self.seed * 1_000_003 + game.ply) % (2**31)
        keep = mcts.config
        mcts.config = replace(self.config, sims=sims)
        try:
            return mcts.search(game.board[None], game.hist[None], [seed], add_noise=False, stop=stop)
        finally:
            mcts.config = keep  # what tree-size limits (advance) follow

    def _deadline_stop(self, start: float, time_s: float, since: float | None = None) -> Callable[[], bool]:
        """Asked after each search step: stop when the next step, as long as the longest so
        far (the steps since ``since``, default ``start``), would end past ``TIME_SHARE`` of the
        budget."""
        deadline = start + TIME_SHARE * time_s
        last, longest = [start if since is None else since], [0.0]

        def stop() -> bool:
            now = self.clock()
            longest[0] = max(longest[0], now - last[0])
            last[0] = now
            return now + longest[0] >= deadline

        return stop

    def choose(self, game: Game, budget: Budget | None = None) -> int:
        check_in_progress(game)
        self.prepare(game.game_type)
        if self.trained_ply_cap and game.ply >= self.trained_ply_cap and not self._past_cap_warned:
            self._past_cap_warned = True
            warnings.warn(f"{self.name}: a game past ply {self.trained_ply_cap}, the ply cap of the games "
                          "its network learnt from: its values there are extrapolated", stacklevel=2)
        start = self.clock()
        b = self.budget_for(budget)
        time_s = b.time_s
        sims = int(b.sims) if b.sims else None  # None: a time budget, search until the time is up
        by_time = int(self.rate * TIME_SHARE * float(time_s)) + 1 if time_s else None
        expected = min(x for x in (sims, by_time) if x is not None)
        self._keep = kept_config(self.config, expected)
        mcts = self._kept_tree(game)
        self._searched_for = game.side_to_move
        stop = self._deadline_stop(start, float(time_s)) if time_s else None
        if sims is None and self.config.gumbel:
            done = 0  # consecutive Gumbel searches on the growing tree until the time is up
            while True:
                result = self._search(mcts, game, CHUNK_SIMS, stop)
                done += int(result.sims_done[0])
                if stop():
                    break
        else:
            result = self._search(mcts, game, UNLIMITED_SIMS if sims is None else sims, stop)
            done = int(result.sims_done[0])
            allowance = b.max_time_s if self.hard and sims is None and time_s and b.max_time_s else 0.0
            while allowance and self.is_hard(result, game):
                now = self.clock()
                if allowance <= now - start + 0.5 * time_s:
                    break  # less than half a share left of the allowance
                more = min(now - start + time_s, allowance)  # one more share, at most the allowance
                result = self._search(mcts, game, UNLIMITED_SIMS, self._deadline_stop(start, more, now))
                done += int(result.sims_done[0])
        if time_s and done:
            self.rate = done / max(self.clock() - start, 1e-6)
        self.last_sims = done
        self.last_stats = {"sims": done, "value_milli": round(1000 * float(result.value[0]))}
        self._last_value = (game.ply, float(result.value[0]))
        slot = int(result.chosen[0])
        if self.level is not None and self.level.softened:
            slot = self._level_slot(mcts, result, game)
        won = int(result.proof[0]) == PROVEN_WIN and slot == int(result.chosen[0])
        self.last_proof = int(result.proof_plies[0]) if won else None
        move = int(result.moves[0, slot])
        board, hist = game.board.copy(), game.hist.copy()
        play(board, hist, move)
        mcts.advance(0, slot, board, hist)
        return move

    def budget_for(self, budget: Budget | None) -> Budget:
        """What a move searches when ``budget`` is asked (the module docstring's list): always
        ``sims`` or ``time_s`` or both; a level below the top searches at most its own."""
        d = self.default_budget
        if budget is None or not (budget.sims or budget.time_s):
            return d
        b = budget
        if not b.sims and b.depth is not None:  # a time cap on a depth request: the default, capped
            b = Budget(sims=d.sims, time_s=min(t for t in (d.time_s, b.time_s) if t))
        return self.level.limit(b) if self.level is not None else b

    def _level_slot(self, mcts: BatchedMCTS, result: SearchResult, game: Game) -> int:
        """The root slot a softened level plays (``players.levels.pick``), drawn with a generator
        seeded by the player's seed and the position: a seeded game replays move for move."""
        n = int(result.n_legal[0])
        t = mcts.tree
        first = int(t.node_first[0, t.roots[0]])
        prior = np.array(t.edge_prior_raw[0, first:first + n], np.float64)
        key = int(position_key(game.board, game.hist)) & 0xFFFF_FFFF_FFFF
        rng = np.random.default_rng([self.seed, game.ply, key])
        proven = int(result.proof[0]) in (PROVEN_WIN, PROVEN_LOSS)
        return pick(self.level, result.visits[0, :n], prior, result.move_proof[0, :n] == PROVEN_LOSS, proven,
                    int(result.chosen[0]), rng)

    def is_hard(self, result: SearchResult, game: Game) -> bool:
        """Whether a search's root deserves more time: unproven, and no move holds
        :data:`HARD_SHARE` of its visits or its value fell by :data:`VALUE_DROP` since this
        player's last move (two plies ago) in the same game."""
        if int(result.proof[0]) != 0:
            return False  # proven: more search changes nothing
        visits = result.visits[0, :int(result.n_legal[0])]
        if visits.size < 2 or float(visits.sum()) <= 0:
            return False  # a forced move
        if float(visits.max()) < HARD_SHARE * float(visits.sum()):
            return True
        ply, value = self._last_value
        return ply == game.ply - 2 and value - float(result.value[0]) >= VALUE_DROP

    def close(self) -> None:
        self._mcts = None


def make_player(seed: int, name: str, ckpt: str | None = None, sims: int | None = None, gumbel: bool = False,
                device: str = "auto", cpuct: float = C_PUCT, leaves: int = DEFAULT_LEAVES,
                backend: str = "auto", time: float | None = None, hard: bool = True,
                level: int | None = None, contempt: float = 0.0) -> AlphaZeroPlayer:
    """The ``alphazero`` spec kind (``players.registry``): a missing or damaged checkpoint, an
    unknown backend or one the device cannot run, ``level=`` with ``sims=``/``time=``/``gumbel=``,
    is a spec error for the user."""
    try:
        return AlphaZeroPlayer(ckpt, sims=sims, gumbel=gumbel, device=device, cpuct=cpuct, seed=seed,
                               name=name, leaves=leaves, backend=backend, time_s=time, hard=hard, level=level,
                               contempt=contempt)
    except Exception as e:
        raise PlayerSpecError(f"player 'alphazero': {e}") from None
