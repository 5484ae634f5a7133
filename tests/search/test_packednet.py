"""The packed inference backend (search.packednet) computes what the torch network does.

fp32 is held to the fp32 torch model within float32 rounding (1e-4) on positions of real games of
all 8 game types, fresh and trained-like networks. bf16 (self-play's and play's precision on CPUs
with bf16 matrix units) is held, with the shipped networks on every position of the real games of
all 8 game types (847), to what it proves: values within 0.03 of the fp32 model's, the same best
move in at least 98.5% of positions (a tie in the fp32 model counts as the same), and where it
picks another, one the fp32 model scores within 0.2 logits of its best. int8 is far looser
(values off by up to 0.72) and is never picked automatically.
"""

from __future__ import annotations

import numpy as np
import pytest

from hive_env.encode import observe_batch
from search.checkpoint import load_model
from search.network import PACKED_MIN_BATCH, make_evaluator
from search.packednet import BF16_FLAGS, HALF_MIN_BATCH, PackedNet, bucket, pick_precision

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


@pytest.mark.parametrize("precision, logit_tol, value_tol", [("bf16", 0.1, 0.02), ("int8", 0.5, 0.05)])
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


SHIPPED = {"Base": "models/shipped/base.pt", "Base+MLP": "models/shipped/base_mlp.pt"}


@pytest.mark.parametrize("network", list(SHIPPED))
def test_bf16_keeps_the_values_and_best_moves_of_the_shipped_networks(network):
    import torch

    model, _ = load_model(SHIPPED[network], torch.device("cpu"))
    bf16 = make_evaluator(model, backend="packed-bf16")  # through adapt_obs, as search runs it
    reference = make_evaluator(model, backend="torch")
    same = total = 0
    for game_type in GAME_TYPES:
        obs = observe_batch(np.stack([g.board for g in real_game_positions(game_type, every=1)]))
        (lp, vp), (lt, vt) = bf16(obs), reference(obs)
        assert np.abs(vp - vt).max() <= 0.03, game_type
        regret = lt.max(1) - lt[np.arange(len(vt)), lp.argmax(1)]  # how much worse its best is
        assert regret.max() <= 0.2, game_type
        same += int((regret <= 1e-3).sum())
        total += len(vt)
    assert total > 800 and same / total >= 0.985


def test_auto_precision_runs_small_batches_in_fp32():
    model = sample_network("tiny", True, seed=3)
    packed = PackedNet(model, "auto")
    assert packed.small_precision == "fp32" and packed.precision == pick_precision("auto")
    obs = real_observations("Base")
    small = {k: v[: HALF_MIN_BATCH - 1] for k, v in obs.items()}
    assert_same_outputs(packed(small), make_evaluator(model, backend="torch")(small), small)
    assert "GEMMs" in packed.describe() and "cpu flags" in packed.describe()


def test_rows_go_in_few_buckets():
    assert all(n <= bucket(n) <= max(16, n * 9 / 8) for n in range(1, 10_000))
    assert len({bucket(n) for n in range(1, 10_000)}) <= 8 * 10  # 10 octaves, 8 sizes each


def test_packed_backend_through_the_evaluator_and_reloading():
    model = sample_network("tiny", True, seed=4)
    ev = make_evaluator(model, backend="packed-fp32")
    obs = real_observations("Base+MLP")
    assert_same_outputs(ev(obs), make_evaluator(model, backend="torch")(obs), obs)
    other = sample_network("tiny", True, seed=5)
    ev.load_weights(other.state_dict())
    assert_same_outputs(ev(obs), make_evaluator(other, backend="torch")(obs), obs)


def test_auto_is_packed_on_the_cpu_and_says_what_it_runs():
    model = sample_network("tiny", True, seed=6)
    ev = make_evaluator(model)
    assert ev.backend == "packed" and isinstance(ev._impl, PackedNet)
    assert ev.describe().startswith(f"numba (fp32) below {PACKED_MIN_BATCH} positions, packed from ")
    calls = []
    for name in ("_small", "_impl"):
        real = getattr(ev, name)
        setattr(ev, name, lambda obs, real=real, name=name: calls.append(name) or real(obs))
    obs = real_observations("Base")
    assert len(obs["n_legal"]) >= PACKED_MIN_BATCH
    small = {k: v[: PACKED_MIN_BATCH - 1] for k, v in obs.items()}
    reference = make_evaluator(model, backend="torch")
    assert_same_outputs(ev(small), reference(small), small)
    assert calls == ["_small"]
    (_, vp), (_, vt) = ev(obs), reference(obs)
    assert calls == ["_small", "_impl"] and np.abs(vp - vt).max() < 0.02
    assert make_evaluator(model, backend="packed-fp32").describe().startswith("packed, fp32 GEMMs")
    wide = make_evaluator(sample_network("small", False))  # packed at every batch, bf16 from 2
    assert wide._small is None and wide._impl.half_min_batch == 2
    assert wide.describe().startswith(f"packed, {pick_precision('auto')} GEMMs")
    assert make_evaluator(model, backend="numba").describe() == "numba (fp32)"


def test_precision_follows_the_cpu_flags():
    assert pick_precision("auto", frozenset({"avx2", "fma"})) == "fp32"
    assert pick_precision("auto", frozenset({"avx2", BF16_FLAGS[0]})) in ("bf16", "fp32")  # fp32: no oneDNN
    assert pick_precision("int8") == "int8"
    with pytest.raises(ValueError, match="unknown precision"):
        pick_precision("fp8")


def test_one_packed_net_serves_several_threads_at_once():
    from concurrent.futures import ThreadPoolExecutor

    model = sample_network("tiny", True, seed=8)
    packed = PackedNet(model, "auto")  # hive-web's analysis and review threads share one network
    batches = [real_observations(t) for t in GAME_TYPES]
    alone = [packed(obs) for obs in batches]
    with ThreadPoolExecutor(4) as pool:
        for _ in range(3):
            together = list(pool.map(packed, batches))
            for (lt, vt), (la, va) in zip(together, alone, strict=True):
                np.testing.assert_array_equal(lt, la)
                np.testing.assert_array_equal(vt, va)


def test_a_cpu_without_bf16_units_falls_back_to_fp32_and_says_so(monkeypatch):
    import search.packednet

    monkeypatch.setattr(search.packednet, "cpu_flags", lambda: frozenset({"avx2", "fma"}))
    model = sample_network("small", True, seed=9)
    ev = make_evaluator(model)  # auto
    assert ev._impl.precision == ev._impl.small_precision == "fp32"
    assert ev.describe() == "packed, fp32 GEMMs (cpu flags: avx2)"
    obs = real_observations("Base+MLP")
    assert_same_outputs(ev(obs), make_evaluator(model, backend="torch")(obs), obs)
