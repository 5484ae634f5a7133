"""The graph network: shapes, masking, exact symmetry invariance, checkpoints."""

from __future__ import annotations

import warnings

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
from search.network import make_evaluator, maybe_compile, to_tensors, trim
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


def padded_forward(model, obs):
    """The network's function computed the plain way, over every padded node and slot (the
    model computes it on packed rows): the reference the packed forward pass must equal."""
    mask = obs["node_mask"].bool()
    b, n = mask.shape
    maskf = mask.unsqueeze(-1).float()

    def rows(h, extra, index):  # h [B, N, C] at index [B, K] (-1 -> extra)
        ext = torch.cat([h, extra.view(1, 1, -1).expand(b, 1, -1)], 1)
        idx = torch.where(index < 0, torch.full_like(index, n), index)
        return torch.gather(ext, 1, idx.unsqueeze(-1).expand(-1, -1, h.shape[-1]))

    def mean(h):
        return (h * maskf).sum(1) / maskf.sum(1).clamp(min=1)

    glob = obs["global_feat"].float()
    h = (model.embed_node(obs["node_feat"].float()) + model.embed_global(glob).unsqueeze(1)) * maskf
    neighbours = obs["neighbours"].long().reshape(b, n * 6)
    for block in model.blocks:
        x = block.norm(h)
        nb = rows(x, block.void, neighbours).view(b, n, 6, -1)
        adjacent = sum(nb[:, :, d] * nb[:, :, (d + 1) % 6] for d in range(6))
        opposite = sum(nb[:, :, d] * nb[:, :, d + 3] for d in range(3)) * 2
        ctx = mean(x).unsqueeze(1).expand_as(x)
        h = h + block.mix(torch.cat([x, nb.sum(2), adjacent / 6, opposite / 6, ctx], -1)) * maskf
    h = model.norm(h)
    context = mean(h)
    src, dst = obs["legal_src"].long(), obs["legal_dst"].long()
    zero = h.new_zeros(h.shape[-1])
    hs, hd = rows(h, zero, src), rows(h, zero, dst)
    logits = model.policy(torch.cat([hs, hd, hs * hd, context.unsqueeze(1).expand_as(hs)], -1)).squeeze(-1)
    logits = torch.where(src < 0, model.pass_logit(context), logits)
    slots = torch.arange(src.shape[1]).unsqueeze(0)
    logits = logits.masked_fill(slots >= obs["n_legal"].long().unsqueeze(1), NEG_INF)
    pooled = h.masked_fill(~mask.unsqueeze(-1), torch.finfo(h.dtype).min).amax(1)
    return logits, model.value(torch.cat([context, pooled, model.embed_global(glob)], -1))


@pytest.mark.parametrize("seed", [0, 1])
def test_packed_forward_equals_the_padded_network(seed):
    """Values and gradients of the packed forward pass equal the plain padded computation,
    on a batch of very different sizes (opening to late game) with random parameters."""
    torch.manual_seed(seed)
    net = build_model("tiny")
    with torch.no_grad():
        for p in net.parameters():
            p.normal_(0, 0.3)
    games = random_positions(12, "Base+MLP", seed, min_plies=0, max_plies=70)
    obs = observe_batch(np.stack([g.board for g in games]))
    assert obs["n_nodes"].min() < obs["n_nodes"].max() and obs["n_legal"].min() < obs["n_legal"].max()
    inputs = to_tensors(trim(obs), torch.device("cpu"))
    weights = torch.rand(inputs["legal_src"].shape)
    grads = []
    for fn in (net, lambda x: padded_forward(net, x)):
        net.zero_grad()
        logits, wdl = fn(inputs)
        loss = (torch.log_softmax(logits, -1).clamp(min=-30) * weights).sum() + wdl.square().sum()
        loss.backward()
        grads.append(([p.grad.clone() for p in net.parameters()], logits.detach(), wdl.detach()))
    (g_packed, l_packed, w_packed), (g_padded, l_padded, w_padded) = grads
    torch.testing.assert_close(l_packed, l_padded, rtol=1e-5, atol=1e-4)
    torch.testing.assert_close(w_packed, w_padded, rtol=1e-5, atol=1e-4)
    for a, b in zip(g_packed, g_padded, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-3 * max(1.0, b.abs().max().item()))


def test_a_failing_compile_warns_and_runs_eagerly(model, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("no working C++ compiler")

    monkeypatch.setattr(torch, "compile", lambda m, **kw: broken)
    obs = observe_batch(np.stack([g.board for g in positions(3, seed=5)]))
    net = maybe_compile(model, True)
    with pytest.warns(RuntimeWarning, match="torch.compile failed.*no working C\\+\\+ compiler"):
        got = forward(net, obs)
    want = forward(model, obs)
    torch.testing.assert_close(got[0], want[0])
    torch.testing.assert_close(got[1], want[1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        forward(net, obs)  # warned once; eager from then on
    assert maybe_compile(model, False) is model


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


def test_the_aux_head_adds_outputs_and_changes_nothing_else(tmp_path, model):
    torch.manual_seed(0)
    aux_model = build_model("tiny", aux_head=True).eval()
    assert set(aux_model.state_dict()) - set(model.state_dict()) == {
        k for k in aux_model.state_dict() if k.startswith("aux.")} != set()
    aux_model.load_state_dict({**aux_model.state_dict(), **model.state_dict()})
    obs = observe_batch(np.stack([g.board for g in positions(5, seed=5)]))
    inputs = to_tensors(obs, torch.device("cpu"))
    with torch.no_grad():
        logits, wdl, aux = aux_model(inputs, aux=True)
        plain = model(inputs)
        rotated = aux_model(to_tensors(transform_observation(obs, 7), torch.device("cpu")), aux=True)[2]
    torch.testing.assert_close((logits, wdl), plain)  # the search's outputs are those of the plain net
    assert aux.shape == (5, 3)
    torch.testing.assert_close(rotated, aux, rtol=1e-4, atol=1e-4)  # symmetric like the value head
    loaded, _ = load_model(save_checkpoint(tmp_path / "aux.pt", aux_model))
    assert loaded.config.aux_head
    with torch.no_grad():
        torch.testing.assert_close(loaded(inputs, aux=True)[2], aux)
    with pytest.raises(ValueError, match="no auxiliary head"):
        model(inputs, aux=True)


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
