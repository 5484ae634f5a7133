"""Issue 8: scores, intervals and maximum-likelihood Elo against hand-computed values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from arena.ratings import (
    ELO_PER_NAT,
    Z95,
    elo_from_score,
    fit_elo,
    pairing_stats,
    score_from_elo,
    score_interval,
    tally,
)

LOG10_3 = 0.47712125471966244


def games(*pairs: tuple[int, int, int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    """``(i, j, wins, draws, losses)`` of i against j -> the (points, games) matrices."""
    n = 1 + max(max(p[0], p[1]) for p in pairs)
    results = []
    for i, j, w, d, l_ in pairs:
        results += [(i, j, 1.0)] * w + [(i, j, 0.5)] * d + [(i, j, 0.0)] * l_
    return tally(n, results)


# ----- score <-> Elo ----------------------------------------------------------------------------
def test_elo_score_conversion():
    assert elo_from_score(0.5) == 0.0
    assert elo_from_score(0.75) == pytest.approx(400 * LOG10_3)  # odds 3: 190.85
    assert elo_from_score(0.7) == pytest.approx(147.1907, abs=1e-4)  # 400 log10(7/3)
    assert elo_from_score(0.25) == pytest.approx(-400 * LOG10_3)
    assert score_from_elo(400 * LOG10_3) == pytest.approx(0.75)
    assert score_from_elo(400.0) == pytest.approx(10 / 11)  # odds 10
    assert elo_from_score(1.0) == math.inf and elo_from_score(0.0) == -math.inf
    x = np.linspace(-800, 800, 17)
    np.testing.assert_allclose(elo_from_score(score_from_elo(x)), x, atol=1e-9)


# ----- one pairing ------------------------------------------------------------------------------
def test_score_interval_with_draws_by_hand():
    # 60 W, 20 D, 20 L: s = 0.7, d = 0.2, k = 1.96^2 / 100 = 0.0384146
    # disc = k (4 * 0.7 * 0.3 - 0.2) + k^2 (1 - 0.2) = 0.0245853 + 0.0011805 = 0.0257659
    # p = (1.4 + k -/+ sqrt(disc)) / (2 (1 + k)) = (1.4384146 -/+ 0.1605177) / 2.0768293
    s, lo, hi = score_interval(60, 20, 20)
    assert s == 0.7
    assert lo == pytest.approx(0.615312, abs=1e-6)
    assert hi == pytest.approx(0.769891, abs=1e-6)
    # close to the normal interval 0.7 +/- 1.96 * sqrt((0.21 - 0.05) / 100) = [0.6216, 0.7784]
    assert abs(lo - 0.6216) < 0.01 and abs(hi - 0.7784) < 0.01


def test_score_interval_without_draws_is_wilson():
    # textbook Wilson for 8 of 10: [0.4902, 0.9433]
    s, lo, hi = score_interval(8, 0, 2)
    assert (s, round(lo, 4), round(hi, 4)) == (0.8, 0.4902, 0.9433)
    for w, l_ in [(3, 7), (50, 50), (99, 1), (1, 0)]:
        n, p = w + l_, w / (w + l_)
        z2 = Z95**2
        centre = (p + z2 / (2 * n)) / (1 + z2 / n)
        half = Z95 / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
        _, lo, hi = score_interval(w, 0, l_)
        assert lo == pytest.approx(max(centre - half, 0.0)) and hi == pytest.approx(min(centre + half, 1.0))


def test_score_interval_edge_cases():
    s, lo, hi = score_interval(10, 0, 0)  # a perfect score keeps a real interval: 1 / (1 + k)
    assert (s, hi) == (1.0, 1.0) and lo == pytest.approx(1 / (1 + Z95**2 / 10))
    assert score_interval(0, 0, 10)[1:] == (0.0, pytest.approx(1 - 1 / (1 + Z95**2 / 10)))
    assert score_interval(0, 12, 0) == (0.5, 0.5, 0.5)  # all draws: the draw rate is taken as certain
    assert all(math.isnan(x) for x in score_interval(0, 0, 0))


def test_pairing_stats_maps_the_interval_to_elo():
    st = pairing_stats(60, 20, 20)
    assert (st.games, st.wins, st.draws, st.losses) == (100, 60, 20, 20)
    assert st.elo == pytest.approx(147.1907, abs=1e-4)
    assert st.elo_lo == pytest.approx(elo_from_score(st.score_lo)) and st.elo_lo < st.elo < st.elo_hi
    perfect = pairing_stats(10, 0, 0)
    assert perfect.elo == math.inf and perfect.elo_hi == math.inf and math.isfinite(perfect.elo_lo)


# ----- maximum likelihood -----------------------------------------------------------------------
def test_two_players_match_the_delta_method():
    points, n = games((0, 1, 60, 20, 20))
    fit = fit_elo(points, n, anchor=1, prior_draws=0)
    # maximum at p = s = 0.7: Elo = 400 log10(0.7 / 0.3) = 147.19
    # se = 400 / (ln 10 sqrt(n s (1 - s))) = 173.7178 / sqrt(21) = 37.9083 (delta method, docstring)
    assert fit.elo[0] == pytest.approx(147.1907, abs=1e-4)
    assert fit.se[0] == pytest.approx(37.9083, abs=1e-4)
    assert fit.lo[0] == pytest.approx(147.1907 - Z95 * 37.9083, abs=1e-3)  # 72.89
    assert fit.hi[0] == pytest.approx(221.4897, abs=1e-3)
    assert (fit.elo[1], fit.se[1], fit.lo[1], fit.hi[1]) == (0.0, 0.0, 0.0, 0.0)
    assert list(fit.games) == [100, 100] and list(fit.points) == [70, 30]
    flipped = fit_elo(points, n, anchor=0, prior_draws=0)
    assert flipped.elo[1] == pytest.approx(-147.1907, abs=1e-4)
    assert flipped.se[1] == pytest.approx(37.9083, abs=1e-4)


def test_prior_draws_shift_the_estimate_as_documented():
    points, n = games((0, 1, 60, 20, 20))
    fit = fit_elo(points, n, anchor=1)  # one virtual draw: 70.5 of 101 points
    assert fit.elo[0] == pytest.approx(400 * math.log10(70.5 / 30.5), abs=1e-6)  # 145.56
    assert list(fit.points) == [70, 30]  # reported counts stay real


def test_three_players_consistent_table_by_hand():
    # A-B 30/10 (0.75), B-C 30/10 (0.75), A-C 36/4 (0.9 = odds 9 = odds 3 twice): the scores fit the
    # model exactly, so the maximum is A = 2 * 190.85, B = 190.85 with C anchored at 0.
    points, n = games((0, 1, 30, 0, 10), (1, 2, 30, 0, 10), (0, 2, 36, 0, 4))
    fit = fit_elo(points, n, anchor=2, prior_draws=0)
    np.testing.assert_allclose(fit.elo, [800 * LOG10_3, 400 * LOG10_3, 0.0], atol=1e-6)
    # information (natural units), w = N p (1 - p): AB 40 * 0.1875 = 7.5, BC 7.5, AC 40 * 0.09 = 3.6
    # free players A, B: [[7.5 + 3.6, -7.5], [-7.5, 7.5 + 7.5]], det 110.25, inverse diag 15 and 11.1 / det
    assert fit.se[0] == pytest.approx(ELO_PER_NAT * math.sqrt(15 / 110.25))  # 64.08
    assert fit.se[1] == pytest.approx(ELO_PER_NAT * math.sqrt(11.1 / 110.25))  # 55.12
    assert fit.cov[0, 1] == pytest.approx(ELO_PER_NAT**2 * 7.5 / 110.25)
    re_anchored = fit_elo(points, n, anchor=0, prior_draws=0)
    np.testing.assert_allclose(re_anchored.elo, fit.elo - fit.elo[0], atol=1e-6)


def test_perfect_scores_need_the_prior():
    points, n = games((0, 1, 10, 0, 0))
    with pytest.raises(ValueError, match="prior_draws"):
        fit_elo(points, n, anchor=1, prior_draws=0)
    fit = fit_elo(points, n, anchor=1)  # 10.5 of 11: 400 log10(21) = 528.89
    assert fit.elo[0] == pytest.approx(400 * math.log10(21), abs=1e-6)
    # a cycle A > B > C > A of perfect scores has a finite maximum without a prior (all equal)
    points, n = games((0, 1, 5, 0, 0), (1, 2, 5, 0, 0), (2, 0, 5, 0, 0))
    np.testing.assert_allclose(fit_elo(points, n, prior_draws=0).elo, 0.0, atol=1e-9)


def test_players_without_a_path_to_the_anchor_are_nan():
    points, n = games((0, 1, 3, 1, 2), (2, 3, 4, 0, 0))
    fit = fit_elo(points, n, anchor=0)
    assert np.isfinite(fit.elo[:2]).all() and np.isnan(fit.elo[2:]).all() and np.isnan(fit.se[2:]).all()
    lonely = fit_elo(np.zeros((2, 2)), np.zeros((2, 2)), anchor=0)
    assert lonely.elo[0] == 0.0 and math.isnan(lonely.elo[1])


def test_fit_elo_rejects_inconsistent_tables():
    with pytest.raises(ValueError):
        fit_elo(np.ones((2, 2)), np.ones((2, 2)))  # points + points.T != games
    with pytest.raises(ValueError):
        fit_elo(np.zeros((2, 3)), np.zeros((2, 3)))
    with pytest.raises(ValueError):
        fit_elo(np.zeros((2, 2)), np.zeros((2, 2)), anchor=2)
