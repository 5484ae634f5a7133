"""The compiled per-game root noise: reproducible by seed, and drawn from the right distributions
(moments within five standard errors of their expected values, from many seeds)."""

from __future__ import annotations

import numpy as np
import pytest

from search.root_noise import CHOICE, NOISE, dirichlet_, gamma, gumbel_, sample_index, stream, uniform


def within(sample: np.ndarray, mean: float, var: float, sigmas: float = 5.0) -> bool:
    """The sample's mean within ``sigmas`` standard errors of ``mean`` (``var``: one draw's)."""
    return abs(sample.mean() - mean) < sigmas * np.sqrt(var / sample.size)


def test_a_seed_draws_the_same_numbers_and_other_seeds_and_purposes_do_not():
    def draws(seed, purpose):
        state = stream(seed, purpose)
        return [uniform(state) for _ in range(4)]

    assert draws(7, NOISE) == draws(7, NOISE)
    assert draws(7, NOISE) != draws(8, NOISE)
    assert draws(7, NOISE) != draws(7, CHOICE)
    a, b = np.empty(5), np.empty(5)
    dirichlet_(3, 0.3, a)
    dirichlet_(3, 0.3, b)
    assert (a == b).all()
    dirichlet_(4, 0.3, b)
    assert (a != b).all()


def test_uniforms_of_neighbouring_seeds_are_uniform_and_uncorrelated():
    first = np.array([uniform(stream(s, NOISE)) for s in range(20000)])
    assert ((first > 0) & (first < 1)).all()
    assert within(first, 0.5, 1 / 12)
    assert within((first - 0.5) ** 2, 1 / 12, 1 / 180)  # the variance of U(0, 1)
    assert within((first[:-1] - 0.5) * (first[1:] - 0.5), 0.0, 1 / 144)  # seed s against s + 1
    state = stream(123, NOISE)
    along = np.array([uniform(state) for _ in range(20000)])
    assert within(along, 0.5, 1 / 12)
    assert within((along[:-1] - 0.5) * (along[1:] - 0.5), 0.0, 1 / 144)


@pytest.mark.parametrize("shape", [0.03, 0.3, 1.0, 2.5])
def test_gamma_draws_have_the_mean_and_variance_of_their_shape(shape):
    state = stream(5, NOISE)
    x = np.array([gamma(state, shape) for _ in range(40000)])
    assert (x >= 0).all()
    assert within(x, shape, shape)  # Gamma(k, 1): mean k, variance k
    fourth = shape * (shape + 1) * (shape + 2) * (shape + 3) - shape ** 2 * (shape + 1) ** 2
    assert within(x * x, shape * (shape + 1), fourth, sigmas=6)


@pytest.mark.parametrize("n,alpha", [(2, 0.3), (30, 0.3), (120, 0.05), (8, 1.0)])
def test_dirichlet_draws_sum_to_one_with_the_symmetric_dirichlet_s_moments(n, alpha):
    draws = np.empty((6000, n))
    for s in range(draws.shape[0]):
        dirichlet_(s, alpha, draws[s])
    assert (draws >= 0).all() and np.allclose(draws.sum(axis=1), 1.0)
    def moment(k):  # a component is Beta(alpha, (n - 1) alpha): E[x^k]
        return np.prod([(alpha + i) / (n * alpha + i) for i in range(k)])

    for column in (draws[:, 0], draws[:, -1]):
        assert within(column, moment(1), moment(2) - moment(1) ** 2)
        assert within(column ** 2, moment(2), moment(4) - moment(2) ** 2)


def test_gumbel_draws_have_the_standard_gumbel_s_moments():
    draws = np.empty((4000, 10))
    for s in range(draws.shape[0]):
        gumbel_(s, draws[s])
    assert within(draws.ravel(), np.euler_gamma, np.pi ** 2 / 6)
    var = np.pi ** 2 / 6
    assert within((draws.ravel() - np.euler_gamma) ** 2, var, 4.4 * var ** 2)  # kurtosis 5.4


def test_sampled_indices_follow_the_weights_and_never_take_a_weightless_one():
    weights = np.array([0.0, 1.0, 3.0, 0.0, 6.0])
    counts = np.bincount([sample_index(s, weights) for s in range(30000)], minlength=5)
    assert counts[0] == counts[3] == 0
    expected = 30000 * weights / weights.sum()
    chi2 = (((counts - expected) ** 2)[weights > 0] / expected[weights > 0]).sum()
    assert chi2 < 20  # 2 degrees of freedom: p < 5e-5
    assert sample_index(9, np.array([0.0, 0.0, 2.0])) == 2
