"""Evaluation during training: gauntlets against baselines and the previous best, gating."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from hydra import compose, initialize_config_dir

from models.gnn import build_model
from search.checkpoint import load_model
from training.checkpoint import CheckpointStore
from training.config import register_configs, run_config
from training.gating import Evaluation

CONFIGS = str(Path(__file__).resolve().parents[1] / "configs")


class Recorder:
    """Records TensorBoard scalars (the part of ``training.metrics.Metrics`` gating uses)."""

    def __init__(self):
        self.tags: dict[str, list[tuple[int, float]]] = {}

    def scalar(self, tag, value, step):
        self.tags.setdefault(tag, []).append((step, float(value)))


class FakeRun:
    def __init__(self):
        self.metrics = Recorder()


def evaluation(tmp_path, gating: str, gate_score: float) -> Evaluation:
    overrides = ["experiment=smoke", f"run_dir={tmp_path}", "env.ply_cap=16", "eval.games=2", "eval.sims=2",
                 "eval.opponents=[random]", f"eval.gating={gating}", f"eval.gate_score={gate_score}",
                 "train.keep_checkpoints=10"]
    register_configs()
    with initialize_config_dir(config_dir=CONFIGS, version_base=None):
        cfg = run_config(compose(config_name="train", overrides=overrides))
    return Evaluation(cfg, log=lambda *_: None)


def publish(store: CheckpointStore, step: int) -> None:
    torch.manual_seed(step)
    store.publish(step, build_model("tiny"))


@pytest.mark.parametrize("gating,gate_score,promoted", [("none", 0.0, True), ("score", 0.0, True),
                                                        ("score", 1.01, False)])
def test_best_checkpoint_follows_the_gate(tmp_path, gating, gate_score, promoted):
    ev = evaluation(tmp_path, gating, gate_score)
    store = CheckpointStore(tmp_path / "checkpoints")
    run = FakeRun()
    publish(store, 10)
    ev.on_checkpoint(run, 10)  # the first evaluated checkpoint always becomes best
    assert load_model(ev.best)[1]["step"] == 10
    publish(store, 20)
    ev.on_checkpoint(run, 20)
    assert load_model(ev.best)[1]["step"] == (20 if promoted else 10)
    tags = run.metrics.tags
    assert [s for s, _ in tags["eval/score_vs_random"]] == [10, 20]
    assert [s for s, _ in tags["eval/score_vs_best"]] == [20]  # the previous best is an opponent
    assert tags["eval/promoted"][-1] == (20, float(promoted))
    assert (tmp_path / "eval" / "step_00000020" / "ratings.csv").exists()
