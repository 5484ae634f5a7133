"""The trainer: losses, value targets, the auxiliary head, the learning-rate schedule."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from models.gnn import AUX_PLIES_SCALE, build_model
from training.replay import Samples
from training.trainer import TrainConfig, Trainer, lr_at

from helpers import random_samples


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


@pytest.mark.parametrize("includes_eval", [False, True])
def test_the_budget_counts_the_evaluations_only_when_asked(includes_eval):
    cfg = TrainConfig(max_minutes=10, budget_includes_eval=includes_eval)
    trainer = Trainer(build_model("tiny"), cfg, torch.device("cpu"), 64)
    trainer.seconds, trainer.eval_seconds = 420.0, 240.0  # 7 minutes of training, 4 of evaluation
    assert trainer.time_used() == pytest.approx(1.1 if includes_eval else 0.7)
    assert trainer.out_of_time() == includes_eval
    assert TrainConfig(budget_includes_eval=True).max_minutes == 0  # no budget: never out of time


# ----- whole runs ------------------------------------------------------------------------------
