"""Statistics over seeds: an arm's mean Elo with its t interval, and the Welch t interval of the
difference of two arms' means (``hive-arena compare``, arena.ladder_plot). The t quantiles are
scipy's (``scipy.stats.t``); the interval is over the seeds' spread, not the ladders' own
intervals: the seed-to-seed variation decides whether an arm is better."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

from scipy import stats

LEVEL = 0.95


def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t with ``df`` (> 0, not necessarily whole) degrees of freedom."""
    if not 0.0 < p < 1.0 or not df > 0:
        raise ValueError(f"t quantile needs 0 < p < 1 and df > 0 (got {p}, {df})")
    return float(stats.t.ppf(p, df))


def mean_interval(values: Sequence[float], level: float = LEVEL) -> tuple[float, float, float]:
    """The mean of ``values`` (at least 2) and its t interval."""
    mean = statistics.fmean(values)
    half = t_quantile(0.5 + 0.5 * level, len(values) - 1) * statistics.stdev(values) / math.sqrt(len(values))
    return mean, mean - half, mean + half


def welch_interval(reference: Sequence[float], other: Sequence[float],
                   level: float = LEVEL) -> tuple[float, float, float]:
    """``mean(other) - mean(reference)`` and its Welch t interval (at least 2 values each)."""
    n_a, n_b = len(reference), len(other)
    va, vb = statistics.variance(reference) / n_a, statistics.variance(other) / n_b
    diff = statistics.fmean(other) - statistics.fmean(reference)
    se2 = va + vb
    if se2 == 0.0:
        return diff, diff, diff
    df = se2 * se2 / (va * va / (n_a - 1) + vb * vb / (n_b - 1))  # Welch-Satterthwaite
    half = t_quantile(0.5 + 0.5 * level, df) * math.sqrt(se2)
    return diff, diff - half, diff + half


__all__ = ["LEVEL", "mean_interval", "t_quantile", "welch_interval"]
