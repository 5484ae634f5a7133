"""Match statistics: scores with intervals, Elo <-> score, and maximum-likelihood Elo ratings.

Everything here is plain numpy, no I/O, so the arena, notebooks and tests share one set of
formulas.

**Score of a pairing.** A game scores 1 (win), 1/2 (draw) or 0 (loss). Over ``n = W + D + L``
games the score is ``s = (W + D/2) / n``. Its 95% interval is a *Wilson score interval
extended to draws* (:func:`score_interval`): Wilson's interval solves
``|s - p| = z * sqrt(v(p) / n)`` for the true score ``p``, with the per-game variance ``v(p)``
taken at ``p`` rather than at ``s``. With the observed draw rate ``d = D / n`` held fixed, a game
that scores ``p`` on average has variance ``v(p) = p(1 - p) - d/4``, so ``p`` solves::

    (1 + k) p**2 - (2 s + k) p + (s**2 + k d / 4) = 0,        k = z**2 / n

    p = [(2 s + k) -/+ sqrt(k (4 s (1 - s) - d) + k**2 (1 - d))] / (2 (1 + k))

With no draws this is the textbook Wilson interval. Unlike the plain normal interval
``s +/- z sqrt(var / n)`` it stays inside [0, 1] and does not collapse to a point when one side
won every game (10 wins of 10 gives [0.722, 1]). It does collapse when *every* game was drawn
(the draw rate is then taken as certain).

**Elo.** ``elo_from_score(s) = 400 log10(s / (1 - s))`` and its inverse
``score_from_elo(e) = 1 / (1 + 10**(-e / 400))``: the logistic Elo scale.

**Ratings of many players** (:func:`fit_elo`): a Bradley-Terry (logistic) model. Player ``i`` has
rating ``r_i`` (natural units; Elo = ``r * 400 / ln 10``) and scores against ``j`` with
expectation ``p_ij = sigmoid(r_i - r_j)``. A draw counts as half a win and half a loss, so with
``S_ij`` the points ``i`` scored against ``j`` and ``N_ij`` their games, the log-likelihood is::

    log L(r) = sum_{i != j} S_ij log p_ij              (S_ij + S_ji = N_ij)

It is concave; Newton's method (with step halving) finds the maximum. Ratings are only defined up
to a constant, so the anchor player is fixed at 0 and the others are solved for. The 95% interval
of each rating is ``elo +/- 1.96 se`` with ``se`` from the inverse of the observed Fisher information
(minus the Hessian of ``log L``, the anchor's row and column removed): it is the uncertainty of
the rating *relative to the anchor*, whose own interval is [0, 0].

Two players, ``n`` games, score ``s``: the maximum is at ``p = s``, i.e. Elo = ``elo_from_score(s)``,
and the information is ``n s (1 - s)`` in natural units, so::

    se(Elo) = 400 / (ln 10 * sqrt(n s (1 - s)))

which is also what the delta method gives from ``var(s) = s (1 - s) / n`` and
``d Elo / d s = 400 / (ln 10 s (1 - s))``. 60 wins, 20 draws, 20 losses: s = 0.7, Elo = 147.2,
se = 37.9, interval [72.9, 221.5]. The model treats every game as a Bernoulli trial of variance
``p (1 - p)``; draws make the true per-game variance smaller (``p (1 - p) - d/4``), so with many
draws these intervals are conservative (wider than needed).

**Perfect scores.** A player who won (or lost) every game has no finite maximum-likelihood
rating. ``fit_elo`` therefore adds ``prior_draws`` virtual drawn games (default 1) to every pairing
that has played: a weak prior that pulls perfect scores to a finite value (10 wins of 10 become
10.5 of 11 points, +528.9 Elo) and moves other estimates a little (60/20/20 becomes 70.5 of 101,
+145.6 instead of +147.2). ``prior_draws=0`` gives the pure maximum likelihood and raises
``ValueError`` when it does not exist. Players with no path of games to the anchor get NaN.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

ELO_PER_NAT = 400.0 / math.log(10.0)
"""Elo points per natural-log unit of the logistic model (173.7...)."""
Z95 = 1.959963984540054
"""The two-sided 95% normal quantile."""


# ----- score <-> Elo --------------------------------------------------------------------------
def elo_from_score(score: float | np.ndarray) -> float | np.ndarray:
    """Elo difference whose expected score is ``score`` (logistic): ``400 log10(s / (1 - s))``.

    ``score`` 0 and 1 give -inf and +inf.
    """
    s = np.asarray(score, dtype=np.float64)
    with np.errstate(divide="ignore"):
        out = 400.0 * (np.log10(s) - np.log10(1.0 - s))
    return float(out) if out.ndim == 0 else out


def score_from_elo(elo: float | np.ndarray) -> float | np.ndarray:
    """Expected score of a player ``elo`` points stronger: ``1 / (1 + 10**(-elo / 400))``."""
    e = np.asarray(elo, dtype=np.float64)
    out = 1.0 / (1.0 + np.power(10.0, -e / 400.0))
    return float(out) if out.ndim == 0 else out


# ----- one pairing ------------------------------------------------------------------------------
@dataclass(frozen=True)
class PairingStats:
    """One pairing seen from the first player: counts, score and Elo with 95% intervals.

    Non-finite values: NaN when no game was played; Elo +/-inf for a score of 1 or 0.
    """

    wins: int
    draws: int
    losses: int
    score: float
    score_lo: float
    score_hi: float
    elo: float
    elo_lo: float
    elo_hi: float

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses


def score_interval(wins: int, draws: int, losses: int, z: float = Z95) -> tuple[float, float, float]:
    """Score and its interval, Wilson's method extended to draws (see the module docstring).

    Returns:
        ``(score, lo, hi)``; all NaN when there are no games.
    """
    n = wins + draws + losses
    if n <= 0:
        return math.nan, math.nan, math.nan
    s = (wins + 0.5 * draws) / n
    d = draws / n
    k = z * z / n
    disc = k * (4.0 * s * (1.0 - s) - d) + k * k * (1.0 - d)
    root = math.sqrt(max(disc, 0.0))
    lo = (2.0 * s + k - root) / (2.0 * (1.0 + k))
    hi = (2.0 * s + k + root) / (2.0 * (1.0 + k))
    return s, min(max(lo, 0.0), s), max(min(hi, 1.0), s)


def pairing_stats(wins: int, draws: int, losses: int, z: float = Z95) -> PairingStats:
    """Counts, score interval (:func:`score_interval`) and the Elo difference it maps to."""
    s, lo, hi = score_interval(wins, draws, losses, z)
    elo, elo_lo, elo_hi = (elo_from_score(x) if not math.isnan(x) else math.nan for x in (s, lo, hi))
    return PairingStats(wins, draws, losses, s, lo, hi, elo, elo_lo, elo_hi)


# ----- many players -----------------------------------------------------------------------------
@dataclass(frozen=True)
class EloFit:
    """Maximum-likelihood Elo ratings (see :func:`fit_elo`). Arrays are ``[P] float64``.

    Attributes:
        elo: rating relative to the anchor (0); NaN for players not connected to it.
        se: standard error from the observed information (0 for the anchor).
        lo, hi: the 95% interval ``elo -/+ z se``.
        games: real games played (virtual prior games not counted).
        points: real points scored.
        cov: ``[P, P]`` covariance of the Elo ratings (NaN rows for unconnected players).
        anchor: index of the anchor player.
        iterations: Newton steps taken.
    """

    elo: np.ndarray
    se: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    games: np.ndarray
    points: np.ndarray
    cov: np.ndarray
    anchor: int
    iterations: int


def _component(games: np.ndarray, start: int) -> np.ndarray:
    """``[P] bool``: players linked to ``start`` by a chain of played pairings."""
    seen = np.zeros(len(games), dtype=bool)
    seen[start] = True
    stack = [start]
    while stack:
        i = stack.pop()
        for j in np.flatnonzero((games[i] > 0) & ~seen):
            seen[j] = True
            stack.append(int(j))
    return seen


def _check_mle_exists(points: np.ndarray, games: np.ndarray, members: np.ndarray) -> None:
    """Without a prior the maximum exists iff "scored against" is strongly connected."""
    idx = np.flatnonzero(members)
    scored = (points[np.ix_(idx, idx)] > 0).astype(np.int8)
    for graph in (scored, scored.T):
        reach = np.zeros(len(idx), dtype=bool)
        reach[0] = True
        stack = [0]
        while stack:
            i = stack.pop()
            for j in np.flatnonzero((graph[i] > 0) & ~reach):
                reach[j] = True
                stack.append(int(j))
        if not reach.all():
            raise ValueError("no finite maximum-likelihood ratings: some players won or lost every game "
                             "against the rest; use prior_draws > 0")


def fit_elo(points: np.ndarray, games: np.ndarray, anchor: int = 0, prior_draws: float = 1.0,
            z: float = Z95, tol: float = 1e-10, max_iter: int = 100) -> EloFit:
    """Bradley-Terry ratings by maximum likelihood, anchored at 0 (module docstring: the model).

    Args:
        points: ``[P, P]`` points ``i`` scored against ``j`` (win 1, draw 1/2); zero diagonal.
        games: ``[P, P]`` symmetric game counts; ``points + points.T == games``.
        anchor: index of the player whose rating is 0.
        prior_draws: virtual drawn games added to each pairing with games (0 = none).
        z: the normal quantile of the intervals (95% by default).
        tol: stop when the largest Newton step is below this (natural units).
        max_iter: at most this many Newton steps.

    Raises:
        ValueError: bad shapes or values, or ``prior_draws=0`` and no finite maximum exists.
    """
    S = np.array(points, dtype=np.float64)
    N = np.array(games, dtype=np.float64)
    P = len(S)
    if S.shape != (P, P) or N.shape != (P, P) or not 0 <= anchor < P:
        raise ValueError(f"points and games must be [P, P] with 0 <= anchor < P (got {S.shape}, {N.shape})")
    if not np.allclose(N, N.T) or not np.allclose(S + S.T, N) or (S < 0).any() or prior_draws < 0:
        raise ValueError("games must be symmetric, points + points.T == games, points >= 0, prior_draws >= 0")
    np.fill_diagonal(N, 0.0)
    np.fill_diagonal(S, 0.0)
    members = _component(N, anchor)
    if prior_draws == 0 and members.sum() > 1:
        _check_mle_exists(S, N, members)
    played = N > 0
    S_fit = S + 0.5 * prior_draws * played
    N_fit = N + prior_draws * played
    free = np.flatnonzero(members & (np.arange(P) != anchor))

    def loglik(r: np.ndarray) -> float:
        diff = r[:, None] - r[None, :]
        return float(-(S_fit * np.logaddexp(0.0, -diff)).sum())

    r = np.zeros(P)
    iterations = 0
    while True:
        p = 1.0 / (1.0 + np.exp(-(r[:, None] - r[None, :])))
        grad = (S_fit - N_fit * p).sum(axis=1)
        w = N_fit * p * p.T
        info = np.diag(w.sum(axis=1)) - w  # minus the Hessian
        hess_free = info[np.ix_(free, free)]
        if len(free) == 0 or iterations == max_iter:
            break
        iterations += 1
        step = np.zeros(P)
        step[free] = np.linalg.solve(hess_free, grad[free])
        base, t = loglik(r), 1.0
        while loglik(r + t * step) < base - 1e-12 and t > 1e-6:
            t *= 0.5
        r = r + t * step
        if np.abs(t * step).max() < tol:
            break

    cov = np.full((P, P), np.nan)
    cov[anchor, anchor] = 0.0
    if len(free):
        inv = np.linalg.inv(hess_free) * ELO_PER_NAT**2
        cov[np.ix_(free, free)] = inv
        cov[anchor, free] = cov[free, anchor] = 0.0
    elo = np.where(members, r * ELO_PER_NAT, np.nan)
    se = np.sqrt(np.diag(cov))
    return EloFit(elo=elo, se=se, lo=elo - z * se, hi=elo + z * se, games=N.sum(axis=1),
                  points=S.sum(axis=1), cov=cov, anchor=anchor, iterations=iterations)


def tally(n_players: int, results: list[tuple[int, int, float]]) -> tuple[np.ndarray, np.ndarray]:
    """``(points, games)`` matrices for :func:`fit_elo` from ``(i, j, score of i)`` triples."""
    points = np.zeros((n_players, n_players))
    games = np.zeros((n_players, n_players))
    for i, j, s in results:
        points[i, j] += s
        points[j, i] += 1.0 - s
        games[i, j] += 1
        games[j, i] += 1
    return points, games
