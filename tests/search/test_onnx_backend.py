"""The ONNX Runtime backend (search.onnx_backend) computes what the torch network does."""

from __future__ import annotations

import sys

import numpy as np
import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

from hive_env.encode import observe_batch  # noqa: E402
from search.network import make_evaluator  # noqa: E402
from search.onnx_backend import OnnxNet  # noqa: E402

from helpers import GAME_TYPES, assert_same_outputs, real_game_positions, sample_network  # noqa: E402

TEST_SIZES = ["tiny", *(pytest.param(s, marks=pytest.mark.slow) for s in ("small", "default"))]
"""Sizes the ONNX backend is checked on (small and default in ``make test-slow``; numba, the
backend ``auto`` picks, is checked on every size)."""


_OBS: dict = {}


def observations(game_type: str, batch: int, seed: int) -> dict[str, np.ndarray]:
    """Encoded positions of real games (``batch`` of them from the ``seed``-th on, cycling),
    from the opening to late games (cached: encoding is shared)."""
    key = (game_type, batch, seed)
    if key not in _OBS:
        games = real_game_positions(game_type)
        picked = [games[(seed + i) % len(games)] for i in range(batch)]
        _OBS[key] = observe_batch(np.stack([g.board for g in picked]))
    return _OBS[key]


@pytest.mark.parametrize("randomised", [False, True], ids=["fresh", "randomised"])
@pytest.mark.parametrize("size", TEST_SIZES)
def test_onnx_equals_torch_on_every_game_type(size, randomised):
    model = sample_network(size, randomised)
    onnx_net = OnnxNet(model)
    torch_net = make_evaluator(model, backend="torch")
    for i, game_type in enumerate(GAME_TYPES):
        for batch in (1, 5):
            obs = observations(game_type, batch, seed=i)
            assert_same_outputs(onnx_net(obs), torch_net(obs), obs)


def test_large_batches_and_the_evaluator_backend():
    model = sample_network("tiny", randomised=True, seed=1)
    evaluate = make_evaluator(model, backend="onnx")
    assert evaluate.backend == "onnx" and isinstance(evaluate._impl, OnnxNet)
    torch_net = make_evaluator(model, backend="torch")
    for batch in (8, 64):
        obs = observations("Base+MLP", batch, seed=batch)
        assert obs["n_nodes"].min() < obs["n_nodes"].max()
        assert_same_outputs(evaluate(obs), torch_net(obs), obs)
    # New weights reach the session through refresh.
    obs = observations("Base+MLP", 8, seed=8)
    before = evaluate(obs)[1].copy()
    model.load_state_dict(sample_network("tiny", randomised=True, seed=2).state_dict())
    evaluate.refresh()
    assert not np.allclose(evaluate(obs)[1], before)
    assert_same_outputs(evaluate(obs), torch_net(obs), obs)


def test_missing_onnxruntime_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    with pytest.raises(ImportError, match="pip install onnxruntime onnx"):
        OnnxNet(sample_network("tiny", randomised=False))
