"""hive-train as a user runs it: a smoke run, a killed run resumed, a time budget, bad settings."""

from __future__ import annotations

import os
import signal

import pytest

from hive_env import Game
from search.checkpoint import load_model

from helpers import hive_train, wait_for


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


@pytest.mark.slow  # moved for the default suite's 10 minutes
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


@pytest.mark.slow  # moved for the default suite's 10 minutes
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
    assert out.splitlines() == ["hive-train: error: train.lr must be > 0, got -1.0"]
    assert not (tmp_path / "bad").exists()  # Hydra's hydra/ and train.log neither
