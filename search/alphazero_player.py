"""The AlphaZero player: a checkpoint's network guiding tree search, behind the player interface.

Spec: ``alphazero[:ckpt=PATH][,sims=N][,gumbel=1][,device=cpu|cuda|auto][,cpuct=X]``; without
``ckpt`` the network shipped with the package (``models.shipped``, its card in
``models/shipped/MODEL_CARD.md``).

Budgets (``players.base.Budget``), whichever limit comes first:

- none, an empty one, or ``depth`` only (depth means nothing to this search): the spec's
  ``sims`` (:attr:`AlphaZeroPlayer.default_budget`);
- ``sims``: that many simulations;
- ``time_s`` with ``sims`` or ``depth``: those simulations, stopped early when the time is up
  (a cap, e.g. hive-uhp's MaxTime);
- ``time_s`` alone: search until the time is up, however big the tree grows.

A PUCT search with a clock runs in chunks of ``CHUNK_SIMS`` simulations on the same tree (the
clock is read between chunks); with no root noise, chunks add up to exactly the tree one
search of their total builds. A Gumbel root's sequential halving cannot be split, so a capped
Gumbel ``sims`` budget is one search that the clock stops between steps (the move is chosen
among the candidates surviving then); a Gumbel time budget runs consecutive Gumbel searches
of ``CHUNK_SIMS`` on the growing tree.

The tree is kept between moves of one game (the chosen subtree, then the opponent's reply),
but only while the positions match exactly: the kept root must be the position just before
the opponent's move (``search.leaves.position_key``); any other game history starts afresh.
No root noise: this is play, not self-play.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import torch

from models import shipped
from players.base import Budget, PlayerSpecError, check_in_progress

from .checkpoint import load_model
from .leaves import play, position_key, previous_key
from .mcts import BatchedMCTS, SearchConfig, SearchResult
from .network import make_evaluator, pick_device

if TYPE_CHECKING:
    from hive_env import Game

DEFAULT_SIMS = 200
CHUNK_SIMS = 16
"""Simulations between two looks at the clock (one extra root evaluation per chunk)."""
TIME_SHARE = 0.9
"""Share of a time budget spent searching (the rest: choosing, replying)."""
TREE_SIMS = 2048
"""Most simulations the tree's initial room and its kept-tree limit are sized for: a bigger
budget grows the tree on demand instead of allocating it up front."""


class AlphaZeroPlayer:
    """Network + batched search (batch of one game) as a :class:`players.registry.Player`.

    Attributes:
        default_budget: ``Budget(sims=sims)``, what a bare request (e.g. hive-uhp's
            ``bestmove``) searches.
        last_sims: simulations the last ``choose`` performed.
        clock: seconds, monotonic (``time.perf_counter``; tests pass a fake one).
    """

    def __init__(self, ckpt: str | Path | None = None, sims: int = DEFAULT_SIMS, gumbel: bool = False,
                 device: str = "auto", cpuct: float = 1.5, seed: int = 0, name: str = "alphazero",
                 clock: Callable[[], float] = time.perf_counter):
        self.name = name
        self.device = pick_device(device)
        if self.device.type == "cpu":
            torch.set_num_threads(1)  # small batches: more threads only spin (and stall under load)
        self.model, state = load_model(shipped.CHECKPOINT if ckpt is None else ckpt, self.device)
        self.step = state.get("step")
        self.evaluate = make_evaluator(self.model, self.device, bf16=self.device.type == "cuda")
        self.sims = sims
        self.default_budget = Budget(sims=sims)
        self.config = SearchConfig(sims=sims, gumbel=gumbel, dirichlet_eps=0.0, c_puct=cpuct)
        self._tree_config = replace(self.config, sims=min(sims, TREE_SIMS))
        self.seed = seed
        self.clock = clock
        self.last_sims = 0
        self._mcts: BatchedMCTS | None = None

    def _kept_tree(self, game: Game) -> BatchedMCTS:
        """The search, its tree following ``game``: kept when its root is the current position or
        the position just before the opponent's last move (then that move's subtree), else reset."""
        if self._mcts is None or self._mcts.expansions != game.expansions:
            self._mcts = BatchedMCTS(self._tree_config, 1, game.expansions, self.evaluate)
        mcts = self._mcts
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
        mcts.config = replace(self.config, sims=sims)
        try:
            return mcts.search(game.board[None], game.hist[None], [seed], add_noise=False, stop=stop)
        finally:
            mcts.config = self._tree_config  # what tree-size limits (advance) follow

    def choose(self, game: Game, budget: Budget | None = None) -> int:
        check_in_progress(game)
        sims: int | None = self.sims
        time_s = budget.time_s if budget is not None else None
        if budget is not None and budget.sims:
            sims = int(budget.sims)
        elif time_s and (budget is None or budget.depth is None):
            sims = None  # a time budget: search until the time is up
        deadline = self.clock() + TIME_SHARE * float(time_s) if time_s else None
        mcts = self._kept_tree(game)
        chunk = CHUNK_SIMS
        stop = None
        if sims is not None and (deadline is None or self.config.gumbel):
            chunk = sims  # nothing to look at the clock for, or a schedule that cannot be cut
            if deadline is not None:
                stop = lambda: self.clock() >= deadline  # noqa: E731  (a Gumbel search, capped)
        done = 0
        while True:
            result = self._search(mcts, game, chunk if sims is None else min(chunk, sims - done), stop)
            done += int(result.sims_done[0])
            if sims is not None and done >= sims:
                break
            if deadline is not None and self.clock() >= deadline:
                break
        self.last_sims = done
        slot = int(result.chosen[0])
        move = int(result.moves[0, slot])
        board, hist = game.board.copy(), game.hist.copy()
        play(board, hist, move)
        mcts.advance(0, slot, board, hist)
        return move

    def close(self) -> None:
        self._mcts = None


def make_player(seed: int, name: str, ckpt: str | None = None, sims: int = DEFAULT_SIMS, gumbel: bool = False,
                device: str = "auto", cpuct: float = 1.5) -> AlphaZeroPlayer:
    """The ``alphazero`` spec kind (``players.registry``): a missing or damaged checkpoint is a
    spec error for the user."""
    try:
        return AlphaZeroPlayer(ckpt, sims=sims, gumbel=gumbel, device=device, cpuct=cpuct, seed=seed,
                               name=name)
    except Exception as e:
        raise PlayerSpecError(f"player 'alphazero': {e}") from None
