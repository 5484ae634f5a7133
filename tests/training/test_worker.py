"""Self-play workers: new checkpoints go into the evaluator they have."""

from __future__ import annotations

import numpy as np
import torch

from hive_env import Game
from models.gnn import build_model
from search.mcts import SearchConfig


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
    assert evaluate.backend == "packed"  # the fast path, as at play
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
