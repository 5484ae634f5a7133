"""Gumbel root math against the paper's formulas worked by hand, and a bandit."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hive_env import WHITE_WINS, Game
from hive_env.position import board_from_tiles
from search.gumbel import (
    completed_q,
    halve_candidates,
    halving_schedule,
    improved_policy,
    mixed_value,
    sigma,
    softmax,
    top_candidates,
)
from search.leaves import PROVEN_WIN
from search.mcts import BatchedMCTS, SearchConfig
from search.network import uniform_evaluate


@pytest.mark.parametrize(("sims", "m", "ends"), [
    (64, 16, [16, 32, 48, 64]),   # 4 phases: 16x1, 8x2, 4x4, 2x8
    (40, 8, [8, 20, 40]),         # 8x1, 4x3, then 2x10: the last phase spends the 8 left over
    (16, 16, [16, 24, 28, 32]),   # too few sims: every survivor still gets a visit per phase
    (10, 3, [3, 11]),             # 3x1, then 2x4 (ceil(7 / 2)): one more than sims
    (64, 1, [64]),
    (64, 2, [64]),
])
def test_halving_schedule_by_hand(sims, m, ends):
    assert halving_schedule(sims, m) == ends


def test_completed_q_and_sigma_by_hand():
    prior = np.array([0.5, 0.3, 0.2])
    visits = np.array([2.0, 1.0, 0.0])
    q = np.array([0.4, -0.2, 123.0])  # the unvisited action's q is never read
    v_hat = 0.1
    # v_mix = (v_hat + sum N / sum_{N>0} pi * sum_{N>0} pi q) / (1 + sum N)
    #       = (0.1 + 3 / 0.8 * (0.5 * 0.4 + 0.3 * -0.2)) / 4 = (0.1 + 0.525) / 4
    assert mixed_value(v_hat, prior, visits, q) == pytest.approx(0.15625)
    completed = completed_q(v_hat, prior, visits, q)
    np.testing.assert_allclose(completed, [0.4, -0.2, 0.15625])
    # normalised by min/max: [1, 0, 0.35625 / 0.6]; scale (c_visit + max N) * c_scale = 52 * 0.1
    s = sigma(completed, visits, c_visit=50.0, c_scale=0.1)
    np.testing.assert_allclose(s, [5.2, 0.0, 5.2 * 0.59375])
    # improved policy = softmax(logits + sigma), logits = log prior
    pi = improved_policy(np.log(prior), s)
    w = np.array([0.5 * math.exp(5.2), 0.3, 0.2 * math.exp(3.0875)])
    np.testing.assert_allclose(pi, w / w.sum(), rtol=1e-5)


def test_no_visits_mix_is_the_network_value_and_equal_q_gives_zero_sigma():
    visits = np.zeros(3)
    assert mixed_value(-0.3, softmax(np.zeros(3)), visits, np.zeros(3)) == pytest.approx(-0.3)
    np.testing.assert_array_equal(sigma(np.full(3, 0.7), visits, 50.0, 0.1), 0.0)


def test_candidates_and_halving_keep_the_best_first_on_ties():
    scores = np.array([0.5, 2.0, 2.0, -1.0, 1.0])
    assert top_candidates(scores, 3).tolist() == [1, 2, 4]
    alive = np.array([0, 1, 3, 4])
    assert sorted(halve_candidates(alive, scores).tolist()) == [1, 4]
    assert halve_candidates(np.array([0, 3, 4]), scores).tolist() == [4, 0]  # ceil(3 / 2)


def test_bandit_sequential_halving_finds_the_best_arm():
    # 12 arms with fixed values, a prior that prefers a poor arm, seeded Gumbel noise: the
    # schedule, halving and sigma of the search, driven by hand.
    rng = np.random.default_rng(1)  # its noise ranks arm 9 first, arm 7 2.9 behind
    values = np.linspace(-0.9, -0.5, 12)
    values[7] = 0.9
    logits = np.zeros(12)
    logits[2] = 1.0
    prior = softmax(logits)
    g = rng.gumbel(size=12)
    m = 8
    alive = top_candidates(g + logits, m)
    assert 7 in alive and alive[0] != 7  # a candidate, but not the noise's favourite
    visits = np.zeros(12)
    done = 0
    for end in halving_schedule(64, m):
        while done < end:  # each phase visits the remaining candidates equally
            visits[alive[np.argmin(visits[alive])]] += 1
            done += 1
        s = sigma(completed_q(0.0, prior, visits, values), visits, 50.0, 0.1)
        alive = halve_candidates(alive, g + logits + s)
    assert alive.tolist() == [7]
    assert improved_policy(logits, s)[7] > 0.9


# White to move; wA2 (3,-1) -> (2,0) surrounds bQ (see test_mcts).
WIN_IN_ONE = [("bA1", 0, -1), ("bA2", 1, -1), ("bA3", -1, 0), ("wQ", 0, 0), ("bQ", 1, 0),
              ("wS1", 0, 1), ("wG1", 2, -1), ("wA1", 1, 1), ("wA2", 3, -1)]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gumbel_search_bandit_plays_the_win_and_puts_the_most_policy_on_it(seed):
    game = Game.from_board(*board_from_tiles("Base", WIN_IN_ONE, 16))
    n = int(game.legal_moves().size)
    cfg = SearchConfig(sims=200, gumbel=True, gumbel_m=n)
    res = BatchedMCTS(cfg, 1, game.expansions, uniform_evaluate).search(
        game.board[None], game.hist[None], [seed], add_noise=True)
    wins = []
    for slot in range(n):
        child = game.copy()
        child.play(int(res.moves[0, slot]))
        wins.append(child.status == WHITE_WINS)
    assert sum(wins) >= 1
    assert wins[int(res.chosen[0])]
    # the win gets the most policy; not most of it: with the solver below the root, quiet
    # moves that keep the threat are valued near a win too (their children are proven)
    assert wins[int(np.argmax(res.policy[0, :n]))]
    assert res.proof[0] == PROVEN_WIN
    assert res.sims_done[0] == cfg.sims_per_search(n)
