"""Self-play: B games at once, each move chosen by batched tree search, samples out.

``SelfPlay.step()`` searches every game of a :class:`hive_env.vec_env.HiveVecEnv` in one
batched search, records a sample per game (the position and its search policy), plays the
chosen moves and returns the games that just finished, with their samples labelled by the
final result and their UHP GameString. Finished games restart at once (the env resets
them), so the batch stays full.

Capped games (``ply_cap``) are draws; with ``adjudicate_margin > 0`` a capped game is
instead scored as a win for the side whose pressure on the enemy queen (occupied
neighbours) is ahead by at least that margin: a denser learning signal for small runs. The
search values positions drawn by the cap by the same rule, so its targets agree with the labels.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from hive_env import Game
from hive_env.board import HIST, PLY, play
from hive_env.outcome import adjudicate, score_for
from hive_env.vec_env import HiveVecEnv
from search.mcts import BatchedMCTS, Evaluate, SearchConfig

from .replay import Samples


@dataclass(frozen=True)
class SelfPlayConfig:
    """Self-play settings.

    Args:
        games: games played at once per worker (the search batch B).
        temperature_plies: plies played by sampling from visit counts (tau = 1), then the
            most visited move (AlphaZero: 30 in chess).
        adjudicate_margin: see the module docstring; 0 = capped games are plain draws.
    """

    games: int = 32
    temperature_plies: int = 12
    adjudicate_margin: int = 0

    def __post_init__(self):
        if self.games < 1:
            raise ValueError(f"selfplay.games must be >= 1, got {self.games}")
        if self.temperature_plies < 0:
            raise ValueError(f"selfplay.temperature_plies must be >= 0, got {self.temperature_plies}")


@dataclass
class FinishedGame:
    """A finished self-play game: its samples, record and result."""

    samples: Samples
    game_string: str
    status: int
    plies: int
    truncated: bool


@dataclass
class _Trace:
    boards: list = field(default_factory=list)
    policies: list = field(default_factory=list)
    n_legal: list = field(default_factory=list)
    moves: list = field(default_factory=list)


class SelfPlay:
    """B concurrent self-play games of one game type."""

    def __init__(self, config: SelfPlayConfig, search: SearchConfig, game_type: str, ply_cap: int,
                 evaluate: Evaluate, seed: int):
        self.config = config
        self.env = HiveVecEnv(config.games, game_type, ply_cap=ply_cap)
        self.game_type = game_type
        self.mcts = BatchedMCTS(search, config.games, self.env.expansions, evaluate,
                                adjudicate_margin=config.adjudicate_margin)  # search values = labels
        self.rng = np.random.default_rng(seed)
        self.traces = [_Trace() for _ in range(config.games)]

    def set_evaluate(self, evaluate: Evaluate) -> None:
        """Use a new network from now on (old trees are dropped: their values are stale)."""
        self.mcts.evaluate = evaluate
        self.mcts.reset()

    def step(self) -> list[FinishedGame]:
        """One move in every game; returns the games that ended with it."""
        env, B = self.env, self.config.games
        plies = env.boards[:, PLY].astype(np.int64)
        temps = np.where(plies < self.config.temperature_plies, 1.0, 0.0)
        seeds = self.rng.integers(0, 2**31, size=B)
        boards_before = env.boards.copy()
        res = self.mcts.search(env.boards, env.hists, seeds, add_noise=True, temperature=temps)
        slots = res.chosen
        idx = np.arange(B)
        actions = res.actions[idx, slots]
        moves = res.moves[idx, slots]
        for b in range(B):
            t = self.traces[b]
            n = int(res.n_legal[b])
            t.boards.append(boards_before[b])
            t.policies.append(res.policy[b].astype(np.float16))
            t.n_legal.append(n)
            t.moves.append(int(moves[b]))
        _, _, terminated, truncated, info = env.step(actions)
        finished = []
        for b in range(B):
            if terminated[b] or truncated[b]:
                status = int(info["final_status"][b])
                if truncated[b]:
                    last = boards_before[b].copy()
                    status = self._capped_result(last, int(moves[b]))
                finished.append(self._finish(b, status, bool(truncated[b])))
                self.mcts.reset(np.array([b]))
            else:
                self.mcts.advance(b, int(slots[b]), env.boards[b], env.hists[b])
        return finished

    def _capped_result(self, board_before: np.ndarray, move: int) -> int:
        """Adjudicated result of a capped game from the position after its last move."""
        play(board_before, np.zeros(HIST, np.uint64), move)
        return adjudicate(board_before, self.config.adjudicate_margin)

    def _finish(self, b: int, status: int, truncated: bool) -> FinishedGame:
        t = self.traces[b]
        self.traces[b] = _Trace()
        boards = np.stack(t.boards)
        movers = boards[:, PLY] & 1
        z = np.where(movers == 0, score_for(status, 0), score_for(status, 1)).astype(np.int8)
        plies = len(boards)
        game = Game(self.game_type)
        for m in t.moves:
            if game.is_over:
                break
            game.play(m)
        samples = Samples(boards, np.stack(t.policies), np.array(t.n_legal, np.int16), z,
                          np.arange(plies, 0, -1, dtype=np.int16))
        return FinishedGame(samples, game.game_string(), status, plies, truncated)
