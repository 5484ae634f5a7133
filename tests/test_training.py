"""Self-play training: replay storage, trainer, and whole runs (smoke, kill + resume)."""

from __future__ import annotations

import os
import signal
import time

import numpy as np
import pytest
import torch

from hive_env import BLACK_WINS, PASS, WHITE_WINS, Game
from hive_env.board import PLY
from hive_env.outcome import adjudicate, queen_pressure
from hive_env.rules import MAX_MOVES, generate_moves
from hive_env.symmetry import transform_move
from hive_env.tactics import PROVEN_DRAW, PROVEN_LOSS, PROVEN_WIN, UNPROVEN
from models.gnn import AUX_PLIES_SCALE, build_model
from search.checkpoint import load_model
from search.mcts import SearchConfig
from training.replay import FIELDS, ReplayStore, Samples, augment_samples
from training.selfplay import SelfPlay, SelfPlayConfig, sharpen_targets
from training.trainer import TrainConfig, Trainer, lr_at

from helpers import hive_train, wait_for


def random_samples(n: int, game_type: str = "Base+MLP", seed: int = 0) -> Samples:
    """Positions of random games with random policies over their legal moves."""
    rng = np.random.default_rng(seed)
    boards, policies, n_legal = [], [], []
    while len(boards) < n:
        g = Game(game_type)
        for _ in range(int(rng.integers(1, 40))):
            moves = g.legal_moves()
            if len(moves) == 0:
                break
            p = np.zeros(512, np.float16)
            p[: len(moves)] = rng.dirichlet(np.ones(len(moves)))
            boards.append(g.board.copy())
            policies.append(p)
            n_legal.append(len(moves))
            g.play(int(moves[rng.integers(len(moves))]))
            if g.is_over or len(boards) >= n:
                break
    z = rng.integers(-1, 2, size=n).astype(np.int8)
    return Samples(np.stack(boards), np.stack(policies), np.array(n_legal, np.int16), z,
                   np.arange(n, 0, -1, dtype=np.int16), rng.uniform(-1, 1, n).astype(np.float16),
                   rng.integers(0, 7, size=(n, 2)).astype(np.int8))


# ----- replay ----------------------------------------------------------------------------------


def test_shards_are_written_atomically_and_damage_is_skipped(tmp_path):
    store = ReplayStore(tmp_path)
    a = store.write_shard(0, random_samples(30, seed=1), {"game_plies": np.array([30])})
    store.write_shard(0, random_samples(20, seed=2))
    assert not list(tmp_path.glob("*.tmp"))
    (tmp_path / "shard_001_000000.npz.tmp").write_bytes(b"partial")  # a writer died mid-write
    assert store.count() == 50
    assert store.stats(a)["game_plies"].tolist() == [30]
    (tmp_path / "shard_002_000000.npz").write_bytes(b"garbage")
    fresh = ReplayStore(tmp_path)
    with pytest.warns(UserWarning, match="damaged"):
        assert fresh.count() == 50


def test_window_sampling_draws_only_recent_positions(tmp_path):
    store = ReplayStore(tmp_path)
    old = random_samples(40, seed=3)
    old.z[:] = 1
    store.write_shard(0, old)
    time.sleep(0.01)
    new = random_samples(40, seed=4)
    new.z[:] = -1
    store.write_shard(0, new)
    rng = np.random.default_rng(0)
    batch = store.sample(256, window=40, rng=rng, augment=False)
    assert (batch.z == -1).all()
    batch = store.sample(512, window=80, rng=rng, augment=False)
    assert set(np.unique(batch.z)) == {-1, 1}
    assert len(store.window(50)) == 50


def test_augmentation_moves_policy_targets_with_their_moves():
    samples = random_samples(40, seed=5)
    syms = np.arange(40) % 12
    aug = augment_samples(samples, syms)
    buf = np.empty(MAX_MOVES, np.int32)
    for i in range(40):
        n = generate_moves(samples.board[i], buf)
        orig = {int(buf[j]): float(samples.policy[i, j]) for j in range(n)}
        m = generate_moves(aug.board[i], buf)
        moved = {int(buf[j]): float(aug.policy[i, j]) for j in range(m)}
        assert n == m == samples.n_legal[i]
        for move, p in orig.items():
            image = move if move == PASS else transform_move(move, int(syms[i]))
            assert moved[image] == p
    np.testing.assert_array_equal(aug.z, samples.z)


@pytest.mark.parametrize("version", [1, 2, 3])
def test_older_shards_read_with_what_they_lack_as_defaults(tmp_path, version):
    """Version 1 shards lack q (read as the result), 1 and 2 the queen pressure (read as -1)."""
    samples = random_samples(12, seed=7)
    lacks = {1: ("q", "pressure"), 2: ("pressure",), 3: ()}[version]
    np.savez(tmp_path / "shard_000_000000.npz", version=np.int32(version),
             **{k: getattr(samples, k) for k in FIELDS if k not in lacks})
    loaded = ReplayStore(tmp_path).window(100)
    assert len(loaded) == 12
    np.testing.assert_array_equal(loaded.q, samples.z.astype(np.float16) if "q" in lacks else samples.q)
    np.testing.assert_array_equal(loaded.pressure, -1 if "pressure" in lacks else samples.pressure)
    assert loaded.pressure.shape == (12, 2) and loaded.pressure.dtype == np.int8
    np.testing.assert_array_equal(loaded.board, samples.board)


# ----- self-play -------------------------------------------------------------------------------


def play_out(config: SelfPlayConfig, sims: int = 8, ply_cap: int = 24, seed: int = 0):
    """Self-play with the hashed fake network until every game finished once."""
    from tests.helpers import hashed_evaluate

    sp = SelfPlay(config, SearchConfig(sims=sims), "Base", ply_cap, hashed_evaluate, seed=seed)
    finished, steps = [], 0
    while len(finished) < config.games:
        finished += sp.step()
        steps += 1
    return sp, finished, steps


def test_playout_cap_randomisation_records_only_full_searches():
    full = SelfPlayConfig(games=4)
    sp_full, games_full, steps = play_out(full)
    assert all(len(g.samples) == g.plies for g in games_full)
    assert sp_full.mcts.timings["sims"] == 8 * 4 * steps  # every move a full search
    pcr = SelfPlayConfig(games=4, full_search_prob=0.3, fast_sims=2)
    sp, games, steps = play_out(pcr)
    recorded = sum(len(g.samples) for g in games)
    plies = sum(g.plies for g in games)
    assert 0 < recorded < 0.6 * plies
    assert sp.mcts.timings["sims"] < 8 * 4 * steps  # the fast moves ran 2 simulations
    for g in games:
        s = g.samples
        assert (s.plies_left + s.board[:, PLY] == g.plies).all()  # plies left of each recorded ply
        assert s.q.dtype == np.float16 and (np.abs(s.q.astype(np.float32)) <= 1).all()
        assert len(Game.from_string(g.game_string).moves) == g.plies  # the record keeps every move
    with pytest.raises(ValueError, match="fast_sims"):
        SelfPlay(SelfPlayConfig(full_search_prob=0.5, fast_sims=16), SearchConfig(sims=8), "Base", 24,
                 None, seed=0)


def test_sharpened_targets_follow_the_proofs():
    u, lo, dr, w = UNPROVEN, PROVEN_LOSS, PROVEN_DRAW, PROVEN_WIN
    policy = np.array([0.4, 0.3, 0.2, 0.1, 0.0], np.float32)  # 4 legal moves, one padding slot
    won, q = sharpen_targets(policy, 0.2, np.array([u, w, lo, w, 0], np.int8), 4, w)
    np.testing.assert_allclose(won, [0, 0.5, 0, 0.5, 0])
    assert q == 1.0
    drawn, q = sharpen_targets(policy, 0.2, np.array([lo, dr, lo, lo, 0], np.int8), 4, dr)
    np.testing.assert_allclose(drawn, [0, 1, 0, 0, 0])
    assert q == 0.0
    open_, q = sharpen_targets(policy, 0.2, np.array([u, lo, u, lo, 0], np.int8), 4, u)
    np.testing.assert_allclose(open_, [2 / 3, 0, 1 / 3, 0, 0], rtol=1e-6)
    assert q == pytest.approx(0.2)
    lost, q = sharpen_targets(policy, 0.2, np.array([lo, lo, lo, lo, 0], np.int8), 4, lo)
    np.testing.assert_allclose(lost, policy)
    assert q == -1.0


def test_proven_targets_change_only_the_labels_of_proven_positions():
    plain = play_out(SelfPlayConfig(games=4), ply_cap=60)[1]
    sharp = play_out(SelfPlayConfig(games=4, proven_targets=True), ply_cap=60)[1]
    assert [g.game_string for g in plain] == [g.game_string for g in sharp]  # the same games
    changed = 0
    for a, b in zip(plain, sharp, strict=True):
        differs = (a.samples.policy != b.samples.policy).any(axis=1) | (a.samples.q != b.samples.q)
        changed += int(differs.sum())
        np.testing.assert_allclose(b.samples.policy.astype(np.float32).sum(axis=1), 1.0, atol=2e-3)
        if a.status in (WHITE_WINS, BLACK_WINS) and differs[-1]:
            assert b.samples.q[-1] == 1.0  # the winning move's position: proven won
    assert changed > 0


def test_samples_carry_the_final_queen_pressure_of_both_sides():
    _, games, _ = play_out(SelfPlayConfig(games=6, adjudicate_margin=1), ply_cap=40)
    assert any(g.samples.pressure.max() > 0 for g in games)
    for g in games:
        final = Game.from_string(g.game_string).board  # the position the game ended in
        white, black = queen_pressure(final, 0), queen_pressure(final, 1)
        mover = g.samples.board[:, PLY] & 1
        np.testing.assert_array_equal(g.samples.pressure[:, 0], np.where(mover == 0, white, black))
        np.testing.assert_array_equal(g.samples.pressure[:, 1], np.where(mover == 0, black, white))
        if g.truncated:  # a capped game's label is the adjudication of that position
            assert g.status == adjudicate(final, 1)


# ----- trainer ---------------------------------------------------------------------------------


def test_training_steps_on_a_fixed_batch_lower_the_loss():
    torch.manual_seed(0)
    batch = random_samples(32, seed=6)
    batch.policy[:] = 0  # one-hot targets: the loss can go towards 0 when the batch is learned
    batch.policy[np.arange(32), np.arange(32) % batch.n_legal] = 1
    cfg = TrainConfig(batch_size=32, lr=3e-3, warmup_steps=1, steps=100, augment=False)
    trainer = Trainer(build_model("tiny"), cfg, torch.device("cpu"), 512)
    first = trainer.train_step(batch)
    for _ in range(60):
        last = trainer.train_step(batch)
    assert last["total"] < 0.5 * first["total"]
    assert last["value"] < first["value"] and last["policy"] < first["policy"]
    assert trainer.step == 61


def mean_value(trainer: Trainer, batch: Samples) -> float:
    """The network's mean expected value (win - loss) over a batch."""
    from hive_env.encode import observe_batch
    from search.network import to_tensors, trim

    trainer.model.eval()
    with torch.no_grad():
        _, wdl = trainer.model(to_tensors(trim(observe_batch(batch.board, 512)), torch.device("cpu")))
    p = torch.softmax(wdl, -1)
    return float((p[:, 0] - p[:, 2]).mean())


@pytest.mark.parametrize("mix, sign", [(0.0, 1), (1.0, -1)])
def test_value_targets_mix_the_root_value_by_value_target_q(mix, sign):
    torch.manual_seed(0)
    batch = random_samples(32, seed=8)
    batch.z[:] = 1  # every game won, but the searches thought them lost
    batch.q[:] = -0.8
    cfg = TrainConfig(batch_size=32, lr=3e-3, warmup_steps=1, steps=100, value_target_q=mix)
    trainer = Trainer(build_model("tiny"), cfg, torch.device("cpu"), 512)
    for _ in range(40):
        trainer.train_step(batch)
    assert sign * mean_value(trainer, batch) > 0.5


def test_the_auxiliary_head_learns_plies_left_and_queen_pressure():
    torch.manual_seed(0)
    batch = random_samples(32, seed=9)
    batch.plies_left[:] = 40
    batch.pressure[:] = [6, 2]
    cfg = TrainConfig(batch_size=32, lr=3e-3, warmup_steps=1, steps=100, moves_left_weight=1.0,
                      pressure_weight=1.0)
    trainer = Trainer(build_model("tiny", aux_head=True), cfg, torch.device("cpu"), 512)
    first = trainer.train_step(batch)
    for _ in range(80):
        last = trainer.train_step(batch)
    assert last["moves_left"] < 0.2 * first["moves_left"] and last["pressure"] < 0.2 * first["pressure"]
    from hive_env.encode import observe_batch
    from search.network import to_tensors, trim

    trainer.model.eval()
    with torch.no_grad():
        _, _, aux = trainer.model(to_tensors(trim(observe_batch(batch.board, 512)), torch.device("cpu")),
                                  aux=True)
    np.testing.assert_allclose(aux.mean(0).numpy(), [40 / AUX_PLIES_SCALE, 1.0, 2 / 6], atol=0.1)


def test_the_pressure_loss_skips_samples_that_lack_it():
    batch = random_samples(4, seed=10)
    batch.plies_left[:] = 0
    batch.pressure[:] = -1  # from an old shard: unknown
    batch.pressure[2] = [6, 0]
    trainer = Trainer(build_model("tiny", aux_head=True), TrainConfig(pressure_weight=1.0),
                      torch.device("cpu"), 512)
    terms = trainer._aux_losses(torch.zeros(4, 3), batch)
    assert float(terms["pressure"]) == pytest.approx(0.5)  # ((0 - 1)^2 + (0 - 0)^2) / 2 known
    assert float(terms["moves_left"]) == 0.0
    batch.pressure[:] = -1
    assert float(trainer._aux_losses(torch.zeros(4, 3), batch)["pressure"]) == 0.0


def test_aux_weights_need_the_aux_head():
    batch = random_samples(8, seed=11)
    trainer = Trainer(build_model("tiny"), TrainConfig(batch_size=8, moves_left_weight=1.0),
                      torch.device("cpu"), 512)
    with pytest.raises(ValueError, match="no auxiliary head"):
        trainer.train_step(batch)


def test_the_learning_rate_follows_the_wall_clock_budget_when_it_runs_out_first():
    cfg = TrainConfig(lr=1e-3, warmup_steps=10, steps=10000, min_lr_ratio=0.1, max_minutes=1)
    assert lr_at(100, cfg) > 0.99e-3
    assert lr_at(100, cfg, time_used=0.5) == pytest.approx(0.55e-3, rel=0.02)
    assert lr_at(100, cfg, time_used=1.0) == pytest.approx(1e-4)
    assert lr_at(9990, cfg, time_used=0.0) == pytest.approx(1e-4, rel=0.01)


# ----- whole runs ------------------------------------------------------------------------------


def test_smoke_run_leaves_checkpoint_events_records_and_config(smoke_run):
    run_dir, out, returncode = smoke_run
    assert returncode == 0, out[-3000:]
    assert "final score vs random" in out
    model, state = load_model(run_dir / "checkpoints" / "final.pt")
    assert state["step"] == 20
    assert list((run_dir / "tb").glob("events.out.tfevents.*"))
    records = (run_dir / "replay" / "games_000.txt").read_text().splitlines()
    assert records and all(Game.from_string(r).ply > 0 for r in records[:5])
    config = (run_dir / "config.yaml").read_text()
    assert "name: smoke" in config and "git:" in config
    assert (run_dir / "checkpoints" / "best.pt").exists()


def test_killed_run_resumes_with_counters_and_replay_intact(tmp_path):
    run_dir = tmp_path / "resume"
    overrides = ("train.steps=40", "train.checkpoint_every=10", "eval.every=0", "eval.final_games=2")
    proc = hive_train(run_dir, *overrides)
    ckpt = run_dir / "checkpoints" / "ckpt_00000010.pt"
    wait_for(proc, ckpt.exists, timeout=400, poll=0.2)
    assert ckpt.exists(), proc.communicate()[0][-3000:]
    os.killpg(proc.pid, signal.SIGKILL)  # the trainer and its workers, mid-run
    proc.wait()
    shards_before = {p.name for p in (run_dir / "replay").glob("shard_*.npz")}
    assert shards_before
    proc = hive_train(run_dir, *overrides)
    out, _ = proc.communicate(timeout=600)
    assert proc.returncode == 0, out[-3000:]
    assert "resumed from checkpoint step" in out
    resumed_at = int(out.split("resumed from checkpoint step")[1].split()[0])
    assert resumed_at >= 10
    _, state = load_model(run_dir / "checkpoints" / "final.pt")
    assert state["step"] == 40
    assert shards_before <= {p.name for p in (run_dir / "replay").glob("shard_*.npz")}
    last = load_model(run_dir / "checkpoints" / "ckpt_00000040.pt")[1]
    assert last["trainer"]["train_step"] == 40


def test_a_wall_clock_budget_ends_the_run_with_its_final_checkpoint(tmp_path):
    run_dir = tmp_path / "budget"
    overrides = ("selfplay.workers=0", "train.steps=100000", "train.max_minutes=0.1", "eval.every=0",
                 "eval.final_games=2", "selfplay.full_search_prob=0.5", "train.value_target_q=0.5")
    out, _ = hive_train(run_dir, *overrides).communicate(timeout=600)
    assert "final score vs random" in out, out[-3000:]
    _, state = load_model(run_dir / "checkpoints" / "final.pt")
    assert 0 < state["step"] < 100000
    last = max((run_dir / "checkpoints").glob("ckpt_*.pt"))
    trainer = load_model(last)[1]["trainer"]
    assert trainer["seconds"] >= 6 and trainer["train_step"] == state["step"]
    out, _ = hive_train(run_dir, *overrides).communicate(timeout=600)  # a rerun: nothing left to do
    assert "resumed from checkpoint step" in out and load_model(run_dir / "checkpoints" / "final.pt")[1][
        "step"] == state["step"]


def test_bad_settings_stop_hive_train_at_start_up(tmp_path):
    proc = hive_train(tmp_path / "bad", "train.lr=-1")
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 2
    assert "train.lr" in out and "Traceback" not in out


def test_a_worker_loads_new_checkpoints_into_the_evaluator_it_has(tmp_path):
    from hive_env.encode import observe_batch
    from search.network import make_evaluator
    from training.checkpoint import CheckpointStore
    from training.config import RunConfig, SelfPlaySettings
    from training.worker import WorkerLoop

    cfg = RunConfig(run_dir=tmp_path, model=build_model("tiny").config, search=SearchConfig(sims=4),
                    selfplay=SelfPlaySettings(games=2), device="cpu")
    store = CheckpointStore(tmp_path / "checkpoints")
    torch.manual_seed(1)
    store.publish(10, build_model("tiny"))
    worker = WorkerLoop(cfg, 0, torch.device("cpu"))
    assert worker.refresh() and worker.player.step_loaded == 10
    evaluate, selfplay = worker.player.evaluate, worker.player.selfplay
    assert evaluate.backend == "numba"  # the fast path, as at play
    worker.play()
    assert len(selfplay.mcts.cache) > 0
    torch.manual_seed(2)
    newer = build_model("tiny")
    store.publish(20, newer)
    assert worker.refresh() and worker.player.step_loaded == 20
    assert worker.player.evaluate is evaluate and worker.player.selfplay is selfplay  # nothing rebuilt
    assert len(selfplay.mcts.cache) == 0  # the old network's outputs forgotten
    later = Game.from_string("Base;InProgress;White[2];wS1;bG1 -wS1")
    obs = observe_batch(np.stack([Game("Base").board, later.board]))
    got, want = evaluate(obs), make_evaluator(newer, backend="torch")(obs)
    np.testing.assert_allclose(got[1], want[1], atol=1e-5)
    worker.play()
