"""Configs: every preset composes and builds the real objects; bad settings stop the run at
start-up with a one-line message naming the full key."""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import fields, replace
from pathlib import Path

import pytest
import torch
import yaml
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from hive_env.outcome import DEFAULT_PLY_CAP
from hive_env.vec_env import HiveVecEnv
from models.gnn import SIZES, HiveGNN
from players.base import PlayerSpecError
from players.registry import check_spec
from search.mcts import BatchedMCTS
from search.network import make_evaluator, uniform_evaluate
from training.config import (
    GROUPS,
    ConfigError,
    EnvConfig,
    EvalConfig,
    RunConfig,
    defaults,
    register_configs,
    run_config,
)
from training.resume import resume_changes
from training.selfplay import SelfPlay
from training.trainer import Trainer

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
PRESETS = {"default": [], "smoke": ["experiment=smoke"], "cpu": ["experiment=cpu"],
           "cpu_long": ["experiment=cpu_long"], "zero": ["experiment=zero"],
           "zero_long": ["experiment=zero_long"],
           "gpu": ["experiment=gpu", "device=cpu", "compile=false"]}  # the GPU preset, built on a CPU


def settings(*overrides: str, experiment: str = "smoke") -> RunConfig:
    register_configs()
    with initialize_config_dir(config_dir=str(CONFIGS), version_base=None):
        cfg = compose(config_name="train", overrides=[*PRESETS[experiment], *overrides])
    return run_config(cfg)


# ----- presets ---------------------------------------------------------------------------------
@pytest.mark.parametrize("experiment", list(PRESETS))
def test_every_preset_builds_network_search_selfplay_and_trainer(experiment, tmp_path):
    rc = settings(f"run_dir={tmp_path}", experiment=experiment)
    model = HiveGNN(rc.model)
    assert (model.config.width, model.config.layers) != (0, 0)
    env = HiveVecEnv(2, rc.env.game_type, ply_cap=rc.env.ply_cap)
    mcts = BatchedMCTS(rc.search, 2, env.expansions, uniform_evaluate)
    assert mcts.config == rc.search
    evaluate = make_evaluator(model, "cpu", compile=rc.compile)
    selfplay = SelfPlay(rc.selfplay, rc.search, rc.env.game_type, rc.env.ply_cap, evaluate, seed=rc.seed)
    trainer = Trainer(model, rc.train, torch.device("cpu"), rc.max_legal, compile=rc.compile)
    assert trainer.step == 0 and selfplay.config.games == rc.selfplay.games
    if experiment == "smoke":
        assert selfplay.step() == []  # one batched move of every game: nothing finishes yet


def test_presets_keep_their_intended_sizes():
    smoke, cpu, gpu = (settings("run_dir=x", experiment=e) for e in ("smoke", "cpu", "gpu"))
    assert (smoke.model.width, smoke.model.layers) == (16, 1)  # tiny, overridden
    assert (cpu.model.width, cpu.model.layers) == (SIZES["tiny"]["width"], SIZES["tiny"]["layers"])
    assert gpu.model.width == SIZES["default"]["width"] and gpu.env.game_type == "Base+MLP"
    assert gpu.search.gumbel and gpu.eval.final_sims == 256 and cpu.eval.final_sims is None
    assert gpu.env.ply_cap == DEFAULT_PLY_CAP  # Base+MLP uses the one default
    long = settings("run_dir=x", experiment="cpu_long")
    assert 0 < cpu.train.max_minutes <= 60 and 0 < long.train.max_minutes <= 150  # the budgets


def test_the_recipes_from_zero_end_within_their_minutes_evaluations_included():
    for name, minutes in (("zero", 30), ("zero_long", 120)):
        rc = settings("run_dir=x", experiment=name)
        assert rc.train.budget_includes_eval and not rc.train.init_from  # from random weights
        assert minutes - 2 <= rc.train.max_minutes < minutes  # start-up and the final match fit in the rest
        assert rc.train.steps * rc.train.batch_size > 100 * rc.train.max_minutes * 60  # the clock ends it
        assert rc.selfplay.workers == 2 and rc.eval.workers == 2  # both cores, all the time
        assert rc.selfplay.avoid_repetition  # no repetition basin
        assert rc.eval.ladder and rc.eval.nokamute_time > 0 and 2 in rc.eval.ladder_depths  # the curve
        assert rc.eval.every > 0  # the curve in TensorBoard during the run
        kept = rc.train.keep_checkpoints * rc.train.checkpoint_every
        assert kept >= 20 * rc.train.max_minutes * 60  # every checkpoint kept up to 20 steps a second


def test_the_two_hour_recipe_changes_its_self_play_by_itself_and_the_short_one_does_not():
    rc = settings("run_dir=x", experiment="zero_long")
    cap, sims = rc.stages  # the ply cap first, then the simulations (docs/training.md)
    assert rc.staged(cap.at_step - 1) == replace(rc, stages=())  # before the first: the run's own
    assert rc.staged(cap.at_step).env.ply_cap > rc.env.ply_cap
    later = rc.staged(sims.at_step)
    assert later.search.sims > rc.search.sims and later.env.ply_cap == cap.ply_cap  # the cap stays
    assert later.train == rc.train and later.eval == rc.eval  # the trainer and evaluations keep theirs
    # Both stages come in the run's first half at the steps a second the recipe made on 2 cores
    # (about 12 before the second stage: docs/training.md): the last stage has half the run or more.
    assert sims.at_step <= 12 * 60 * rc.train.max_minutes / 2
    assert not settings("run_dir=x", experiment="zero").stages


def test_defaults_come_from_the_dataclasses():
    rc = settings("run_dir=x", experiment="default")
    assert rc.eval == EvalConfig()
    assert rc.selfplay.workers == 1 and rc.train.keep_checkpoints == 20
    assert EnvConfig().ply_cap == DEFAULT_PLY_CAP
    tree = defaults()
    for name, cls in GROUPS.items():
        assert set(tree[name]) == {f.name for f in fields(cls)}


def test_model_yaml_files_only_name_a_size():
    for path in (CONFIGS / "model").glob("*.yaml"):
        assert yaml.safe_load(path.read_text()) == {"size": path.stem}
    assert {p.stem for p in (CONFIGS / "model").glob("*.yaml")} <= set(SIZES)


def _composed(overrides: list[str]) -> dict:
    register_configs()
    with initialize_config_dir(config_dir=str(CONFIGS), version_base=None):
        cfg = compose(config_name="train", overrides=overrides)
    return OmegaConf.to_container(cfg, resolve=False)


def _flat(tree: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in tree.items():
        if isinstance(v, dict) and v:
            out.update(_flat(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def _restated(body: dict, before: dict) -> list[str]:
    """The keys of ``body`` whose value is what the config had without them."""
    return [k for k, v in _flat(body).items() if k in before and before[k] == v]


def test_no_yaml_file_restates_a_default():
    """Defaults live in the dataclasses; a yaml value equal to what it replaces does nothing
    but hide that a change of the dataclass's default would not reach hive-train."""
    tree = defaults()
    for group in GROUPS:
        for path in sorted((CONFIGS / group).glob("*.yaml")) if (CONFIGS / group).is_dir() else []:
            body = yaml.safe_load(path.read_text()) or {}
            if group == "model":
                body.pop("size")  # the option's identity (test_model_yaml_files_only_name_a_size)
            restated = _restated(body, _flat(tree[group]))
            assert not restated, f"{path.relative_to(CONFIGS)} restates defaults: {restated}"
    for path in sorted((CONFIGS / "experiment").glob("*.yaml")):
        body = yaml.safe_load(path.read_text())
        base = []  # what the preset's defaults list alone composes to
        for entry in body.pop("defaults", []):
            if isinstance(entry, str):
                base.append(f"experiment={entry}")  # a preset built on another
            else:
                ((key, option),) = entry.items()
                base.append(f"{key.removeprefix('override /')}={option}")
        restated = _restated(body, _flat(_composed(base)))
        assert not restated, f"experiment/{path.name} restates what it overrides: {restated}"
    assert _restated({"search": {"sims": 64}}, _flat(_composed([]))) == ["search.sims"]  # the check sees


# ----- start-up checks -------------------------------------------------------------------------
@pytest.mark.parametrize("override,message", [
    ("+bogus=1", "unknown setting bogus (known: "),
    ("env.bogus=1", "unknown setting env.bogus"),
    ("model.bogus=1", "unknown setting model.bogus"),
    ("search.simz=8", "unknown setting search.simz"),
    ("selfplay.bogus=1", "unknown setting selfplay.bogus"),
    ("train.bogus=1", "unknown setting train.bogus"),
    ("eval.gamez=3", "unknown setting eval.gamez: did you mean eval.games? (known: every, "),
])
def test_unknown_keys_are_named_at_every_level(override, message):
    with pytest.raises(ConfigError, match=re.escape(message)):
        settings("run_dir=x", override)


@pytest.mark.parametrize("override,message", [
    ("compile=1", "compile must be true or false, got 1"),
    ("compile=yes", "compile must be true or false, got 'yes'"),
    ("search.gumbel=1", "search.gumbel must be true or false"),
    ("eval.games=2.5", "eval.games must be a whole number, got 2.5"),
    ("eval.games='4'", "eval.games must be a whole number, got '4'"),
    ("train.steps=true", "train.steps must be a whole number, got True"),
    ("eval.opponents=random", "eval.opponents must be a list of text"),
    ("eval.opponents=[random,3]", "eval.opponents must be a list of text"),
    ("seed=1.5", "seed must be a whole number"),
])
def test_types_are_checked_from_the_field_annotations(override, message):
    with pytest.raises(ConfigError, match=message.replace(".", r"\.")):
        settings("run_dir=x", override)


def test_selfplay_game_types_are_a_list_of_types():
    rc = settings("run_dir=x", "env=base_mlp", "selfplay.game_types=[Base+M,Base+LP]")
    assert rc.selfplay.game_types == ("Base+M", "Base+LP") and rc.env.game_type == "Base+MLP"
    assert settings("run_dir=x").selfplay.game_types == ()


def test_a_float_setting_accepts_a_whole_number():
    rc = settings("run_dir=x", "train.lr=1", "eval.gate_score=1")
    assert rc.train.lr == 1.0 and isinstance(rc.train.lr, float) and isinstance(rc.eval.gate_score, float)


@pytest.mark.parametrize("override,message", [
    ("eval.games=3", "eval.games must be even"),
    ("eval.final_games=5", "eval.final_games must be even"),
    ("eval.gating=elo", "eval.gating must be one of none, score, sprt, got 'elo'"),
    ("eval.sprt_elo1=0", r"eval.sprt_elo1 must be greater than eval.sprt_elo0 \(0\), got 0"),
    ("eval.sprt_elo0=30", r"eval.sprt_elo1 must be greater than eval.sprt_elo0 \(30\), got 20"),
    ("eval.sprt_elo1=nan", r"eval.sprt_elo1 must be greater than eval.sprt_elo0 \(0\), got nan"),
    ("eval.sims=0", "eval.sims must be >= 1"),
    ("eval.opponents=[random,'alphabeta:depht=2']",
     r"eval.opponents\[1\]: player 'alphabeta' has no option 'depht'"),
    ("eval.final_opponents=[nobody]", r"eval.final_opponents\[0\]: unknown player kind 'nobody'"),
    ("eval.opponents=[random,uhp]", r"eval.opponents\[1\]: player 'uhp' needs cmd="),
    ("eval.opponents=[random,random]", r"eval.opponents\[1\]: 'random' is listed twice"),
    ("search.max_nodes=5", r"search.max_nodes must be 0 \(automatic\) or >= 9"),
    ("search.sims=0", "search.sims must be >= 1"),
    ("search.contempt=0.1", "search.contempt must be 0 in training"),
    ("search.contempt=2", r"search.contempt must be in \[0, 1\]"),
    ("device=tpu", "device must be auto, cpu, cuda or cuda:N"),
    ("env.game_type=Chess", "env.game_type"),
    ("env.ply_cap=-1", "env.ply_cap"),
    ("selfplay.workers=-2", "selfplay.workers must be >= 0"),
    ("selfplay.game_types=[Base+M,Chess]", "selfplay.game_types: "),
    ("selfplay.full_search_prob=0", r"selfplay.full_search_prob must be in \(0, 1\]"),
    ("selfplay.full_search_prob=0.5 selfplay.fast_sims=99", r"fast_sims \(99\) must be at most search"),
    ("train.value_target_q=2", r"train.value_target_q must be in \[0, 1\]"),
    ("train.max_minutes=-1", "train.max_minutes must be >= 0"),
    ("train.lr=-1", "train.lr must be > 0"),
    ("train.keep_checkpoints=0", "train.keep_checkpoints must be >= 1"),
    ("model.size=huge", "model.size must be one of tiny, small, default, large"),
    ("model.width=0", "model.width must be >= 1"),
    ("train.pressure_weight=-1", "train.pressure_weight must be >= 0"),
    ("train.pressure_weight=0.5", "train.pressure_weight train the auxiliary head: set model.aux_head=true"),
    ("train.moves_left_weight=1", "set model.aux_head=true"),
])
def test_cross_field_and_range_checks_name_the_setting(override, message):
    with pytest.raises(ConfigError, match=message):
        settings("run_dir=x", *override.split())


def test_the_sprt_bounds_default_to_0_and_20_and_take_whole_numbers():
    rc = settings("run_dir=x")
    assert (rc.eval.sprt_elo0, rc.eval.sprt_elo1) == (0.0, 20.0)
    rc = settings("run_dir=x", "eval.sprt_elo0=-5", "eval.sprt_elo1=35.5")
    assert (rc.eval.sprt_elo0, rc.eval.sprt_elo1) == (-5.0, 35.5) and isinstance(rc.eval.sprt_elo0, float)


def test_an_alphazero_opponent_is_checked_without_loading_its_checkpoint():
    rc = settings("run_dir=x", "eval.opponents=[random,'alphazero:ckpt=/nowhere.pt,sims=4']")
    assert rc.eval.opponents == ("random", "alphazero:ckpt=/nowhere.pt,sims=4")
    check_spec("alphabeta:depth=2")
    with pytest.raises(PlayerSpecError, match="sims"):
        check_spec("alphazero:ckpt=x.pt,sims=0")


def test_a_size_takes_width_and_layers_overrides():
    rc = settings("run_dir=x", "model.size=small", "model.width=24", experiment="default")
    assert (rc.model.width, rc.model.layers) == (24, SIZES["small"]["layers"])
    rc = settings("run_dir=x", "model=large", experiment="default")
    assert (rc.model.width, rc.model.layers) == (SIZES["large"]["width"], SIZES["large"]["layers"])


def test_the_aux_head_is_part_of_the_network():
    rc = settings("run_dir=x", "model.aux_head=true", "train.pressure_weight=0.5")
    assert rc.model.aux_head and rc.train.pressure_weight == 0.5 and rc.train.aux
    assert not settings("run_dir=x").model.aux_head
    saved, new = {"model": {"size": "tiny"}}, {"model": {"size": "tiny", "aux_head": True}}
    refused, _ = resume_changes(saved, new)
    assert refused == ["model.aux_head: False -> True"]  # a resumed run keeps its network's shape


def test_messages_are_one_line():
    with pytest.raises(ConfigError) as e:
        settings("run_dir=x", "eval.opponents=[random,'alphabeta:depth=0']")
    assert "\n" not in str(e.value) and str(e.value).startswith("eval.opponents[1]: ")


EVAL_KEYS = ", ".join(sorted(f.name for f in fields(EvalConfig)))
TOP_KEYS = ("backend, compile, device, env, eval, experiment, inference, model, name, ray, run_dir, search, "
            "seed, selfplay, stages, train")


# one in the default suite (each starts hive-train); tests/training/test_overrides.py checks more in-process
@pytest.mark.parametrize("override,line", [
    ("experiment=smok", "experiment=smok: experiment has no option 'smok'; did you mean smoke? "
                        "(choices: ablation, cpu, cpu_long, gpu, smoke, zero, zero_long)"),
    pytest.param("trian.lr=0.1", f"unknown setting trian.lr: did you mean train.lr? (known: {TOP_KEYS})",
                 marks=pytest.mark.slow),
    pytest.param("eval.gamez=3", f"unknown setting eval.gamez: did you mean eval.games? (known: {EVAL_KEYS})",
                 marks=pytest.mark.slow),
])
def test_hive_train_prints_one_error_line_exits_2_and_creates_nothing(tmp_path, override, line):
    run_dir = tmp_path / "bad"
    cmd = [sys.executable, "-m", "scripts.train", "experiment=smoke", f"run_dir={run_dir}", override]
    proc = subprocess.run(cmd, cwd=CONFIGS.parent, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [f"hive-train: error: {line}"] and proc.stdout == ""
    assert not run_dir.exists()  # no hydra/, no empty train.log


def test_the_selfplay_defaults_file_names_every_selfplay_setting():
    from training.config import SelfPlaySettings

    comment = (CONFIGS / "selfplay" / "default.yaml").read_text()
    missing = [f.name for f in fields(SelfPlaySettings) if f.name not in comment]
    assert not missing, f"configs/selfplay/default.yaml does not name {missing}"
