"""The packed inference backend (search.packednet) computes what the torch network does.

fp32 is held to the fp32 torch model within float32 rounding (1e-4) on positions of real games of
all 8 game types, fresh and trained-like networks; bf16 and int8 to the tolerances they prove.
"""

from __future__ import annotations

import numpy as np
import pytest

from hive_env.encode import observe_batch
from search.network import make_evaluator
from search.packednet import BF16_FLAGS, PackedNet, pick_precision

from helpers import GAME_TYPES, assert_same_outputs, real_game_positions, sample_network

_OBS: dict = {}


def real_observations(game_type: str) -> dict[str, np.ndarray]:
    if game_type not in _OBS:
        _OBS[game_type] = observe_batch(np.stack([g.board for g in real_game_positions(game_type)]))
    return _OBS[game_type]


@pytest.mark.parametrize("randomised", [False, True], ids=["fresh", "trained-like"])
@pytest.mark.parametrize("size", ["tiny", "small"])
def test_packed_fp32_equals_torch_on_real_games_of_every_type(size, randomised):
    model = sample_network(size, randomised)
    packed = PackedNet(model, "fp32")
    torch_net = make_evaluator(model, backend="torch")
    for game_type in GAME_TYPES:
        obs = real_observations(game_type)
        assert_same_outputs(packed(obs), torch_net(obs), obs)
        one = {k: v[-1:] for k, v in obs.items()}
        assert_same_outputs(packed(one), torch_net(one), one)


@pytest.mark.parametrize("precision, logit_tol, value_tol", [("bf16", 0.05, 0.01), ("int8", 0.5, 0.05)])
def test_reduced_precisions_stay_near_torch(precision, logit_tol, value_tol):
    model = sample_network("tiny", True)
    packed = PackedNet(model, precision)
    torch_net = make_evaluator(model, backend="torch")
    for game_type in GAME_TYPES:
        obs = real_observations(game_type)
        (lp, vp), (lt, vt) = packed(obs), torch_net(obs)
        legal = lt > -1e8
        assert np.array_equal(lp > -1e8, legal)
        assert np.abs(lp[legal] - lt[legal]).max() < logit_tol
        assert np.abs(vp - vt).max() < value_tol


def test_packed_backend_through_the_evaluator_and_reloading():
    model = sample_network("tiny", True, seed=4)
    ev = make_evaluator(model, backend="packed")
    obs = real_observations("Base+MLP")
    assert_same_outputs(ev(obs), make_evaluator(model, backend="torch")(obs), obs)
    other = sample_network("tiny", True, seed=5)
    ev.load_weights(other.state_dict())
    assert_same_outputs(ev(obs), make_evaluator(other, backend="torch")(obs), obs)


def test_precision_follows_the_cpu_flags():
    assert pick_precision("auto", frozenset({"avx2", "fma"})) == "fp32"
    assert pick_precision("auto", frozenset({"avx2", BF16_FLAGS[0]})) in ("bf16", "fp32")  # fp32: no oneDNN
    assert pick_precision("int8") == "int8"
    with pytest.raises(ValueError, match="unknown precision"):
        pick_precision("fp8")
