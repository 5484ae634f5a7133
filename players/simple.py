"""Players without search: uniform random, and one ply with the Hive heuristic."""

from __future__ import annotations

import numpy as np

from hive_env import Game
from hive_env.tactics import safe_moves

from .base import Budget, check_in_progress
from .heuristic import DEFAULT_WEIGHTS, score_moves


class RandomPlayer:
    """Uniform over the legal moves; ``seed`` fixes the sequence of choices."""

    def __init__(self, seed: int = 0, name: str = "random"):
        self.name = name
        self.threads = 1
        self._rng = np.random.default_rng(seed)

    def choose(self, game: Game, budget: Budget | None = None) -> int:
        check_in_progress(game)
        moves = game.legal_moves()
        return int(moves[self._rng.integers(len(moves))])

    def close(self) -> None:
        pass


class GreedyPlayer:
    """One ply: the move whose resulting position the heuristic likes best (a win first),
    among the moves after which the opponent cannot win at once (``hive_env.tactics``).

    Ties are broken uniformly at random by the seeded generator.
    """

    def __init__(self, seed: int = 0, name: str = "greedy", weights: np.ndarray | None = None):
        self.name = name
        self.threads = 1
        self._rng = np.random.default_rng(seed)
        self._weights = DEFAULT_WEIGHTS if weights is None else np.ascontiguousarray(weights, dtype=np.int32)
        self.last_stats: dict[str, int] = {}
        """``{"nodes": N}``: the positions the last ``choose`` scored, one per legal move."""

    def choose(self, game: Game, budget: Budget | None = None) -> int:
        check_in_progress(game)
        moves = game.legal_moves()
        scores = np.empty(len(moves), dtype=np.int64)
        score_moves(game.board.copy(), game.hist.copy(), moves, self._weights, scores)
        self.last_stats = {"nodes": len(moves)}
        # the exact one-move check: never a move after which the opponent wins at once
        scores[~safe_moves(game.board, game.hist, moves)] = np.iinfo(np.int64).min
        best = np.flatnonzero(scores == scores.max())
        return int(moves[best[self._rng.integers(len(best))]])

    def close(self) -> None:
        pass
