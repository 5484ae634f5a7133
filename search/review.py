"""A game's review: every position searched, every move judged, the way players review theirs.

For each position of the game, the network's win/draw/loss estimate and a search of ``sims``
simulations; all positions are searched at once, as one batch of trees (no root noise). Each move
(:class:`PlyReview`) gets White's expected score, the search's best move, the drop in the mover's
expected score, a mark by that drop (:data:`THRESHOLDS`), and the exact checks' ``missed win`` /
``allowed win``. :func:`review_game` is ``hive-analyse``'s and hive-web's review.

See docs/players.md (``hive-analyse``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from hive_env import Game
from hive_env.outcome import score_for
from hive_env.tactics import PROVEN_LOSS, PROVEN_WIN, move_proofs

from .evaluation import Evaluation, Network
from .mcts import BatchedMCTS, SearchConfig, SearchResult

THRESHOLDS = (("blunder", 0.30), ("mistake", 0.20), ("inaccuracy", 0.10))
"""Marks by the mover's drop in expected score (0..1), worst first."""
DEFAULT_SIMS = 400
DEFAULT_LEAVES = 4

# ``Network`` lives in ``search.evaluation``; it stays importable from here.
__all__ = ["DEFAULT_LEAVES", "DEFAULT_SIMS", "MARK_COLOURS", "THRESHOLDS", "GameReview", "Network",
           "PlyReview", "mark_of", "plot_review", "review_game", "table", "tactic_of"]


@dataclass(frozen=True)
class PlyReview:
    """One move of the game and the position before it.

    - ``white_score``: White's expected score before the move, from the search's root value;
    - ``best`` and ``best_share``: the most visited move and its share of the root's visits;
    - ``played_rank``: the played move's rank by visits (1 = the best; ties by the network's prior);
    - ``drop``: how much the move cost the mover in expected score: the mover's score before the
      move minus after it (the next position's search, or the exact result when the game ended),
      at least 0; 0 when the played move is the search's best (two searches disagree by noise);
    - ``mark``: by the drop (:func:`mark_of`);
    - ``tactic``: from the exact one-move checks (:func:`tactic_of`), never from the network.
    """

    ply: int
    mover: str
    played: str
    white_wdl: tuple[float, float, float]
    white_score: float
    best: str
    best_share: float
    played_rank: int
    played_share: float
    drop: float
    mark: str
    tactic: str


@dataclass
class GameReview:
    """The review of a whole game: one :class:`PlyReview` a move, and the last position's score."""

    game_string: str
    sims: int
    plies: list[PlyReview] = field(default_factory=list)
    final_white_score: float = 0.5
    cancelled: bool = False

    def white_scores(self) -> list[float]:
        """White's expected score before each move and at the end (len(plies) + 1 values)."""
        return [p.white_score for p in self.plies] + [self.final_white_score]

    def to_json(self) -> dict:
        return {"game_string": self.game_string, "sims": self.sims, "thresholds": dict(THRESHOLDS),
                "final_white_score": self.final_white_score, "cancelled": self.cancelled,
                "plies": [asdict(p) for p in self.plies]}

    def write_json(self, path: str | Path) -> Path:
        from hive_env.files import write_atomic

        return write_atomic(path, json.dumps(self.to_json(), indent=1) + "\n")


def mark_of(drop: float, tactic: str) -> str:
    """The mark of a move that cost its mover ``drop``: by :data:`THRESHOLDS`, in expected-score
    points (half of lichess's winning-chance thresholds of 0.1 / 0.2 / 0.3, doubled for a small
    network's noise): ``inaccuracy`` >= 0.10, ``mistake`` >= 0.20, ``blunder`` >= 0.30. A move
    with a tactic mark is a blunder whatever its drop."""
    if tactic:
        return "blunder"
    return next((name for name, at in THRESHOLDS if drop >= at), "")


def tactic_of(game: Game, move: int) -> str:
    """``missed win`` / ``allowed win`` / "" for ``move`` in ``game``'s position (exact checks,
    ``hive_env.tactics``): ``missed win`` when a move surrounding the opponent's queen existed and
    another was played; ``allowed win`` when the played move lets the opponent win at once (or
    loses at once) while a move that does not existed."""
    moves, codes = move_proofs(game.board, game.hist)
    code = dict(zip(moves.tolist(), codes.tolist(), strict=True)).get(int(move), 0)
    if code != PROVEN_WIN and (codes == PROVEN_WIN).any():
        return "missed win"
    if code == PROVEN_LOSS and (codes != PROVEN_LOSS).any():
        return "allowed win"
    return ""


def _positions(game: Game) -> tuple[list[Game], list[int]]:
    """Every position of ``game`` from its start (copies) and the moves played between them."""
    moves = list(game.moves)
    start = Game(game.game_type)
    positions = [start.copy()]
    for m in moves:
        start.play(int(m))
        positions.append(start.copy())
    return positions, [int(m) for m in moves]


def review_game(game: Game, network: Network, sims: int = DEFAULT_SIMS, leaves: int = DEFAULT_LEAVES,
                progress: Callable[[float], None] | None = None,
                cancelled: Callable[[], bool] | None = None) -> GameReview:
    """The review of ``game`` (its moves from the start): every position's win/draw/loss
    (``Network.evaluate_many``) and search, one batch of trees (:class:`search.mcts.BatchedMCTS`),
    so the network sees a batch of leaves per call.

    Args:
        game: the game (not changed); its positions are replayed from its game type's start.
        network: :meth:`Network.load`; one that learnt another game type is refused first.
        sims: simulations a position.
        leaves: leaves per tree per network call (as the ``alphazero`` player's ``leaves``).
        progress: called with the share done (0..1) after each step of the search.
        cancelled: asked after each step; True ends the review early (``GameReview.cancelled``,
            ``plies`` then empty).

    Raises:
        EvaluationError: the network learnt another game type (``Network.check_game_type``).
    """
    network.check_game_type(game.game_type)
    positions, moves = _positions(game)
    live = [i for i, p in enumerate(positions) if not p.is_over]
    review = GameReview(game.game_string(), sims)
    values = np.full(len(positions), np.nan)
    for i, p in enumerate(positions):
        if p.is_over:
            values[i] = score_for(p.status, 0)  # White's view
    result = None
    if live:
        config = SearchConfig(sims=sims, dirichlet_eps=0.0, leaves_per_tree=leaves, tree_reuse=False)
        mcts = BatchedMCTS(config, len(live), game.expansions, network.evaluator)
        steps, total = [0], max(1, -(-sims // leaves))

        def stop() -> bool:
            steps[0] += 1
            if progress is not None:
                progress(min(1.0, steps[0] / total))
            return bool(cancelled and cancelled())

        boards = np.stack([positions[i].board for i in live])
        hists = np.stack([positions[i].hist for i in live])
        result = mcts.search(boards, hists, np.arange(len(live)), add_noise=False, stop=stop)
        if cancelled and cancelled():
            review.cancelled = True
            return review
        for row, i in enumerate(live):
            v = float(result.value[row])
            values[i] = v if positions[i].side_to_move == 0 else -v
    white_scores = (1 + values) / 2
    views = network.evaluate_many(positions[:len(moves)])  # a move was played from each: in progress
    row_of = {i: r for r, i in enumerate(live)}
    for k, move in enumerate(moves):
        scores = (white_scores[k], white_scores[k + 1])
        review.plies.append(_judge(positions[k], move, result, row_of[k], scores, views[k]))
    review.final_white_score = float(white_scores[-1])
    return review


def _judge(position: Game, move: int, result: SearchResult, row: int, scores: tuple[float, float],
           view: Evaluation) -> PlyReview:
    """The review of ``move`` played in ``position`` (searched as ``result``'s tree ``row``;
    ``view``: the network's evaluation there); ``scores``: White's expected score before and
    after the move."""
    priors = view.move_priors
    before, after = scores
    n = int(result.n_legal[row])
    slots = result.moves[row, :n].tolist()
    visits = result.visits[row, :n].astype(np.float64)
    order = sorted(range(n), key=lambda s: (visits[s], priors.get(slots[s], 0.0)), reverse=True)
    best = order[0]
    played = slots.index(move)
    total = max(visits.sum(), 1.0)
    white = position.side_to_move == 0
    mover_before, mover_after = (before, after) if white else (1 - before, 1 - after)
    drop = 0.0 if played == best else max(0.0, mover_before - mover_after)
    tactic = tactic_of(position, move)
    return PlyReview(ply=position.ply, mover="white" if white else "black", played=position.move_string(move),
                     white_wdl=(view.white, view.draw, view.black),
                     white_score=round(float(before), 4), best=position.move_string(slots[best]),
                     best_share=round(float(visits[best] / total), 4), played_rank=order.index(played) + 1,
                     played_share=round(float(visits[played] / total), 4), drop=round(float(drop), 4),
                     mark=mark_of(drop, tactic), tactic=tactic)


MARK_COLOURS = {"inaccuracy": "#e6b800", "mistake": "#e67300", "blunder": "#cc0000"}


def table(review: GameReview) -> str:
    """The review as a table for a terminal, one line a move."""
    lines = [f"{'ply':>4}  {'move':<14}{'White':>6}  {'best (share)':<22}{'rank':>5}{'drop':>7}  mark"]
    for p in review.plies:
        mark = ", ".join(x for x in (p.mark, p.tactic) if x)
        best = f"{p.best} ({100 * p.best_share:.0f}%)"
        lines.append(f"{p.ply + 1:>4}  {p.played:<14}{100 * p.white_score:>5.0f}%  {best:<22}"
                     f"{p.played_rank:>5}{p.drop:>7.2f}  {mark}")
    lines.append(f"{'end':>4}  {'':<14}{100 * review.final_white_score:>5.0f}%")
    return "\n".join(lines)


def plot_review(review: GameReview, path: str | Path, title: str = "") -> Path:
    """A PNG of White's expected score over the game, the marked moves as coloured dots."""
    import matplotlib

    matplotlib.use("Agg")  # files only, no window
    import matplotlib.pyplot as plt

    scores = review.white_scores()
    fig, ax = plt.subplots(figsize=(10, 3.6), dpi=110)
    ax.axhline(0.5, color="#999999", lw=0.8)
    ax.fill_between(range(len(scores)), scores, 0.5, color="#dddddd")
    ax.plot(range(len(scores)), scores, color="#333333", lw=1.5)
    for name, colour in MARK_COLOURS.items():
        marked = [p for p in review.plies if p.mark == name]
        if marked:  # the score after the marked move: where the drop shows
            ax.scatter([p.ply + 1 for p in marked], [scores[p.ply + 1] for p in marked], color=colour,
                       s=36, zorder=3, label=f"{name} ({len(marked)})")
    ax.set_ylim(0, 1)
    ax.set_xlim(0, max(1, len(scores) - 1))
    ax.set_xlabel("ply")
    ax.set_ylabel("White's expected score")
    ax.set_title(title or f"review at {review.sims} simulations a position")
    if any(p.mark for p in review.plies):
        ax.legend(loc="upper left", fontsize=8, frameon=False)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return Path(path)
