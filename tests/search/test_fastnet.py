"""The numba inference backend (search.fastnet) computes what the torch network does.

The torch model is the source of truth: on positions of real games of all 8 game types and
every model size, fresh and with every parameter moved off its initial value, the backend's
policy logits and values agree with the model's within 1e-4; the evaluator's ``auto`` choice,
its large-batch split and its weight reloading keep that agreement.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from hive_env.encode import observe_batch
from models.gnn import SIZES
from search.fastnet import FastNet, export_weights
from search.network import make_evaluator, resolve_backend

from helpers import GAME_TYPES, assert_same_outputs, real_game_positions, sample_network

_OBS: dict = {}


def real_observations(game_type: str) -> dict[str, np.ndarray]:
    """Encoded positions along the real games of ``game_type`` (one batch, cached)."""
    if game_type not in _OBS:
        games = real_game_positions(game_type)
        _OBS[game_type] = observe_batch(np.stack([g.board for g in games]))
    return _OBS[game_type]


def rows(obs: dict[str, np.ndarray], index) -> dict[str, np.ndarray]:
    return {k: v[index] for k, v in obs.items()}


@pytest.mark.parametrize("randomised", [False, True], ids=["fresh", "trained-like"])
@pytest.mark.parametrize("size", [s if s in ("tiny", "small") else pytest.param(s, marks=pytest.mark.slow)
                                  for s in SIZES])  # default and large: make test-slow
def test_numba_equals_torch_on_real_games_of_every_type(size, randomised):
    model = sample_network(size, randomised)
    fast = FastNet(model)
    torch_net = make_evaluator(model, backend="torch")
    for game_type in GAME_TYPES:
        obs = real_observations(game_type)
        assert obs["n_nodes"].min() < obs["n_nodes"].max()  # positions of different sizes
        assert_same_outputs(fast(obs), torch_net(obs), obs)
        one = rows(obs, slice(-1, None))  # batch 1: the last, most crowded position
        assert_same_outputs(fast(one), torch_net(one), one)


def test_game_parallel_kernel_and_large_batches():
    model = sample_network("small", randomised=True, seed=3)
    fast = FastNet(model)
    torch_net = make_evaluator(model, backend="torch")
    obs = {k: np.concatenate([v, v[::-1]]) for k, v in real_observations("Base+MLP").items()}
    assert obs["legal_src"].shape[0] >= 32  # the parallel kernel's batches
    assert_same_outputs(fast(obs), torch_net(obs), obs)


def test_outputs_do_not_depend_on_the_batch_a_position_is_in():
    fast = FastNet(sample_network("tiny", randomised=True, seed=4))
    obs = real_observations("Base+MLP")
    logits, values = fast(obs)
    for i in (0, 7, len(values) - 1):
        one_logits, one_values = fast(rows(obs, slice(i, i + 1)))
        np.testing.assert_array_equal(one_logits[0], logits[i])
        assert one_values[0] == values[i]


def test_auto_picks_packed_on_the_cpu_and_the_option_forces_torch():
    model = sample_network("tiny", randomised=True, seed=5)
    assert resolve_backend("auto", torch.device("cpu")) == "packed"
    assert resolve_backend("auto", torch.device("cpu"), bf16=True) == "torch"
    assert resolve_backend("auto", torch.device("cuda")) == "torch"
    numba = make_evaluator(model, backend="numba")
    assert numba.backend == "numba" and isinstance(numba._impl, FastNet)
    forced = make_evaluator(model, backend="torch")
    assert forced.backend == "torch" and forced._impl is None
    obs = real_observations("Base+ML")
    assert_same_outputs(numba(obs), forced(obs), obs)
    with pytest.raises(ValueError, match="unknown inference backend 'tpu'"):
        make_evaluator(model, backend="tpu")
    for backend in ("numba", "packed", "packed-bf16"):
        with pytest.raises(ValueError, match="runs on the CPU only"):
            make_evaluator(model, device="cuda", backend=backend)


def test_load_weights_reaches_the_backend_without_rebuilding_it():
    model = sample_network("tiny", randomised=True, seed=7)
    evaluate = make_evaluator(model, backend="numba")
    impl = evaluate._impl
    obs = real_observations("Base+P")
    before = evaluate(obs)[1].copy()
    new = sample_network("tiny", randomised=True, seed=8).state_dict()
    evaluate.load_weights(new)
    assert evaluate._impl is impl  # the same kernels, new weights
    assert not np.allclose(evaluate(obs)[1], before)
    reference = make_evaluator(sample_network("tiny", randomised=True, seed=8), backend="torch")
    assert_same_outputs(evaluate(obs), reference(obs), obs)


def test_export_copies_the_weights():
    model = sample_network("tiny", randomised=False)
    weights = export_weights(model)
    with torch.no_grad():
        model.embed_node.weight.add_(1.0)
    assert not np.allclose(weights.embed_node, model.embed_node.weight.detach().numpy())
