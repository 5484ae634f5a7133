"""Networks of an older encoding still play, on exactly the observations they were trained on
(search.network.adapt_obs, hive_env.encode.ADAPTED_VERSIONS); any other version is refused."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from hive_env.board import PLY
from hive_env.encode import ENCODING_VERSION, GF_TURN, GF_UNUSED, MAX_LEGAL, TURN_HORIZON, observe_batch
from models.gnn import build_model
from search.checkpoint import CheckpointError, load_model, read_checkpoint, save_checkpoint
from search.network import adapt_obs, make_evaluator, to_tensors, trim

from helpers import random_games


def encoding_2_globals(board: np.ndarray, now: np.ndarray) -> np.ndarray:
    """Global features as encoding 2 computed them (its code, kept here as the reference)."""
    ply = int(board[PLY])
    g = now.copy()
    g[GF_TURN] = (ply // 2 + 1) / 50.0
    g[GF_UNUSED] = min(ply / 300, 1.0)  # its GF_CLOCK
    return g


def test_observations_adapt_exactly_to_encoding_2():
    for game_type in ("Base", "Base+MLP"):
        games = random_games(game_type, seed=4, n_games=2, max_plies=120)
        boards = np.stack([g.board for g in games])
        obs = observe_batch(boards, MAX_LEGAL)
        old = adapt_obs(obs, 2)
        for b, board in enumerate(boards):
            want = encoding_2_globals(board, obs["global_feat"][b])
            np.testing.assert_array_equal(old["global_feat"][b], want)
        assert all(old[k] is obs[k] for k in obs if k != "global_feat")  # nothing else changes
    assert adapt_obs(obs, None) is obs and adapt_obs(obs, ENCODING_VERSION) is obs
    # the adapter is exact up to the horizon, the 300-ply cap of play
    for ply in (0, 1, 2, 151, 298, 299):
        board = games[0].board.copy()
        board[PLY] = ply
        single = observe_batch(board[None], MAX_LEGAL)
        assert single["global_feat"][0, GF_TURN] == np.float32(min(ply // 2 + 1, TURN_HORIZON) / TURN_HORIZON)
        np.testing.assert_array_equal(adapt_obs(single, 2)["global_feat"][0],
                                      encoding_2_globals(board, single["global_feat"][0]))


@pytest.fixture
def encoding_2_checkpoint(tmp_path):
    torch.manual_seed(3)
    path = save_checkpoint(tmp_path / "v2.pt", build_model("tiny"))
    state = torch.load(path, weights_only=True)
    state["encoding"]["version"] = 2
    torch.save(state, path)
    return path


@pytest.mark.parametrize("backend", ["torch", "numba"])
def test_an_encoding_2_network_is_evaluated_on_encoding_2_observations(encoding_2_checkpoint, backend):
    model, state = load_model(encoding_2_checkpoint)
    assert state["encoding"]["version"] == 2 and model.encoding_version == 2
    copy = save_checkpoint(encoding_2_checkpoint.with_name("copy.pt"), model)  # e.g. scripts/ship
    assert read_checkpoint(copy)["encoding"]["version"] == 2
    games = random_games("Base", seed=8, n_games=2, max_plies=90)
    obs = observe_batch(np.stack([g.board for g in games]), MAX_LEGAL)
    logits, values = make_evaluator(model, "cpu", backend=backend)(obs)
    with torch.no_grad():
        want_logits, want_wdl = model(to_tensors(trim(adapt_obs(obs, 2)), torch.device("cpu")))
        raw_logits, _ = model(to_tensors(trim(obs), torch.device("cpu")))
    n = want_logits.shape[1]
    np.testing.assert_allclose(logits[:, :n], want_logits.numpy(), rtol=1e-4, atol=1e-4)
    assert not np.allclose(raw_logits.numpy(), want_logits.numpy(), atol=1e-4)  # the adapter matters


def test_other_versions_are_refused_in_one_line(encoding_2_checkpoint, tmp_path):
    state = torch.load(encoding_2_checkpoint, weights_only=True)
    state["encoding"]["version"] = 1
    torch.save(state, tmp_path / "v1.pt")
    with pytest.raises(CheckpointError, match=f"uses encoding version 1, this code {ENCODING_VERSION}$"):
        read_checkpoint(tmp_path / "v1.pt")
    with pytest.raises(ValueError, match="no adapter"):
        adapt_obs(observe_batch(random_games("Base", 1, 1)[0].board[None], MAX_LEGAL), 1)
