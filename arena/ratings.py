"""Match statistics: one rating model for every score, Elo and interval the arena reports.

A Bradley-Terry (logistic) model with ``prior_draws`` virtual drawn games per played pairing,
its 95% likelihood-ratio (profile likelihood) intervals, and which players it rates: for one
pairing (:func:`pairing_stats`) and for many players (:func:`fit_elo`). Plain numpy, no I/O, so
the arena, notebooks and tests share one set of formulas.

See docs/arena.md (the rating model).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

ELO_PER_NAT = 400.0 / math.log(10.0)
"""Elo points per natural-log unit of the logistic model (173.7...)."""
Z95 = 1.959963984540054
"""The two-sided 95% normal quantile."""
PRIOR_DRAWS = 1.0
"""Virtual drawn games per played pairing: the default prior of every score and rating."""
_CAP = 1000.0
"""Nats (173,718 Elo) beyond which an interval's bound counts as infinite."""
_TOL = 1e-10
"""Root finding stops when the log-likelihood is this close to its target, or the bracket this narrow."""


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

    ``score`` is the observed score, ``elo`` the model's estimate of the Elo difference (with the
    prior), ``score_lo``/``score_hi`` and ``elo_lo``/``elo_hi`` one likelihood-ratio interval on
    the two scales (docs/arena.md). All NaN when no game was played.
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


def _sigmoid(r: float) -> float:
    """``1 / (1 + exp(-r))``, exactly 0 and 1 only at -inf and +inf."""
    if r >= 0:
        return 1.0 / (1.0 + math.exp(-r))
    e = math.exp(r)
    return e / (1.0 + e)


def _log_lik(a: float, b: float, r: float) -> float:
    """``a log sigmoid(r) + b log sigmoid(-r)``: a pairing's log-likelihood at Elo difference ``r`` (nats)."""
    return -(a * float(np.logaddexp(0.0, -r)) + b * float(np.logaddexp(0.0, r)))


def _root(f: Callable[[float], float], target: float, start: float, direction: float,
          step: float) -> float:
    """Where ``f`` falls to ``target`` going from ``start`` (``f(start) >= target``) in ``direction``;
    ``direction * inf`` when it stays above beyond :data:`_CAP` nats. The bracket is widened by
    doubling, then closed by the Illinois method (regula falsi, halving a stuck end's weight)."""
    a, fa = start, f(start) - target
    b = start + direction * step
    while (fb := f(b) - target) >= 0:
        if abs(b) > _CAP:
            return direction * math.inf
        step *= 2.0
        a, fa, b = b, fb, start + direction * step
    side = 0
    for _ in range(200):
        c = b - fb * (b - a) / (fb - fa)
        fc = f(c) - target
        if abs(fc) < _TOL or abs(b - a) < _TOL:
            return c
        if fc < 0:
            b, fb, fa = c, fc, fa * (0.5 if side < 0 else 1.0)
            side = -1
        else:
            a, fa, fb = c, fc, fb * (0.5 if side > 0 else 1.0)
            side = 1
    return c


def _drop_interval(f: Callable[[float], float], mode: float, drop: float,
                   step: float = 1.0) -> tuple[float, float]:
    """The interval around the maximum ``mode`` of the concave ``f`` where ``f >= f(mode) - drop``."""
    target = f(mode) - drop
    return _root(f, target, mode, -1.0, step), _root(f, target, mode, 1.0, step)


def _pairing_nats(points: float, n: int, z: float, prior_draws: float) -> tuple[float, float, float]:
    """Estimate and interval of a pairing's Elo difference in nats (docs/arena.md).

    With ``c = prior_draws``, ``a = points + c/2`` and ``b = n - points + c/2``, the log-likelihood
    of the difference ``r`` is ``a log sigmoid(r) + b log sigmoid(-r)``: the estimate is
    ``sigmoid(r) = a / (a + b)`` (Elo ``elo_from_score(a / (a + b))``), the interval where
    that function is within ``z**2 / 2`` of its maximum. A draw counts as half a win and half a
    loss, so its variance is taken as a coin flip's (``p (1 - p)``, really ``p (1 - p) - d/4`` at
    draw rate ``d``): with many draws the intervals are conservative.
    """
    a, b = points + 0.5 * prior_draws, n - points + 0.5 * prior_draws
    drop = 0.5 * z * z
    if b == 0:  # a perfect score without a prior: log L = n log sigmoid(r), largest at +inf
        return math.inf, -math.log(math.expm1(drop / n)), math.inf
    if a == 0:
        return -math.inf, -math.inf, math.log(math.expm1(drop / n))
    mode = math.log(a / b)
    lo, hi = _drop_interval(lambda r: _log_lik(a, b, r), mode, drop)
    return mode, lo, hi


def score_interval(wins: int, draws: int, losses: int, z: float = Z95,
                   prior_draws: float = PRIOR_DRAWS) -> tuple[float, float, float]:
    """The observed score and the likelihood-ratio interval of the true score (docs/arena.md).

    Returns:
        ``(score, lo, hi)``; all NaN when there are no games.
    """
    st = pairing_stats(wins, draws, losses, z, prior_draws)
    return st.score, st.score_lo, st.score_hi


def pairing_stats(wins: int, draws: int, losses: int, z: float = Z95,
                  prior_draws: float = PRIOR_DRAWS) -> PairingStats:
    """Counts, the observed score, and the model's Elo difference with its interval on both scales.

    Args:
        wins, draws, losses: the first player's results.
        z: the normal quantile of the intervals (95% by default): a drop of ``z**2 / 2``.
        prior_draws: virtual drawn games added to the pairing (as :func:`fit_elo`).
    """
    n = wins + draws + losses
    if n <= 0:
        return PairingStats(wins, draws, losses, *([math.nan] * 6))
    points = wins + 0.5 * draws
    r, lo, hi = _pairing_nats(points, n, z, prior_draws)
    return PairingStats(wins, draws, losses, points / n, _sigmoid(lo), _sigmoid(hi),
                        r * ELO_PER_NAT, lo * ELO_PER_NAT, hi * ELO_PER_NAT)


# ----- many players -----------------------------------------------------------------------------
@dataclass(frozen=True)
class EloFit:
    """Elo ratings of the model with its prior (see :func:`fit_elo`). Arrays are ``[P] float64``.

    Attributes:
        elo: rating relative to the anchor (0); NaN for unrated players.
        se: the curvature's standard error at the estimate (0 for the anchor), for reference.
        lo, hi: the 95% likelihood-ratio interval relative to the anchor (docs/arena.md).
        games: real games played (virtual prior games not counted).
        points: real points scored.
        cov: ``[P, P]`` covariance of the ratings from the curvature (NaN rows for unrated players).
        anchor: index of the anchor player.
        iterations: Newton steps taken.
        rated: ``[P] bool``, whether the games bound the player's rating (docs/arena.md).
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
    rated: np.ndarray


def _reach(edges: np.ndarray, start: int) -> np.ndarray:
    """``[P] bool``: the players reached from ``start`` along ``edges[i, j]`` (``i`` to ``j``)."""
    seen = np.zeros(len(edges), dtype=bool)
    seen[start] = True
    stack = [start]
    while stack:
        i = stack.pop()
        for j in np.flatnonzero(edges[i] & ~seen):
            seen[j] = True
            stack.append(int(j))
    return seen


def rated_players(points: np.ndarray, games: np.ndarray, anchor: int) -> np.ndarray:
    """``[P] bool``: a chain of "scored at least a draw against" leads from the player to the
    anchor or from the anchor to it (docs/arena.md); the anchor is rated."""
    scored = (np.asarray(points) > 0) & (np.asarray(games) > 0)
    return _reach(scored, anchor) | _reach(scored.T, anchor)


def _check_mle_exists(points: np.ndarray, members: np.ndarray) -> None:
    """Without a prior the maximum exists iff "scored against" is strongly connected."""
    idx = np.flatnonzero(members)
    scored = points[np.ix_(idx, idx)] > 0
    if not (_reach(scored, 0).all() and _reach(scored.T, 0).all()):
        raise ValueError("no finite maximum-likelihood ratings: some players won or lost every game "
                         "against the rest; use prior_draws > 0")


def _solve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a^-1 b``, by least squares where ``a`` is singular (saturated pairings far out)."""
    try:
        return np.linalg.solve(a, b)
    except np.linalg.LinAlgError:
        return np.linalg.lstsq(a, b, rcond=None)[0]


class _Model:
    """The log-likelihood of ratings ``r`` (nats) given points and games with the virtual draws."""

    def __init__(self, points: np.ndarray, games: np.ndarray):
        self.points, self.games = points, games

    def loglik(self, r: np.ndarray) -> float:
        return float(-(self.points * np.logaddexp(0.0, -(r[:, None] - r[None, :]))).sum())

    def gradient_and_information(self, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The gradient of :meth:`loglik` and minus its Hessian."""
        p = 0.5 * (1.0 + np.tanh(0.5 * (r[:, None] - r[None, :])))
        w = self.games * p * p.T
        return (self.points - self.games * p).sum(axis=1), np.diag(w.sum(axis=1)) - w

    def maximize(self, r: np.ndarray, free: np.ndarray, tol: float, max_iter: int) -> tuple[np.ndarray, int]:
        """Newton's method with step halving over the ``free`` ratings from ``r``; the others stay."""
        iterations = 0
        while len(free) and iterations < max_iter:
            grad, info = self.gradient_and_information(r)
            step = np.zeros_like(r)
            step[free] = _solve(info[np.ix_(free, free)], grad[free])
            iterations += 1
            base, t = self.loglik(r), 1.0
            while self.loglik(r + t * step) < base - 1e-12 and t > 1e-6:
                t *= 0.5
            r = r + t * step
            if np.abs(t * step).max() < tol:
                break
        return r, iterations

    def profile_interval(self, r: np.ndarray, free: np.ndarray, i: int, drop: float,
                         tol: float, max_iter: int) -> tuple[float, float]:
        """Where ``r_i``'s profile log-likelihood (the others maximized) is within ``drop`` of the
        maximum ``r``; each try starts where the curvature says the others follow ``r_i``."""
        rest = free[free != i]
        info = self.gradient_and_information(r)[1]
        follow = np.zeros_like(r)
        follow[i] = 1.0
        if len(rest):
            follow[rest] = -_solve(info[np.ix_(rest, rest)], info[rest, i])

        def profile(t: float) -> float:
            return self.loglik(self.maximize(r + (t - r[i]) * follow, rest, tol, max_iter)[0])

        return _drop_interval(profile, float(r[i]), drop)


def _checked(points: np.ndarray, games: np.ndarray, anchor: int,
             prior_draws: float) -> tuple[np.ndarray, np.ndarray]:
    """Float copies of the tables with zero diagonals.

    Raises:
        ValueError: bad shapes or values.
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
    return S, N


def _covariance(info: np.ndarray, free: np.ndarray, anchor: int) -> np.ndarray:
    """``[P, P]`` Elo covariance from the information with the anchor fixed; NaN off the component."""
    P = len(info)
    cov = np.full((P, P), np.nan)
    cov[anchor, anchor] = 0.0
    if len(free):
        cov[np.ix_(free, free)] = np.linalg.inv(info[np.ix_(free, free)]) * ELO_PER_NAT**2
        cov[anchor, free] = cov[free, anchor] = 0.0
    return cov


def fit_elo(points: np.ndarray, games: np.ndarray, anchor: int = 0, prior_draws: float = PRIOR_DRAWS,
            z: float = Z95, tol: float = 1e-10, max_iter: int = 100) -> EloFit:
    """Bradley-Terry ratings with ``prior_draws`` virtual draws per pairing, anchored at 0, with
    likelihood-ratio intervals (docs/arena.md, the rating model).

    Maximized with Newton's method (step halving), the anchor fixed at 0. ``se`` is the
    curvature's standard error (the inverse observed Fisher information, anchor removed), for
    reference: for two players with ``c = 0``, ``se(Elo) = 400 / (ln 10 * sqrt(n s (1 - s)))``
    (60/20/20: +147.2, se 37.9); 60/20/20 with one virtual draw becomes 70.5 of 101 points, +145.6.

    Args:
        points: ``[P, P]`` points ``i`` scored against ``j`` (win 1, draw 1/2); zero diagonal.
        games: ``[P, P]`` symmetric game counts; ``points + points.T == games``.
        anchor: index of the player whose rating is 0.
        prior_draws: virtual drawn games added to each pairing with games (0 = none).
        z: the normal quantile of the intervals (95% by default): a drop of ``z**2 / 2``.
        tol: stop when the largest Newton step is below this (natural units).
        max_iter: at most this many Newton steps.

    Raises:
        ValueError: bad shapes or values, or ``prior_draws=0`` and no finite maximum exists.
    """
    S, N = _checked(points, games, anchor, prior_draws)
    P = len(S)
    members = _reach(N > 0, anchor)
    if prior_draws == 0 and members.sum() > 1:
        _check_mle_exists(S, members)
    played = N > 0
    model = _Model(S + 0.5 * prior_draws * played, N + prior_draws * played)
    free = np.flatnonzero(members & (np.arange(P) != anchor))
    r, iterations = model.maximize(np.zeros(P), free, tol, max_iter)
    cov = _covariance(model.gradient_and_information(r)[1], free, anchor)
    rated = rated_players(S, N, anchor)
    lo, hi = np.full(P, np.nan), np.full(P, np.nan)
    lo[anchor] = hi[anchor] = 0.0
    for i in free[rated[free]]:
        bounds = model.profile_interval(r, free, int(i), 0.5 * z * z, tol, max_iter)
        lo[i], hi[i] = (b * ELO_PER_NAT for b in bounds)
    cov[~rated] = np.nan
    cov[:, ~rated] = np.nan
    return EloFit(elo=np.where(rated, r * ELO_PER_NAT, np.nan), se=np.sqrt(np.diag(cov)), lo=lo, hi=hi,
                  games=N.sum(axis=1), points=S.sum(axis=1), cov=cov, anchor=anchor, iterations=iterations,
                  rated=rated)


def tally(n_players: int, results: Iterable[tuple[int, int, float]]) -> tuple[np.ndarray, np.ndarray]:
    """``(points, games)`` matrices for :func:`fit_elo` from ``(i, j, score of i)`` triples, one
    a game (counts of a pairing: :func:`game_scores`)."""
    points = np.zeros((n_players, n_players))
    games = np.zeros((n_players, n_players))
    for i, j, s in results:
        points[i, j] += s
        points[j, i] += 1.0 - s
        games[i, j] += 1
        games[j, i] += 1
    return points, games


def game_scores(wins: int, draws: int, losses: int) -> list[float]:
    """The first player's score in each game of a pairing's counts (1, 1/2, 0): :func:`tally`'s
    scores of ``wins + draws + losses`` games."""
    return [1.0] * wins + [0.5] * draws + [0.0] * losses
