"""Self-play workers: new checkpoints go into the evaluator they have; each plays its game type."""

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
    evaluate, [selfplay] = worker.player.evaluate, worker.player.games
    assert evaluate.backend == "packed"  # the fast path, as at play
    worker.play()
    assert len(selfplay.mcts.cache) > 0
    torch.manual_seed(2)
    newer = build_model("tiny")
    store.publish(20, newer)
    assert worker.refresh() and worker.player.step_loaded == 20
    assert worker.player.evaluate is evaluate and worker.player.games == [selfplay]  # nothing rebuilt
    assert len(selfplay.mcts.cache) == 0  # the old network's outputs forgotten
    later = Game.from_string("Base;InProgress;White[2];wS1;bG1 -wS1")
    obs = observe_batch(np.stack([Game("Base").board, later.board]))
    got, want = evaluate(obs), make_evaluator(newer, backend="torch")(obs)
    np.testing.assert_allclose(got[1], want[1], atol=1e-5)
    worker.play()


def test_each_worker_plays_its_game_type_and_the_trainer_learns_from_them_all(tmp_path):
    from hive_env.board import EXPANSIONS
    from hive_env.pieces import parse_game_type
    from training.checkpoint import CheckpointStore
    from training.config import EnvConfig, RunConfig, SelfPlaySettings
    from training.replay import ReplayStore, Samples
    from training.trainer import TrainConfig, Trainer
    from training.worker import WorkerLoop, worker_game_types

    types = ("Base+M", "Base+L", "Base+P")
    cfg = RunConfig(run_dir=tmp_path, model=build_model("tiny").config, search=SearchConfig(sims=2),
                    env=EnvConfig("Base+MLP", ply_cap=12),
                    selfplay=SelfPlaySettings(games=2, shard_games=2, game_types=types, workers=4),
                    device="cpu")
    assert [worker_game_types(cfg, w) for w in range(4)] == [(t,) for t in (*types, "Base+M")]
    plain = RunConfig(run_dir=tmp_path, env=EnvConfig("Base+L"))
    assert worker_game_types(plain, 3) == ("Base+L",)  # no game_types: the run's
    torch.manual_seed(1)
    CheckpointStore(tmp_path / "checkpoints").publish(1, build_model("tiny"))
    for w in (0, 1):
        worker = WorkerLoop(cfg, w, torch.device("cpu"))
        assert worker.refresh()
        while not worker.play():
            pass
    replay = ReplayStore(tmp_path / "replay")
    by_worker = {int(p.stem.split("_")[1]): replay.load(p) for p in replay.shard_paths()}
    assert {w: set(s.board[:, EXPANSIONS].tolist()) for w, s in by_worker.items()} == \
        {0: {parse_game_type("Base+M")}, 1: {parse_game_type("Base+L")}}
    games = (tmp_path / "replay" / "games_001.txt").read_text().splitlines()
    assert games and all(line.startswith("Base+L;") for line in games)
    both = Samples.concat([by_worker[0], by_worker[1]])
    trainer = Trainer(build_model("tiny"), TrainConfig(batch_size=len(both), warmup_steps=1, steps=2),
                      torch.device("cpu"), 512)
    assert np.isfinite(trainer.train_step(both)["total"])  # one batch of both types


def test_fewer_workers_than_types_play_every_type_in_turn(tmp_path):
    from hive_env.board import EXPANSIONS
    from hive_env.pieces import parse_game_type
    from training.checkpoint import CheckpointStore
    from training.config import EnvConfig, RunConfig, SelfPlaySettings
    from training.replay import ReplayStore
    from training.worker import WorkerLoop, worker_game_types

    types = ("Base+M", "Base+L", "Base+P", "Base+ML", "Base+MP")
    cfg = RunConfig(run_dir=tmp_path, model=build_model("tiny").config, search=SearchConfig(sims=2),
                    env=EnvConfig("Base+MLP", ply_cap=8),
                    selfplay=SelfPlaySettings(games=2, shard_games=4, game_types=types, workers=2),
                    device="cpu")
    assert worker_game_types(cfg, 0) == ("Base+M", "Base+P", "Base+MP")
    assert worker_game_types(cfg, 1) == ("Base+L", "Base+ML")
    inline = RunConfig(run_dir=tmp_path, selfplay=SelfPlaySettings(game_types=types[:2], workers=0))
    assert worker_game_types(inline, 0) == types[:2]  # the trainer's own self-play: every type
    torch.manual_seed(1)
    CheckpointStore(tmp_path / "checkpoints").publish(1, build_model("tiny"))
    worker = WorkerLoop(cfg, 1, torch.device("cpu"))
    assert worker.refresh()
    assert [g.game_type for g in worker.player.games] == ["Base+L", "Base+ML"]
    while not worker.play():
        pass
    replay = ReplayStore(tmp_path / "replay")
    played = {int(x) for p in replay.shard_paths() for x in replay.load(p).board[:, EXPANSIONS]}
    assert played == {parse_game_type("Base+L"), parse_game_type("Base+ML")}  # both, in turn
