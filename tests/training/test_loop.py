"""The training job from Python (training.loop.train) and the self-play backends behind it."""

from __future__ import annotations

import time

import numpy as np
import pytest
import torch

from models.gnn import build_model
from search.mcts import SearchConfig
from training.config import ConfigError, RunConfig, SelfPlaySettings
from training.loop import compose_config, train
from training.replay import ReplayStore
from training.selfplay import SelfPlay, SelfPlayConfig
from training.selfplay_backend import InlineSelfPlay, ProcessSelfPlay, arena_executor, make_backend
from training.worker import WAIT_S, make_shard, worker_seed

from helpers import TINY_RUN, hashed_evaluate


def test_train_runs_the_whole_job_from_python_and_a_rerun_resumes(tmp_path):
    run_dir = tmp_path / "run"
    lines: list[str] = []
    result = train(compose_config([*TINY_RUN, f"run_dir={run_dir}"]), log=lines.append)
    assert result.run_dir == run_dir and result.final == run_dir / "checkpoints" / "final.pt"
    assert result.final.is_file() and (result.name, result.steps) == ("smoke", 4)
    assert [stats.games for _, _, stats in result.report.pairings] == [2]  # the final match, returned
    assert lines[0] == f"run directory: {run_dir} (rerun the same command to resume)"
    assert any(line.startswith("self-play inference: auto -> numba (fp32) below 16 positions, packed from ")
               for line in lines)
    assert "# git: " in (run_dir / "config.yaml").read_text()
    assert ReplayStore(run_dir / "replay").count() >= 32
    # the same job again: nothing left to train, the final match resumes from its games
    again = train(compose_config([*TINY_RUN, f"run_dir={run_dir}", "train.lr=0.01"]), log=lines.append)
    assert again.final == result.final
    assert "hive-train: resuming with changed settings: train.lr" in " ".join(lines)
    assert "train.lr" in (run_dir / "resumes.log").read_text()


def test_train_refuses_bad_settings_before_writing_anything(tmp_path):
    run_dir = tmp_path / "run"
    with pytest.raises(ConfigError, match="selfplay.fast_sims"):
        train(compose_config([*TINY_RUN, f"run_dir={run_dir}", "selfplay.full_search_prob=0.5",
                              "selfplay.fast_sims=99"]))
    assert not run_dir.exists()


def _cfg(tmp_path, workers: int, **top) -> RunConfig:
    return RunConfig(run_dir=tmp_path, model=build_model("tiny").config, search=SearchConfig(sims=2),
                     selfplay=SelfPlaySettings(games=2, workers=workers, shard_games=1), device="cpu", **top)


def test_the_backend_is_chosen_once_from_the_settings(tmp_path):
    model = build_model("tiny")
    inline = make_backend(_cfg(tmp_path, 0), model, 0, torch.device("cpu"))
    assert isinstance(inline, InlineSelfPlay)
    inline.close()
    assert arena_executor(_cfg(tmp_path, 0)) is None  # the arena's own process pool
    procs = make_backend(_cfg(tmp_path, 1), model, 0, torch.device("cpu"))
    try:
        assert isinstance(procs, ProcessSelfPlay) and len(procs.procs) == 1
        procs.check()  # alive
    finally:
        procs.close()
    assert not procs.procs[0].is_alive()
    procs.check()  # stopped by close(): nothing restarted (a dead worker is restarted: test_faults.py)
    assert not procs.procs[0].is_alive() and procs.restarts == [0]


def test_the_inline_backend_writes_a_shard_of_the_newest_checkpoint_per_wait(tmp_path):
    from training.checkpoint import CheckpointStore

    cfg = _cfg(tmp_path, 0)
    CheckpointStore(tmp_path / "checkpoints").publish(3, build_model("tiny"))
    backend = InlineSelfPlay(cfg, torch.device("cpu"))
    backend.wait()
    store = ReplayStore(tmp_path / "replay")
    assert store.shard_count(0) == 1 and store.stats(store.shard_paths()[0])["network_step"] == 3
    backend.wait()
    assert store.shard_count(0) == 2


def test_a_shard_holds_its_games_samples_stats_and_records():
    sp = SelfPlay(SelfPlayConfig(games=2), SearchConfig(sims=4), "Base", 16, hashed_evaluate, seed=1)
    games = []
    while len(games) < 2:
        games.extend(sp.step())
    shard = make_shard(games, network_step=7, actor_batch=2)
    assert list(shard.stats) == ["game_plies", "game_status", "game_truncated", "network_step", "actor_batch"]
    assert shard.stats["game_plies"].dtype == np.int32 and shard.stats["game_status"].dtype == np.int8
    assert shard.stats["network_step"] == 7 and shard.stats["actor_batch"] == 2
    assert len(shard.samples) == sum(len(g.samples) for g in games) and len(shard.games) == len(games)
    assert shard.games == [g.game_string for g in games]


def test_worker_seeds_differ_by_worker_and_by_shards_written():
    seeds = {worker_seed(0, w, s) for w in range(4) for s in range(50)}
    assert len(seeds) == 200 and worker_seed(1, 0, 0) != worker_seed(0, 0, 0)


def test_paused_workers_play_no_move_until_resumed(tmp_path):
    from training.checkpoint import CheckpointStore

    CheckpointStore(tmp_path / "checkpoints").publish(0, build_model("tiny"))
    store = ReplayStore(tmp_path / "replay")
    procs = ProcessSelfPlay(_cfg(tmp_path, 1))
    try:
        assert wait_until(lambda: store.shard_count(0) >= 1, 120)  # playing
        procs.pause()
        time.sleep(2 * WAIT_S)  # a batched move under way ends; the next waits
        paused = store.shard_count(0)
        time.sleep(3.0)
        assert store.shard_count(0) == paused
        procs.resume()
        assert wait_until(lambda: store.shard_count(0) > paused, 60)
    finally:
        procs.close()


def test_evaluation_time_is_counted_apart_from_training_time(tmp_path):
    from training.run import Run

    cfg = compose_config([*TINY_RUN, f"run_dir={tmp_path}", "train.steps=4", "train.checkpoint_every=2"])
    from training.config import run_config

    run = Run(run_config(cfg), {}, log=lambda _: None)
    calls = []

    def slow_evaluation(r, step):
        calls.append(step)
        time.sleep(1.5)

    start = time.monotonic()
    run.run(evaluate_hook=slow_evaluation)
    wall = time.monotonic() - start
    assert calls == [2, 4]
    assert run.trainer.eval_seconds >= 3.0
    assert run.trainer.seconds <= wall - 3.0 + 0.1  # the evaluations are not training time
    state = run.ckpts.latest()[1]
    assert state["trainer"]["eval_seconds"] >= 1.5  # saved (the step-4 checkpoint precedes its evaluation)
    assert state["lineage"]["totals"]["eval_minutes"] == round(state["trainer"]["eval_seconds"] / 60, 2)


def wait_until(condition, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.2)
    return False
