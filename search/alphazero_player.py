"""The AlphaZero player: a checkpoint's network guiding tree search, behind the player interface.

Spec: ``alphazero:ckpt=PATH[,sims=N][,gumbel=1][,device=cpu|cuda|auto][,cpuct=X]``. A budget's
``sims`` overrides the spec's; a ``time_s`` budget searches in chunks until the time is up.
The tree is kept between moves of one game (the chosen subtree, then the opponent's reply).
No root noise: this is play, not self-play.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

import torch

from players.base import PlayerSpecError

from .checkpoint import load_model
from .leaves import play
from .mcts import BatchedMCTS, SearchConfig
from .network import make_evaluator, pick_device

if TYPE_CHECKING:
    from hive_env import Game

DEFAULT_SIMS = 200
TIME_CHUNK_SIMS = 16


class AlphaZeroPlayer:
    """Network + batched search (batch of one game) as a :class:`players.registry.Player`."""

    def __init__(self, ckpt: str | Path, sims: int = DEFAULT_SIMS, gumbel: bool = False,
                 device: str = "auto", cpuct: float = 1.5, seed: int = 0, name: str = "alphazero"):
        self.name = name
        self.device = pick_device(device)
        if self.device.type == "cpu":
            torch.set_num_threads(1)  # small batches: more threads only spin (and stall under load)
        self.model, state = load_model(ckpt, self.device)
        self.step = state.get("step")
        self.evaluate = make_evaluator(self.model, self.device, bf16=self.device.type == "cuda")
        self.sims = sims
        self.config = SearchConfig(sims=sims, gumbel=gumbel, dirichlet_eps=0.0, c_puct=cpuct)
        self.seed = seed
        self._mcts: BatchedMCTS | None = None
        self._kept_ply = -1  # ply of the position the kept tree's root holds

    def _search_tree(self, game: Game, sims: int) -> BatchedMCTS:
        if self._mcts is None or self._mcts.expansions != game.expansions or self._mcts.config.sims != sims:
            cfg = SearchConfig(**{**vars(self.config), "sims": sims})
            self._mcts = BatchedMCTS(cfg, 1, game.expansions, self.evaluate)
            self._kept_ply = -1
        mcts = self._mcts
        # Follow the opponent's reply down the kept tree when it is the next ply.
        if self._kept_ply >= 0 and game.ply == self._kept_ply + 1 and game.moves:
            slot = mcts.child_slot(0, game.moves[-1])
            if slot is not None:
                mcts.advance(0, slot, game.board, game.hist)
        return mcts

    def choose(self, game: Game, budget=None) -> int:
        if game.is_over:
            raise ValueError(f"the game is over ({game.state}): there is no move to choose")
        sims = self.sims
        if budget is not None and getattr(budget, "sims", None):
            sims = int(budget.sims)
        deadline = None
        if budget is not None and getattr(budget, "time_s", None) and not getattr(budget, "sims", None):
            deadline = time.perf_counter() + float(budget.time_s) * 0.9
            sims = TIME_CHUNK_SIMS
        mcts = self._search_tree(game, sims)
        seed = (self.seed * 1_000_003 + game.ply) % (2**31)
        result = mcts.search(game.board[None], game.hist[None], [seed], add_noise=False)
        while deadline is not None and time.perf_counter() < deadline:
            result = mcts.search(game.board[None], game.hist[None], [seed], add_noise=False)
        slot = int(result.chosen[0])
        move = int(result.moves[0, slot])
        board, hist = game.board.copy(), game.hist.copy()
        play(board, hist, move)
        mcts.advance(0, slot, board, hist)
        self._kept_ply = game.ply + 1
        return move

    def close(self) -> None:
        self._mcts = None


def make_player(seed: int, name: str, ckpt: str, sims: int = DEFAULT_SIMS, gumbel: bool = False,
                device: str = "auto", cpuct: float = 1.5) -> AlphaZeroPlayer:
    """The ``alphazero`` spec kind (``players.registry``): a missing or damaged checkpoint is a
    spec error for the user."""
    try:
        return AlphaZeroPlayer(ckpt, sims=sims, gumbel=gumbel, device=device, cpuct=cpuct, seed=seed,
                               name=name)
    except Exception as e:
        raise PlayerSpecError(f"player 'alphazero': {e}") from None
