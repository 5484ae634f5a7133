"""Statistics over seeds (arena.seeds): t quantiles against the tables, Welch intervals by hand,
the t interval of a mean."""

from __future__ import annotations

import math

import pytest

from arena.seeds import mean_interval, t_quantile, welch_interval


@pytest.mark.parametrize("p, df, t", [(0.975, 1, 12.7062), (0.975, 2, 4.3027), (0.975, 4, 2.7764),
                                      (0.975, 10, 2.2281), (0.975, 30, 2.0423), (0.95, 5, 2.0150),
                                      (0.025, 4, -2.7764), (0.5, 3, 0.0)])
def test_the_t_quantile_matches_the_tables(p, df, t):
    assert t_quantile(p, df) == pytest.approx(t, abs=5e-4)


def test_the_t_quantile_of_a_fractional_df_lies_between_its_neighbours():
    # Welch's degrees of freedom are fractional; closed forms at df 1 and 2 check the tails
    assert t_quantile(0.975, 2.5) < t_quantile(0.975, 2) and t_quantile(0.975, 2.5) > t_quantile(0.975, 3)
    assert t_quantile(0.9, 1) == pytest.approx(math.tan(math.pi * 0.4), rel=1e-9)
    assert t_quantile(0.99, 2) == pytest.approx(0.98 / math.sqrt(2 * 0.99 * 0.01), rel=1e-9)
    with pytest.raises(ValueError):
        t_quantile(1.0, 3)


def test_welch_interval_by_hand():
    # equal spreads and sizes: df = 2 (n - 1) = 4, se = sqrt(100/3 + 100/3)
    diff, lo, hi = welch_interval([0, 10, 20], [30, 40, 50])
    half = 2.776445 * math.sqrt(200 / 3)  # 22.67
    assert (diff, lo, hi) == pytest.approx((30, 30 - half, 30 + half), abs=1e-3)
    # unequal spreads: df = (100/3 + 400/3)^2 / ((100/3)^2 / 2 + (400/3)^2 / 2) = 2.941...
    diff, lo, hi = welch_interval([0, 10, 20], [50, 70, 90])
    df = (500 / 3) ** 2 / ((100 / 3) ** 2 / 2 + (400 / 3) ** 2 / 2)
    assert df == pytest.approx(2.9412, abs=1e-4)
    assert hi - diff == pytest.approx(t_quantile(0.975, df) * math.sqrt(500 / 3))
    assert t_quantile(0.975, 3) < t_quantile(0.975, df) < t_quantile(0.975, 2)
    assert welch_interval([5, 5], [7, 7]) == (2, 2, 2)  # no spread: no width


def test_the_mean_of_three_seeds_has_its_t_interval():
    mean, lo, hi = mean_interval([0.0, 10.0, 20.0])
    assert (mean, hi - mean) == pytest.approx((10.0, 4.302653 * 10 / math.sqrt(3)))
    assert mean - lo == pytest.approx(hi - mean)
