"""The graph network: shapes, masking, exact symmetry invariance, checkpoints."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from hive_env import Game
from hive_env.encode import observe_batch, transform_observation
from hive_env.position import random_positions
from hive_env.symmetry import N_SYMMETRIES, transform_board
from models.gnn import NEG_INF, build_model, expected_value
from search.checkpoint import CheckpointError, load_model, save_checkpoint
from search.mcts import BatchedMCTS, SearchConfig
from search.network import make_evaluator, to_tensors
from training.checkpoint import CheckpointStore


def positions(n: int, game_type: str = "Base+MLP", seed: int = 0) -> list[Game]:
    return random_positions(n, game_type, seed)


@pytest.fixture(scope="module")
def model():
    torch.manual_seed(0)
    return build_model("tiny").eval()


def forward(model, obs):
    with torch.no_grad():
        return model(to_tensors(obs, torch.device("cpu")))


def test_shapes_and_masking(model):
    games = positions(6)
    obs = observe_batch(np.stack([g.board for g in games]))
    logits, wdl = forward(model, obs)
    assert logits.shape == obs["legal_src"].shape and wdl.shape == (6, 3)
    for i in range(6):
        n = obs["n_legal"][i]
        assert torch.isfinite(logits[i, :n]).all()
        assert (logits[i, n:] <= NEG_INF).all()
        assert torch.softmax(logits[i], -1)[n:].sum() == 0
    v = expected_value(wdl)
    assert ((v >= -1) & (v <= 1)).all()


def test_scores_are_invariant_under_the_12_symmetries(model):
    games = positions(4, seed=1)
    boards = np.stack([g.board for g in games])
    obs = observe_batch(boards)
    logits, wdl = forward(model, obs)
    for sym in range(N_SYMMETRIES):
        # Same nodes, directions permuted: the transformed observation.
        t_logits, t_wdl = forward(model, transform_observation(obs, sym))
        torch.testing.assert_close(t_logits, logits, rtol=1e-4, atol=1e-4)
        torch.testing.assert_close(t_wdl, wdl, rtol=1e-4, atol=1e-4)
        # The observation of the transformed positions: moves may be listed in the same
        # order (generation follows piece order), so compare score multisets per game.
        t_boards = np.stack([transform_board(g.board, g.hist, sym)[0] for g in games])
        o_logits, _ = forward(model, observe_batch(t_boards))
        for i in range(len(games)):
            n = obs["n_legal"][i]
            a = np.sort(logits[i, :n].numpy())
            b = np.sort(o_logits[i, :n].numpy())
            np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-4)


def test_bf16_autocast_runs(model):
    obs = observe_batch(np.stack([g.board for g in positions(3, seed=2)]))
    evaluate = make_evaluator(model, "cpu", bf16=True)
    logits, values = evaluate(obs)
    assert np.isfinite(values).all() and logits.shape == obs["legal_src"].shape


def test_checkpoint_round_trip_plays_the_same_moves(tmp_path, model):
    path = save_checkpoint(tmp_path / "a.pt", model, step=3)
    loaded, state = load_model(path, "cpu")
    assert state["step"] == 3
    games = positions(3, seed=4)
    boards = np.stack([g.board for g in games])
    hists = np.stack([g.hist for g in games])
    cfg = SearchConfig(sims=24)
    a = BatchedMCTS(cfg, 3, 7, make_evaluator(model)).search(boards, hists, [1, 2, 3], add_noise=True)
    b = BatchedMCTS(cfg, 3, 7, make_evaluator(loaded)).search(boards, hists, [1, 2, 3], add_noise=True)
    np.testing.assert_array_equal(a.chosen, b.chosen)
    np.testing.assert_array_equal(a.visits, b.visits)


def test_corrupt_checkpoints_are_detected_and_skipped(tmp_path, model):
    store = CheckpointStore(tmp_path)
    store.publish(1, model)
    store.publish(2, model)
    store.path(3).write_bytes(b"not a checkpoint")
    (tmp_path / "ckpt_00000004.pt.tmp").write_bytes(b"half")
    with pytest.raises(CheckpointError):
        load_model(store.path(3))
    with pytest.warns(UserWarning, match="skipping"):
        step, _ = store.latest()
    assert step == 2 and store.steps() == [1, 2, 3]
    store.prune(keep=1)
    assert store.steps() == [3]


@pytest.mark.slow
def test_torch_compile_gives_the_same_scores(model):
    games = positions(6, seed=8)
    obs = observe_batch(np.stack([g.board for g in games]))
    eager = make_evaluator(model)(obs)
    compiled = make_evaluator(model, compile=True)
    for batch in (obs, observe_batch(np.stack([g.board for g in positions(3, seed=9)]))):
        want, got = make_evaluator(model)(batch), compiled(batch)
        np.testing.assert_allclose(got[1], want[1], atol=1e-5)
        n = batch["n_legal"]
        for i in range(len(n)):
            np.testing.assert_allclose(got[0][i, :n[i]], want[0][i, :n[i]], atol=1e-4)
    assert eager[0].shape == obs["legal_src"].shape
