"""Gumbel root math (Danihelka et al. 2022, "Policy improvement by planning with Gumbel").

Pure numpy functions of one root's statistics (n legal actions), no tree, no engine: the top
``m`` actions by Gumbel noise plus logits (:func:`top_candidates`), sequential halving
(:func:`halving_schedule`, :func:`halve_candidates` by ``g + logits + sigma(q)``), and the
improved-policy training target (:func:`improved_policy`, :func:`completed_q`, :func:`sigma`).
Values q are from the view of the player to move at the root.

See docs/search.md.
"""

from __future__ import annotations

import math

import numpy as np

RESCALE_EPS = 1e-8
"""Smallest value range of the min/max normalisation of q (mctx ``_rescale_qvalues``)."""


def halving_schedule(sims: int, m: int) -> list[int]:
    """Cumulative simulation counts at the end of each sequential-halving phase.

    ``ceil(log2 m)`` phases; a phase with ``k`` candidates gives each of them
    ``max(1, sims // (phases * k))`` visits (Gumbel MuZero, Algorithm 2), and the last phase
    also spends what the rounding down left over (as mctx does), split evenly and rounded up.
    Every survivor is visited in every phase, so the total (the last entry) is ``sims`` or a
    few more: at most ``k_last - 1`` more, or more when ``sims`` is too small to visit every
    candidate once per phase (e.g. ``halving_schedule(16, 16)`` ends at 16 + 8 + 4 + 4 = 32).
    """
    phases = max(1, math.ceil(math.log2(m))) if m > 1 else 1
    ends, total, k = [], 0, m
    for phase in range(phases):
        each = max(1, sims // (phases * k))
        if phase == phases - 1:
            each = max(each, -(-(sims - total) // k))
        total += k * each
        ends.append(total)
        k = max(1, -(-k // 2))
    return ends


def softmax(x: np.ndarray) -> np.ndarray:
    """Softmax of a 1-D array of logits, float32."""
    z = np.exp(np.asarray(x, np.float64) - np.max(x))
    return (z / z.sum()).astype(np.float32)


def top_candidates(scores: np.ndarray, m: int) -> np.ndarray:
    """Indices of the ``m`` best ``scores`` (``g + logits``), best first, first on ties."""
    return np.argsort(-np.asarray(scores, np.float64), kind="stable")[:m]


def mixed_value(v_hat: float, prior: np.ndarray, visits: np.ndarray, q: np.ndarray) -> float:
    """v_mix = (v_hat + sum_b N(b) / sum_{b: N(b)>0} pi(b) * sum_{b: N(b)>0} pi(b) q(b)) / (1 + sum_b N(b)).

    Args:
        v_hat: the network's value of the root.
        prior: [n] the prior pi = softmax(logits), without exploration noise.
        visits: [n] visit counts N of the root's actions.
        q: [n] their values (read only where visited).
    """
    seen = visits > 0
    total = float(visits.sum())
    if not seen.any():
        return float(v_hat)
    weighted = float((prior[seen] * q[seen]).sum()) / max(float(prior[seen].sum()), 1e-12)
    return (float(v_hat) + total * weighted) / (1.0 + total)


def completed_q(v_hat: float, prior: np.ndarray, visits: np.ndarray, q: np.ndarray) -> np.ndarray:
    """q(a) for visited actions, :func:`mixed_value` for the others ([n] float64)."""
    return np.where(visits > 0, q, mixed_value(v_hat, prior, visits, q)).astype(np.float64)


def sigma(completed: np.ndarray, visits: np.ndarray, c_visit: float, c_scale: float) -> np.ndarray:
    """sigma(q) = (c_visit + max_b N(b)) * c_scale * q, q min/max-normalised to [0, 1]
    over the root's actions (all equal: 0)."""
    lo, hi = float(completed.min()), float(completed.max())
    normed = (completed - lo) / max(hi - lo, RESCALE_EPS)
    return (c_visit + float(visits.max(initial=0.0))) * c_scale * normed


def improved_policy(logits: np.ndarray, sigma_q: np.ndarray) -> np.ndarray:
    """The Gumbel policy-improvement target softmax(logits + sigma(completed q)) ([n] float32)."""
    return softmax(np.asarray(logits, np.float64) + sigma_q)


def halve_candidates(alive: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """The best ``ceil(k / 2)`` of the ``k`` indices ``alive`` by ``scores`` (first on ties).

    Args:
        alive: [k] int indices of the remaining candidates.
        scores: [n] ``g + logits + sigma(completed q)`` of every action.
    """
    order = np.argsort(-np.asarray(scores, np.float64)[alive], kind="stable")
    return alive[order[: -(-alive.size // 2)]]
