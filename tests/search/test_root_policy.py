"""The root policies (``search.root_policy``): one interface, two roots, chosen once by the search."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from search.gumbel import halving_schedule
from search.mcts import BatchedMCTS, SearchConfig
from search.network import uniform_evaluate
from search.root_gumbel import GumbelRoot
from search.root_policy import RootPolicy, RootState
from search.root_puct import PuctRoot
from search.tree import UNEXPANDED, allocate_tree

METHODS = [name for name, _ in inspect.getmembers(RootPolicy, inspect.isfunction) if not name.startswith("_")]


def roots(n_legal, logits=None, seed=0) -> RootState:
    n_legal = np.asarray(n_legal, np.int32)
    B, M = n_legal.size, 6
    return RootState(n_legal=n_legal, logits=np.zeros((B, M), np.float32) if logits is None else logits,
                     values=np.zeros(B, np.float32), seeds=seed + np.arange(B, dtype=np.int64),
                     noise=np.zeros((B, M)), candidates=np.zeros((B, M), np.int8))


@pytest.mark.parametrize("policy", [PuctRoot, GumbelRoot])
def test_each_root_has_the_interface_s_methods_with_its_signatures(policy):
    assert METHODS == ["begin", "choose", "end_phase", "roots_to_evaluate", "sims_done"]
    for name in METHODS:
        assert inspect.signature(getattr(policy, name)) == inspect.signature(getattr(RootPolicy, name)), name
    assert isinstance(policy.forced_root, bool)


def test_the_search_picks_its_root_once_from_the_config():
    puct = BatchedMCTS(SearchConfig(sims=8, dirichlet_alpha=0.5, dirichlet_eps=0.1), 1, 0, uniform_evaluate)
    assert puct.root == PuctRoot(0.5, 0.1) and not puct.root.forced_root
    cfg = SearchConfig(sims=8, gumbel=True, gumbel_m=4, gumbel_c_visit=10.0, gumbel_c_scale=0.5)
    gumbel = BatchedMCTS(cfg, 1, 0, uniform_evaluate)
    assert gumbel.root == GumbelRoot(4, 10.0, 0.5) and gumbel.root.forced_root


def test_the_simulations_a_search_promises_are_its_root_s():
    assert PuctRoot(0.3, 0.25).sims_done(32, 1) == PuctRoot(0.3, 0.25).sims_done(32, 40) == 32
    gumbel = GumbelRoot(16, 50.0, 0.1)
    assert gumbel.sims_done(32, 1) == 32  # one candidate: every simulation on it
    for n in (2, 5, 16, 40):  # the halving schedule's total over min(m, n) candidates
        assert gumbel.sims_done(32, n) == halving_schedule(32, min(16, n))[-1]
    for cfg in (SearchConfig(sims=32), SearchConfig(sims=32, gumbel=True, gumbel_m=16)):
        assert cfg.sims_per_search(0) == 0
        for n in (1, 5, 40):
            assert cfg.sims_per_search(n) == cfg.root_policy().sims_done(32, n)


def test_puct_evaluates_new_roots_only_and_gumbel_every_root():
    count = np.array([UNEXPANDED, 5, UNEXPANDED, 0])
    assert PuctRoot(0.3, 0.25).roots_to_evaluate(count).tolist() == [0, 2]
    assert GumbelRoot(16, 50.0, 0.1).roots_to_evaluate(count).tolist() == [0, 1, 2, 3]


def test_puct_targets_visit_shares_and_plays_the_most_visited_allowed_move():
    r = roots([3, 2, 0])
    visits = np.zeros((3, 6), np.float32)
    visits[0, :3] = [2, 5, 1]  # the most visited (slot 1) is proven lost: slot 0 is played
    prior = np.zeros((3, 6), np.float32)
    prior[1, :2] = [0.3, 0.7]  # nothing visited: the best prior
    allowed = np.zeros((3, 6), bool)
    allowed[0, [0, 2]] = True
    allowed[1, :2] = True
    policy, chosen = np.zeros((3, 6), np.float32), np.full(3, -1, np.int32)
    PuctRoot(0.3, 0.25).choose(r, visits, np.zeros((3, 6)), allowed, prior, np.zeros(3), policy, chosen)
    np.testing.assert_allclose(policy[0, :3], [0.25, 0.625, 0.125])
    assert not policy[1:].any() and chosen.tolist() == [0, 1, -1]  # no visits: no target


def test_gumbel_candidates_leave_out_proven_lost_moves_and_follow_the_halving_schedule():
    logits = np.zeros((1, 6), np.float32)
    logits[0, :5] = [3.0, 2.0, 1.0, 0.0, -1.0]
    r = roots([5], logits)
    tree = allocate_tree(1, 4, 8)
    lost = np.array([True, False, False, False, False])
    ends = GumbelRoot(2, 50.0, 0.1).begin(tree, r, 0, lost, False, 8)
    assert ends == [8] and r.candidates[0].tolist() == [0, 1, 1, 0, 0, 0]  # the best two not lost
    assert not r.noise.any()  # no noise asked for
    ends = GumbelRoot(4, 50.0, 0.1).begin(tree, r, 0, np.zeros(5, bool), True, 16)
    assert ends == [8, 16] and r.noise[0, :5].any() and not r.noise[0, 5:].any()
