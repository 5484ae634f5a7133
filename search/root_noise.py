"""Each game's own random numbers at the root, compiled: Dirichlet and Gumbel noise, sampled moves.

A game's numbers come from streams keyed by its search seed and a purpose (:data:`NOISE`,
:data:`CHOICE`), so a game searched alone or in a batch draws the same ones. numpy's
``Generator`` does the same job, but one built per game and move costs about 20 us (its
``SeedSequence``) and each draw 5-10 us of Python, more than the rest of a root's work in
self-play; ``python -m search.bench_root_noise`` measures the two side by side. The generator is
SplitMix64 (Steele, Lea & Flood 2014, in Vigna's reference form), started at a hash of the key
(so nearby seeds do not share a stretch of the sequence); Gamma draws are Marsaglia & Tsang's
(2000), with the ``U ** (1 / alpha)`` boost below shape 1.
"""

from __future__ import annotations

import numpy as np
from numba import njit

NOISE = 0
"""Stream of a root's exploration noise (Dirichlet for PUCT, Gumbel for the Gumbel root)."""
CHOICE = 1
"""Stream of a move sampled from the visit counts (temperature > 0)."""

_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_KEY = np.uint64(0xD1B54A32D192ED03)
_TO_UNIT = 2.0 ** -53


@njit(cache=True, inline="always")
def _mix(z):
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def stream(seed: int, purpose: int) -> np.ndarray:
    """A new stream's state ([1] uint64) for ``seed`` (any int64) and ``purpose``."""
    key = np.uint64(seed & 0x7FFFFFFFFFFFFFFF) * np.uint64(2) + np.uint64(purpose & 1)
    state = np.empty(1, np.uint64)
    state[0] = _mix(key * _KEY + _GAMMA)
    return state


@njit(cache=True, inline="always")
def _next(state):
    state[0] += _GAMMA
    return _mix(state[0])


@njit(cache=True)
def uniform(state: np.ndarray) -> float:
    """A float64 in the open interval (0, 1) (53 random bits, never 0 nor 1)."""
    return (float(_next(state) >> np.uint64(11)) + 0.5) * _TO_UNIT


@njit(cache=True)
def normal(state: np.ndarray) -> float:
    """A standard normal draw (Box-Muller, one of the pair)."""
    return np.sqrt(-2.0 * np.log(uniform(state))) * np.cos(2.0 * np.pi * uniform(state))


@njit(cache=True)
def gamma(state: np.ndarray, shape: float) -> float:
    """A Gamma(shape, 1) draw, shape > 0 (Marsaglia & Tsang; boosted below 1)."""
    boost = 1.0
    if shape < 1.0:
        boost = uniform(state) ** (1.0 / shape)
        shape += 1.0
    d = shape - 1.0 / 3.0
    c = 1.0 / np.sqrt(9.0 * d)
    while True:
        x = normal(state)
        v = 1.0 + c * x
        if v <= 0.0:
            continue
        v = v * v * v
        u = uniform(state)
        if np.log(u) < 0.5 * x * x + d - d * v + d * np.log(v):
            return d * v * boost


@njit(cache=True)
def dirichlet_(seed: int, alpha: float, out: np.ndarray) -> None:
    """Fill ``out`` with a symmetric Dirichlet(alpha) draw of its length, from ``seed``'s
    :data:`NOISE` stream (uniform if every Gamma draw underflowed to 0)."""
    state = stream(seed, NOISE)
    total = 0.0
    for i in range(out.shape[0]):
        out[i] = gamma(state, alpha)
        total += out[i]
    if total > 0.0:
        for i in range(out.shape[0]):
            out[i] /= total
    else:
        out[:] = 1.0 / out.shape[0]


@njit(cache=True)
def gumbel_(seed: int, out: np.ndarray) -> None:
    """Fill ``out`` with standard Gumbel draws from ``seed``'s :data:`NOISE` stream."""
    state = stream(seed, NOISE)
    for i in range(out.shape[0]):
        out[i] = -np.log(-np.log(uniform(state)))


@njit(cache=True)
def sample_index(seed: int, weights: np.ndarray) -> int:
    """An index drawn with probability ``weights[i] / weights.sum()`` (weights >= 0, sum > 0),
    from ``seed``'s :data:`CHOICE` stream; never an index of weight 0."""
    total = 0.0
    for w in weights:
        total += w
    target = uniform(stream(seed, CHOICE)) * total
    last = -1
    acc = 0.0
    for i in range(weights.shape[0]):
        if weights[i] > 0.0:
            acc += weights[i]
            last = i
            if target < acc:
                return i
    return last
