"""Scores, likelihood-ratio intervals and Elo against hand-computed values and edge
cases (no game, one game, all draws, perfect scores), one method for pairings and ratings."""

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
    rated_players,
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
def log_lik(points: float, n: int, p: np.ndarray, prior: float = 1.0) -> np.ndarray:
    """A pairing's log-likelihood with ``prior`` virtual draws at true score ``p`` (module docstring)."""
    return (points + prior / 2) * np.log(p) + (n - points + prior / 2) * np.log1p(-p)


def brute_force_interval(points: float, n: int, prior: float = 1.0) -> tuple[float, float]:
    """The set where the log-likelihood is within 1.92 of its maximum, on a fine grid of scores."""
    p = np.linspace(1e-7, 1 - 1e-7, 2_000_001)
    ll = log_lik(points, n, p, prior)
    inside = p[ll >= ll.max() - Z95**2 / 2]
    return float(inside[0]), float(inside[-1])


def test_pairing_interval_is_the_likelihood_ratio_interval_by_hand():
    # 60 W, 20 D, 20 L, one virtual draw: 70.5 of 101 points; the bounds are where
    # 70.5 log p + 30.5 log(1 - p) is 1.92 below its maximum (at p = 70.5 / 101)
    st = pairing_stats(60, 20, 20)
    assert (st.games, st.wins, st.draws, st.losses, st.score) == (100, 60, 20, 20, 0.7)
    assert st.elo == pytest.approx(400 * math.log10(70.5 / 30.5))  # 145.56, as fit_elo
    top = log_lik(70, 100, np.array(70.5 / 101))
    for bound in (st.score_lo, st.score_hi):
        assert log_lik(70, 100, np.array(bound)) == pytest.approx(top - Z95**2 / 2, abs=1e-9)
    assert (round(st.score_lo, 6), round(st.score_hi, 6)) == (0.604293, 0.781821)
    assert brute_force_interval(70, 100) == pytest.approx((st.score_lo, st.score_hi), abs=1e-6)
    assert score_interval(60, 20, 20) == (st.score, st.score_lo, st.score_hi)


def test_score_and_elo_intervals_are_one_interval_on_two_scales():
    for counts in [(60, 20, 20), (0, 10, 0), (12, 0, 0), (0, 0, 12), (1, 0, 0), (3, 1, 7)]:
        st = pairing_stats(*counts)
        assert st.elo_lo == pytest.approx(elo_from_score(st.score_lo), abs=1e-6)
        assert st.elo_hi == pytest.approx(elo_from_score(st.score_hi), abs=1e-6)
        assert st.elo_lo < st.elo < st.elo_hi and math.isfinite(st.elo_lo) and math.isfinite(st.elo_hi)
        assert brute_force_interval(counts[0] + counts[1] / 2, sum(counts)) == pytest.approx(
            (st.score_lo, st.score_hi), abs=1e-6), counts


def test_all_draws_have_a_wide_interval_around_half():
    """10 draws once read 50.0% [50.0, 50.0] +0 [+0, +0] beside [-205, +205] in the Elo table."""
    ten = pairing_stats(0, 10, 0)
    assert ten.score == 0.5 and ten.elo == 0.0
    assert (round(ten.score_lo, 4), round(ten.score_hi, 4)) == (0.2285, 0.7715)
    assert ten.elo_lo == pytest.approx(-ten.elo_hi) and round(ten.elo_hi) == 211
    four, one = pairing_stats(0, 4, 0), pairing_stats(0, 1, 0)
    assert one.elo_hi > four.elo_hi > ten.elo_hi > 0  # fewer draws, wider
    assert round(four.elo_hi) == 324 and round(one.elo_hi) == 561
    assert pairing_stats(0, 10, 0, prior_draws=0).score_hi > 0.7  # no collapse without a prior either


def test_perfect_scores_keep_a_finite_interval_bounded_away_from_half():
    """A sweep's lower bound is well above 50%, its upper bound below 100% (the prior)."""
    st = pairing_stats(12, 0, 0)
    assert st.score == 1.0 and st.elo == pytest.approx(400 * math.log10(25))  # 12.5 of 13 points: +559
    assert 0.76 < st.score_lo < 0.77 and round(st.elo_lo) == 207  # well above 50%
    assert 0.9996 < st.score_hi < 1.0 and round(st.elo_hi) == 1402
    mirror = pairing_stats(0, 0, 12)
    assert (mirror.elo, mirror.elo_lo, mirror.elo_hi) == pytest.approx((-st.elo, -st.elo_hi, -st.elo_lo))
    assert mirror.score_lo == pytest.approx(1 - st.score_hi)
    # without a prior: the maximum is at 100% (+inf), the lower bound solves 12 log p = -1.92
    pure = pairing_stats(12, 0, 0, prior_draws=0)
    assert (pure.score_hi, pure.elo, pure.elo_hi) == (1.0, math.inf, math.inf)
    assert pure.score_lo == pytest.approx(math.exp(-(Z95**2) / 24))
    assert pairing_stats(0, 0, 12, prior_draws=0).score_hi == pytest.approx(1 - pure.score_lo)


def test_one_game_and_no_game():
    win, loss = pairing_stats(1, 0, 0), pairing_stats(0, 0, 1)
    assert win.score == 1.0 and win.score_lo < 0.5 < win.score_hi < 1.0  # one game says little
    assert win.elo == pytest.approx(400 * math.log10(3)) and math.isfinite(win.elo_hi)
    assert (loss.elo_lo, loss.elo_hi) == pytest.approx((-win.elo_hi, -win.elo_lo))
    none = pairing_stats(0, 0, 0)
    assert none.games == 0 and all(math.isnan(getattr(none, k)) for k in (
        "score", "score_lo", "score_hi", "elo", "elo_lo", "elo_hi"))
    assert all(math.isnan(x) for x in score_interval(0, 0, 0))


# ----- the fit -----------------------------------------------------------------------------------
def test_two_players_match_the_pairing_and_the_delta_method():
    points, n = games((0, 1, 60, 20, 20))
    fit = fit_elo(points, n, anchor=1, prior_draws=0)
    # maximum at p = s = 0.7: Elo = 400 log10(0.7 / 0.3) = 147.19
    # se = 400 / (ln 10 sqrt(n s (1 - s))) = 173.7178 / sqrt(21) = 37.9083 (delta method, docstring)
    assert fit.elo[0] == pytest.approx(147.1907, abs=1e-4)
    assert fit.se[0] == pytest.approx(37.9083, abs=1e-4)
    # the interval is the likelihood-ratio one, the pairing's, not elo -/+ 1.96 se = [72.89, 221.49]
    pure = pairing_stats(60, 20, 20, prior_draws=0)
    assert (fit.lo[0], fit.hi[0]) == pytest.approx((pure.elo_lo, pure.elo_hi), abs=1e-6)
    assert (round(fit.lo[0], 2), round(fit.hi[0], 2)) == (74.72, 223.92)
    assert (fit.elo[1], fit.se[1], fit.lo[1], fit.hi[1]) == (0.0, 0.0, 0.0, 0.0)
    assert list(fit.games) == [100, 100] and list(fit.points) == [70, 30] and fit.rated.all()
    flipped = fit_elo(points, n, anchor=0, prior_draws=0)
    assert flipped.elo[1] == pytest.approx(-147.1907, abs=1e-4)
    assert (flipped.lo[1], flipped.hi[1]) == pytest.approx((-fit.hi[0], -fit.lo[0]), abs=1e-6)


def test_the_ratings_table_and_the_pairing_rows_agree_on_edge_cases():
    """One method everywhere; all draws and sweeps give the same interval in both."""
    for counts in [(0, 10, 0), (0, 4, 0), (12, 0, 0), (0, 0, 12), (1, 0, 0), (60, 20, 20)]:
        points, n = games((0, 1, *counts))
        fit, st = fit_elo(points, n, anchor=1), pairing_stats(*counts)
        assert (fit.elo[0], fit.lo[0], fit.hi[0]) == pytest.approx((st.elo, st.elo_lo, st.elo_hi), abs=1e-6)


def test_a_gauntlet_is_a_star_the_players_interval_is_its_pairing_against_the_anchor():
    """A 12-0 sweep (4-0 against each rung) once read -126 in the ladder line, [+7, inf] in
    its row; now the fit's interval of the player is its pairing's against the anchor."""
    points, n = games((0, 1, 4, 0, 0), (0, 2, 4, 0, 0), (0, 3, 4, 0, 0))
    fit, st = fit_elo(points, n, anchor=1), pairing_stats(4, 0, 0)
    assert (fit.elo[0], fit.lo[0], fit.hi[0]) == pytest.approx((st.elo, st.elo_lo, st.elo_hi), abs=1e-6)
    assert round(fit.lo[0]) == -7  # 4 wins of 4: not yet significant (the exact test's p is 1/16)
    points, n = games((0, 1, 3, 5, 2), (0, 2, 1, 1, 8), (0, 3, 6, 4, 0))
    fit, st = fit_elo(points, n, anchor=1), pairing_stats(3, 5, 2)
    assert (fit.elo[0], fit.lo[0], fit.hi[0]) == pytest.approx((st.elo, st.elo_lo, st.elo_hi), abs=1e-6)


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


def test_players_without_a_path_to_the_anchor_are_unrated():
    points, n = games((0, 1, 3, 1, 2), (2, 3, 4, 0, 0))
    fit = fit_elo(points, n, anchor=0)
    assert np.isfinite(fit.elo[:2]).all() and np.isnan(fit.elo[2:]).all() and np.isnan(fit.se[2:]).all()
    assert list(fit.rated) == [True, True, False, False] and np.isnan(fit.lo[2:]).all()
    lonely = fit_elo(np.zeros((2, 2)), np.zeros((2, 2)), anchor=0)
    assert lonely.elo[0] == 0.0 and math.isnan(lonely.elo[1]) and list(lonely.rated) == [True, False]


def test_players_only_the_prior_places_are_unrated():
    """Rungs that lost every game to a player who won every game against the anchor were once
    listed as +0 [-718, +718] and ranked; their games bound nothing, so they are unrated."""
    # player 0 sweeps the anchor random (1), greedy (2) and ab1 (3), 4-0 each; 4 beat player 0 once
    points, n = games((0, 1, 4, 0, 0), (0, 2, 4, 0, 0), (0, 3, 4, 0, 0), (0, 4, 3, 0, 1), (0, 5, 0, 1, 3))
    fit = fit_elo(points, n, anchor=1)
    assert list(fit.rated) == [True, True, False, False, True, True]
    assert np.isnan(fit.elo[[2, 3]]).all() and np.isnan(fit.lo[[2, 3]]).all()
    # 4 scored against 0, who scored against the anchor: bounded below; 5 drew, so above 0's bound
    assert np.isfinite(fit.elo[[0, 4, 5]]).all() and fit.lo[5] > fit.lo[4]
    assert list(rated_players(points, n, 1)) == list(fit.rated)
    # from greedy's side, random and ab1 lost every game to the player as greedy did: unrated
    assert list(rated_players(points, n, 2)) == [True, False, True, False, True, True]


def test_fit_elo_rejects_inconsistent_tables():
    with pytest.raises(ValueError):
        fit_elo(np.ones((2, 2)), np.ones((2, 2)))  # points + points.T != games
    with pytest.raises(ValueError):
        fit_elo(np.zeros((2, 3)), np.zeros((2, 3)))
    with pytest.raises(ValueError):
        fit_elo(np.zeros((2, 2)), np.zeros((2, 2)), anchor=2)
