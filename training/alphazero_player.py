"""The AlphaZero player: a checkpoint's network guiding tree search, behind the player interface.

Spec: ``alphazero:ckpt=PATH[,sims=N][,gumbel=1][,device=cpu|cuda|auto][,cpuct=X]``. A budget's
``sims`` overrides the spec's; a ``time_s`` budget searches in chunks until the time is up.
The tree is kept between moves of one game (the chosen subtree, then the opponent's reply).
No root noise: this is play, not self-play.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import torch

from hive_env import Game
from hive_env.board import play

from .checkpoint import load_model
from .evaluator import make_evaluator, pick_device
from .mcts import BatchedMCTS, SearchConfig

DEFAULT_SIMS = 200
TIME_CHUNK_SIMS = 16


class AlphaZeroPlayer:
    """Network + batched search (batch of one game) as a :class:`training.players.Player`."""

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
        self.config = SearchConfig(sims=sims, gumbel=gumbel, dirichlet_eps=0.0, c_puct=cpuct,
                                   max_nodes=4 * sims + 64)
        self.seed = seed
        self._mcts: BatchedMCTS | None = None
        self._kept_ply = -1  # ply of the position the kept tree's root holds

    def _search_tree(self, game: Game, sims: int) -> BatchedMCTS:
        if self._mcts is None or self._mcts.expansions != game.expansions or self._mcts.config.sims != sims:
            cfg = SearchConfig(**{**vars(self.config), "sims": sims, "max_nodes": 4 * sims + 64})
            self._mcts = BatchedMCTS(cfg, 1, game.expansions, self.evaluate)
            self._kept_ply = -1
        mcts = self._mcts
        # Follow the opponent's reply down the kept tree when it is the next ply.
        if self._kept_ply >= 0 and game.ply == self._kept_ply + 1 and game.moves:
            root = mcts.roots[0]
            n = mcts.node_count[0, root]
            first = mcts.node_first[0, root]
            slots = np.flatnonzero(mcts.edge_move[0, first:first + max(n, 0)] == game.moves[-1])
            if slots.size:
                mcts.advance(0, int(slots[0]), game.board, game.hist)
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
