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

Playout-cap randomisation (KataGo, Wu 2019): with ``full_search_prob < 1`` a move gets the
full ``search.sims`` only with that probability (drawn per batched move, for all games at
once) and otherwise a fast search of ``fast_sims`` without root noise; only full-search
positions become samples. Games are then cheaper, so more results (value targets) are
learnt per CPU-hour, while every policy target still comes from a full search. Each
sample also keeps the search's root value ``q``, for value targets that mix it with the result,
and the final pressure on both queens, for the network's auxiliary head.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numba import njit

from hive_env import Game
from hive_env.board import HIST, PLY, play, repeats
from hive_env.outcome import adjudicate, queen_pressure, score_for
from hive_env.tactics import PROVEN_DRAW, PROVEN_LOSS, PROVEN_WIN, UNPROVEN
from hive_env.vec_env import HiveVecEnv
from hive_zero.checks import bounded, check_ranges
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
        full_search_prob: share of moves searched with ``search.sims`` and recorded as
            samples (playout-cap randomisation; 1 = every move, KataGo 0.25).
        fast_sims: simulations of the other moves' searches (at most ``search.sims``).
        proven_targets: sharpen a sample's targets with what the search proved
            (:func:`sharpen_targets`); off: the search's targets as they are (docs/search.md; why off:
            docs/strength.md, "The learning-efficiency options").
        avoid_repetition: where the chosen move reaches a position the game has already seen,
            play the move with the most policy that does not (if any): games keep going instead
            of shuffling to a draw by repetition. The samples' targets are the search's as they are.
    """

    games: int = bounded(32, ge=1)
    temperature_plies: int = bounded(12, ge=0)
    adjudicate_margin: int = 0
    full_search_prob: float = bounded(1.0, gt=0.0, le=1.0)
    fast_sims: int = bounded(8, ge=1)
    proven_targets: bool = False
    avoid_repetition: bool = False

    def __post_init__(self):
        check_ranges(self)


def sharpen_targets(policy: np.ndarray, q: float, move_proof: np.ndarray, n: int,
                    proof: int) -> tuple[np.ndarray, float]:
    """A sample's policy and root value sharpened by the search's proofs (``search.mcts.SearchResult``).

    A root proven won (or drawn): the policy is uniform over the moves that prove it and the
    value is exact. Otherwise the moves proven lost get no policy (the rest is renormalised;
    unchanged when every move is lost). Codes: ``hive_env.tactics.PROVEN_*`` (value = code - 2).
    """
    policy = np.array(policy, np.float32)
    codes = move_proof[:n]
    if proof != UNPROVEN:
        q = float(proof) - 2.0
    if proof in (PROVEN_WIN, PROVEN_DRAW) and (codes == proof).any():
        policy[:] = 0.0
        policy[:n] = (codes == proof) / float((codes == proof).sum())
        return policy, q
    lost = codes == PROVEN_LOSS
    kept = policy[:n].sum() - policy[:n][lost].sum()
    if lost.any() and not lost.all() and kept > 0:
        policy[:n][lost] = 0.0
        policy /= kept
    return policy, q


@njit(cache=True)
def unrepeated_choice(boards: np.ndarray, hists: np.ndarray, moves: np.ndarray, policy: np.ndarray,
                      n_legal: np.ndarray, chosen: np.ndarray) -> np.ndarray:
    """The slot each game plays: ``chosen``, unless its move repeats a position
    (``hive_env.board.repeats``) while another move does not; then the one of those with the
    most ``policy`` (the first on a tie)."""
    out = chosen.copy()
    for b in range(len(chosen)):
        if not repeats(boards[b], hists[b], moves[b, chosen[b]]):
            continue
        best, most = -1, -1.0
        for s in range(n_legal[b]):
            if s != chosen[b] and policy[b, s] > most and not repeats(boards[b], hists[b], moves[b, s]):
                best, most = s, policy[b, s]
        if best >= 0:
            out[b] = best
    return out


GAME_STATS = (("plies", np.int32), ("status", np.int8), ("truncated", np.bool_))
"""Per-game statistics of finished games: :class:`FinishedGame`'s fields of these names, as a
shard carries them (``game_<name>``, ``training.worker.make_shard``) and the run's metrics read
them (``training.metrics.Metrics.selfplay``)."""


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
    q: list = field(default_factory=list)
    plies: list = field(default_factory=list)  # the ply of each recorded position
    moves: list = field(default_factory=list)  # every move played, recorded or not


class SelfPlay:
    """B concurrent self-play games of one game type."""

    def __init__(self, config: SelfPlayConfig, search: SearchConfig, game_type: str, ply_cap: int,
                 evaluate: Evaluate, seed: int):
        self.config = config
        self.env = HiveVecEnv(config.games, game_type, ply_cap=ply_cap)
        self.game_type = game_type
        if config.full_search_prob < 1 and config.fast_sims > search.sims:
            raise ValueError(f"selfplay.fast_sims ({config.fast_sims}) must be at most "
                             f"search.sims ({search.sims})")
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
        full = self.config.full_search_prob >= 1 or self.rng.random() < self.config.full_search_prob
        boards_before = env.boards.copy()
        res = self.mcts.search(env.boards, env.hists, seeds, add_noise=full, temperature=temps,
                               sims=None if full else self.config.fast_sims)
        slots = res.chosen
        if self.config.avoid_repetition:
            slots = unrepeated_choice(env.boards, env.hists, res.moves, res.policy, res.n_legal, slots)
        idx = np.arange(B)
        actions = res.actions[idx, slots]
        moves = res.moves[idx, slots]
        for b in range(B):
            t = self.traces[b]
            t.moves.append(int(moves[b]))
            if full:
                policy, q = res.policy[b], float(res.value[b])
                if self.config.proven_targets:
                    policy, q = sharpen_targets(policy, q, res.move_proof[b], int(res.n_legal[b]),
                                                int(res.proof[b]))
                t.boards.append(boards_before[b])
                t.policies.append(policy.astype(np.float16))
                t.n_legal.append(int(res.n_legal[b]))
                t.q.append(q)
                t.plies.append(int(plies[b]))
        _, _, terminated, truncated, info = env.step(actions)
        finished = []
        ended = np.flatnonzero(terminated | truncated)
        for b in ended:
            status = int(info["final_status"][b])
            last = boards_before[b].copy()
            play(last, np.zeros(HIST, np.uint64), int(moves[b]))  # the final position
            if truncated[b]:
                status = adjudicate(last, self.config.adjudicate_margin)
            pressure = (queen_pressure(last, 0), queen_pressure(last, 1))
            finished.append(self._finish(int(b), status, bool(truncated[b]), pressure))
        self.mcts.reset(ended)
        self.mcts.advance_all(np.where(terminated | truncated, -1, slots), env.boards, env.hists)
        return finished

    def _finish(self, b: int, status: int, truncated: bool, pressure: tuple[int, int]) -> FinishedGame:
        t = self.traces[b]
        self.traces[b] = _Trace()
        plies = len(t.moves)
        game = Game(self.game_type)
        for m in t.moves:  # each one of its position's generated moves: no legality check
            if game.is_over:
                break
            game.play_trusted(m)
        return FinishedGame(self._samples(t, status, plies, pressure), game.game_string(), status, plies,
                            truncated)

    def _samples(self, t: _Trace, status: int, plies: int, pressure: tuple[int, int]) -> Samples:
        """The recorded positions of a finished game (none when PCR recorded none);
        ``pressure``: the final pressure on white's and black's queens."""
        if not t.boards:
            return Samples.empty(self.mcts.max_legal)
        boards = np.stack(t.boards)
        movers = boards[:, PLY] & 1
        z = np.where(movers == 0, score_for(status, 0), score_for(status, 1)).astype(np.int8)
        white, black = pressure
        own = np.where(movers == 0, white, black)
        other = np.where(movers == 0, black, white)
        return Samples(boards, np.stack(t.policies), np.array(t.n_legal, np.int16), z,
                       (plies - np.array(t.plies)).astype(np.int16), np.array(t.q, np.float16),
                       np.stack([own, other], axis=1).astype(np.int8))
