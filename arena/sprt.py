"""Sequential probability ratio test (SPRT) for gating: is A at least ``elo1`` stronger than B, or not
more than ``elo0``?

This is the generalized SPRT (GSPRT) that Fishtest uses (Michel Van den Bergh, "A practical
introduction to the GSPRT", 2016), on the *trinomial* model: each game is a win, draw or loss for
A with unknown probabilities ``(pw, pd, pl)``, and A's expected score is ``s = pw + pd/2``. The
hypotheses fix only the score, through the *logistic* Elo model::

    H0: s = s0 = score_from_elo(elo0)        H1: s = s1 = score_from_elo(elo1)

and leave the draw rate free (a nuisance parameter). The log-likelihood ratio replaces each
hypothesis by its best trinomial: the maximum-likelihood ``p`` with mean score ``s_i``. With the
observed frequencies ``f = (W, D, L) / n`` and outcome scores ``x = (1, 1/2, 0)``, Lagrange
multipliers give ``p_k = f_k / (1 + lam (x_k - s_i))`` where ``lam`` solves
``sum_k f_k (x_k - s_i) / (1 + lam (x_k - s_i)) = 0`` (one root, found by bisection), so::

    LLR = sum_k n_k log(p1_k / p0_k)

A frequency of 0 is replaced by a tiny pseudo-count (``1e-3`` games, as Fishtest does) so that
the constrained maximum exists from the first game on. For many games the LLR is close to the
normal approximation ``n (s1 - s0) (2 s - s0 - s1) / (2 var)``.

Wald's bounds for error rates ``alpha`` (accept H1 when H0 holds) and ``beta`` (accept H0 when H1
holds)::

    lower = log(beta / (1 - alpha))       upper = log((1 - beta) / alpha)

The test stops with H1 (``"H1"``: A passes the gate) once ``LLR >= upper`` and with H0 (``"H0"``:
A fails) once ``LLR <= lower``. Overshoot makes the real error rates a little smaller than
``alpha`` and ``beta``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from hive_zero.checks import bounded, check_ranges

from .ratings import score_from_elo

OUTCOME_SCORES = np.array([1.0, 0.5, 0.0])
"""Score of a win, a draw and a loss, the order of every (W, D, L) triple here."""
PSEUDO_COUNT = 1e-3
"""Games added to an outcome never seen, so the constrained maximum likelihood exists (Fishtest)."""


def _multiplier(freq: np.ndarray, s: float) -> np.ndarray:
    """``lam`` of the score-``s`` constrained maximum (module docstring), ``freq`` ``[..., 3]``.

    ``g(lam) = sum_k f_k a_k / (1 + lam a_k)`` with ``a = x - s`` falls from +inf to -inf on the
    open interval ``(-1 / (1 - s), 1 / s)`` where every ``p_k`` stays positive, so it has one root
    there. Times the (positive) product of the three denominators, ``g = 0`` is the quadratic
    ``a1 a2 a3 lam**2 + sum_k f_k a_k (a_j + a_l) lam + sum_k f_k a_k = 0`` (``sum f = 1``): take
    its root inside the interval.
    """
    a = OUTCOME_SCORES - s
    c0 = (freq * a).sum(axis=-1)
    c1 = (freq * a * (a.sum() - a)).sum(axis=-1)
    c2 = float(a.prod())
    if c2 == 0.0:  # s = 1/2: linear
        return -c0 / c1
    disc = np.sqrt(np.maximum(c1 * c1 - 4.0 * c2 * c0, 0.0))
    q = -0.5 * (c1 + np.copysign(disc, c1))  # the cancellation-free pair of roots q / c2, c0 / q
    first = q / c2
    second = np.divide(c0, q, out=np.zeros_like(q), where=q != 0)
    return np.where((first > -1.0 / (1.0 - s)) & (first < 1.0 / s), first, second)


def llr(wins, draws, losses, elo0: float, elo1: float) -> float | np.ndarray:
    """GSPRT log-likelihood ratio of H1 (``elo1``) against H0 (``elo0``) for A's (W, D, L).

    Counts may be arrays of one shape (e.g. cumulative counts of a game stream); 0 games gives 0.
    """
    counts = np.stack(np.broadcast_arrays(*(np.asarray(c, dtype=np.float64) for c in (wins, draws, losses))),
                      axis=-1)
    regular = np.where(counts > 0, counts, PSEUDO_COUNT)
    freq = regular / regular.sum(axis=-1, keepdims=True)
    out = np.zeros(counts.shape[:-1])
    for s, sign in ((score_from_elo(elo1), 1.0), (score_from_elo(elo0), -1.0)):
        dev = OUTCOME_SCORES - s
        lam = _multiplier(freq, s)
        # log p_k = log f_k - log(1 + lam dev_k); the log f_k terms cancel between H1 and H0
        out -= sign * (counts * np.log1p(lam[..., None] * dev)).sum(axis=-1)
    return float(out) if out.ndim == 0 else out


@dataclass(frozen=True)
class Sprt:
    """One SPRT set-up: hypotheses in Elo (logistic) and error rates.

    Args:
        elo0: H0, A is ``elo0`` stronger than B (e.g. 0: no better).
        elo1: H1, A is ``elo1`` stronger (e.g. 20); must exceed ``elo0``.
        alpha: probability of accepting H1 when H0 holds (Fishtest: 0.05).
        beta: probability of accepting H0 when H1 holds (Fishtest: 0.05).
    """

    elo0: float = 0.0
    elo1: float = 20.0
    alpha: float = bounded(0.05, gt=0.0, lt=0.5)
    beta: float = bounded(0.05, gt=0.0, lt=0.5)

    def __post_init__(self):
        if not self.elo1 > self.elo0:
            raise ValueError(f"SPRT needs elo1 > elo0 (got elo0={self.elo0}, elo1={self.elo1})")
        check_ranges(self)

    @property
    def lower(self) -> float:
        """Accept H0 at or below this LLR: ``log(beta / (1 - alpha))``."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 at or above this LLR: ``log((1 - beta) / alpha)``."""
        return math.log((1.0 - self.beta) / self.alpha)

    def llr(self, wins, draws, losses) -> float | np.ndarray:
        """The log-likelihood ratio (:func:`llr`) of A's results."""
        return llr(wins, draws, losses, self.elo0, self.elo1)

    def decision(self, wins: int, draws: int, losses: int) -> str | None:
        """``"H1"`` (A is better by about ``elo1``), ``"H0"`` (not better than ``elo0``) or None: go on."""
        value = self.llr(wins, draws, losses)
        if value >= self.upper:
            return "H1"
        if value <= self.lower:
            return "H0"
        return None
