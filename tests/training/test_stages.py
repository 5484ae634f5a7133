"""The run's schedule (``stages``, training.config.Stage): its settings, its checks, and a run
and its self-play going through a stage by themselves."""

from __future__ import annotations

import pytest
import torch

from models.gnn import build_model
from search.checkpoint import read_checkpoint
from training.config import ConfigError, run_config
from training.loop import compose_config, train
from training.replay import ReplayStore
from training.worker import SelfPlayer

from helpers import TINY_RUN

STAGES = "stages=[{at_step:10,sims:4,ply_cap:30},{at_step:20,window:300}]"


def config(tmp_path, *overrides: str):
    return run_config(compose_config(["experiment=smoke", f"run_dir={tmp_path}", *overrides]))


def test_each_stage_reached_applies_its_settings_in_order_and_keeps_the_others(tmp_path):
    cfg = config(tmp_path, STAGES)
    base = (cfg.search.sims, cfg.env.ply_cap, cfg.train.window)
    assert base != (4, 30, 300)
    settings = {step: (cfg.stage_at(step), cfg.staged(step).search.sims, cfg.staged(step).env.ply_cap,
                       cfg.staged(step).train.window) for step in (0, 9, 10, 19, 20, 10**6)}
    assert settings == {0: (0, *base), 9: (0, *base), 10: (1, 4, 30, base[2]), 19: (1, 4, 30, base[2]),
                        20: (2, 4, 30, 300), 10**6: (2, 4, 30, 300)}
    staged = cfg.staged(20)
    assert staged.stages == () and staged.selfplay == cfg.selfplay and staged.model == cfg.model
    assert cfg.stage_changes(10) == f"search.sims {base[0]} -> 4, env.ply_cap {base[1]} -> 30"
    assert cfg.stage_changes(20) == f"train.window {base[2]} -> 300"
    assert config(tmp_path).stages == () and config(tmp_path).staged(10**6) == config(tmp_path)


@pytest.mark.parametrize("stages, message", [
    ("[{at_step:10,sim:4}]", "unknown setting stages[0].sim: did you mean stages[0].sims"),
    ("[{at_step:10},{at_step:10}]", "stages[1].at_step must be after stages[0].at_step (10), got 10"),
    ("[{at_step:0}]", "stages[0].at_step must be >= 1, got 0"),
    ("[{at_step:5,ply_cap:-1}]", "stages[0].ply_cap must be in 0..32767 (or null = as before), got -1"),
    ("[{at_step:5,window:2.5}]", "stages[0].window must be a whole number, got 2.5"),
    ("3", "stages must be a list of stages"),
    ("[{at_step:5,sims:2}]",
     "stages[0] (from step 5): selfplay.fast_sims (4) must be at most search.sims (2)"),
])
def test_a_bad_stage_is_named_in_one_line(tmp_path, stages, message):
    with pytest.raises(ConfigError) as raised:
        config(tmp_path, "selfplay.full_search_prob=0.5", "selfplay.fast_sims=4", f"stages={stages}")
    assert message in str(raised.value) and "\n" not in str(raised.value)


def test_self_play_takes_a_stages_settings_with_the_first_network_that_reached_it(tmp_path):
    cfg = config(tmp_path, "stages=[{at_step:5,sims:3,ply_cap:20}]")
    model = build_model("tiny")
    player = SelfPlayer(cfg, torch.device("cpu"))
    player.start(model, 0, seed=7)
    [first] = player.games
    assert (first.mcts.config.sims, first.env.ply_cap) == (cfg.search.sims, cfg.env.ply_cap)
    for _ in range(3):
        player.step()
    weights = model.state_dict()
    player.load_weights(weights, 4)
    assert player.games == [first] and player.stage == 0  # a new network, the same stage: games go on
    player.load_weights(weights, 5)
    [now] = player.games
    assert now is not first and player.stage == 1 and (now.mcts.config.sims, now.env.ply_cap) == (3, 20)
    player.load_weights(weights, 9)
    assert player.games == [now]
    late = SelfPlayer(cfg, torch.device("cpu"))  # a worker started (or restarted) in the stage
    late.start(model, 8, seed=7)
    assert late.stage == 1 and (late.games[0].mcts.config.sims, late.games[0].env.ply_cap) == (3, 20)


@pytest.mark.filterwarnings("ignore:.*the ply cap of the games its network learnt from")
def test_a_run_goes_through_its_stage_by_itself_and_a_rerun_resumes_in_it(tmp_path):
    run_dir = tmp_path / "run"
    stage = "stages=[{at_step:2,sims:3,ply_cap:12}]"
    lines: list[str] = []
    # few samples a position: self-play between the steps, games of the stage's networks too
    quick = [*TINY_RUN, f"run_dir={run_dir}", "train.samples_per_position=0.2", stage]
    train(compose_config([*quick, "train.steps=6"]), log=lines.append)
    assert "stage 1 of 1 from step 2: search.sims 8 -> 3, env.ply_cap 60 -> 12 (self-play from the next " \
           "checkpoint)" in lines
    replay = ReplayStore(run_dir / "replay")
    stats = [replay.stats(p) for p in replay.shard_paths()]
    plies = {int(s["network_step"]): s["game_plies"] for s in stats}
    assert any(step >= 2 for step in plies), plies  # games of the stage were played
    assert all(games.max() <= 12 for step, games in plies.items() if step >= 2), plies
    assert read_checkpoint(run_dir / "checkpoints" / "final.pt")["lineage"]["ply_cap"] == 12
    again: list[str] = []
    train(compose_config([*quick, "train.steps=8"]), log=again.append)
    assert "in stage 1 of 1 (from step 2): search.sims 3, env.ply_cap 12, train.window 5000" in again
