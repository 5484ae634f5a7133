"""hive-train's command line before Hydra runs it (training.overrides, training.loop.check_command_line):
one-line start-up errors naming the key or group, its choices and the closest valid names; nothing
created until the config holds; ``--help`` with every setting's documentation."""

from __future__ import annotations

import subprocess
import sys

import pytest

from training.config import (
    GROUPS,
    TOP_LEVEL,
    ConfigError,
    EvalConfig,
    RunConfig,
    SelfPlaySettings,
    TrainSettings,
)
from training.loop import check_command_line
from training.overrides import check_overrides, config_groups, field_docs, first_sentence, setting_keys

from helpers import ROOT


@pytest.mark.parametrize("override,message", [
    ("experiment=smok", "experiment=smok: experiment has no option 'smok'; did you mean smoke? "
                        "(choices: ablation, cpu, cpu_long, gpu, smoke, zero, zero_long)"),
    ("model=hugh", "model=hugh: model has no option 'hugh' (choices: default, large, small, tiny)"),
    ("+experiment=smok", "experiment=smok: experiment has no option 'smok'"),
    ("trian.lr=0.1", "unknown setting trian.lr: did you mean train.lr? (known: backend, compile, "),
    ("train.lrr=0.1", "unknown setting train.lrr: did you mean train.lr? (known: augment, batch_size, "),
    ("seleplay.games=2", "unknown setting seleplay.games: did you mean selfplay.games or "
                         "selfplay.game_types?"),
    ("experment=smoke", "unknown setting experment: did you mean experiment? (known: "),
    ("+bogus=1", "unknown setting bogus (known: backend, "),
    ("seed.x=1", "unknown setting seed.x: did you mean seed? (known: "),
    ("eval.games.x=2", "unknown setting eval.games.x: did you mean eval.games? (known: every, "),
    ("model/x=1", "model/x: no such config group (groups: env, eval, experiment, model, search, selfplay, "
                  "train)"),
    ("train.lr=[", "no viable alternative at input '['"),
])
def test_a_bad_override_is_one_line_naming_it_and_its_choices(override, message, tmp_path):
    with pytest.raises(ConfigError) as e:
        check_command_line(["experiment=smoke", f"run_dir={tmp_path / 'run'}", override])
    assert str(e.value).startswith(message) and "\n" not in str(e.value)
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("overrides", [
    ["experiment=smoke", "model=large", "env=base_mlp", "search=gumbel", "experiment=null"],
    ["ray.worker_resources.selfplay_node=1", "hydra.run.dir=x", "hydra/job_logging=disabled", "~seed"],
    ["eval.opponents=[random,'alphabeta:depth=2']", "+train.steps=3", "run_dir=x"],
])
def test_valid_overrides_pass(overrides):
    check_overrides(overrides)


def test_a_bad_value_or_flag_is_one_line_before_anything_is_created(tmp_path):
    run_dir = tmp_path / "run"
    with pytest.raises(ConfigError, match=r"^train\.lr must be > 0, got -1\.0$"):
        check_command_line(["experiment=smoke", f"run_dir={run_dir}", "train.lr=-1"])
    with pytest.raises(ConfigError, match="^unrecognized arguments: --bogus$"):
        check_command_line(["--bogus", "experiment=smoke"])
    assert not run_dir.exists()
    assert check_command_line(["experiment=smoke", f"run_dir={run_dir}"]) is None  # a run may start
    assert check_command_line(["--cfg", "job", "experiment=smoke"]) is None  # Hydra's flags pass
    assert check_command_line(["-m", "seed=1,2"]) is None  # a sweep: Hydra composes each job
    assert not run_dir.exists()


def test_help_lists_every_setting_with_its_value_and_documentation():
    text = check_command_line(["--help", "experiment=smoke"])
    lines = text.splitlines()
    assert lines[0] == "usage: hive-train [-m] [GROUP=OPTION ...] [KEY=VALUE ...]"
    line = next(line for line in lines if line.lstrip().startswith("train.lr "))
    assert line.split()[:2] == ["train.lr", "0.001"] and line.endswith("peak learning rate (AdamW).")
    steps = next(line for line in lines if line.lstrip().startswith("train.steps "))
    assert steps.split()[1] == "20"  # the smoke preset's value, as this command line sets it
    assert any(line.split()[:2] == ["experiment", "ablation,"] and "smoke*" in line for line in lines)
    for key in setting_keys():  # every setting, documented
        (row,) = [line for line in lines if line.startswith(f"  {key} ")]
        assert len(row.split()) > 2, row
    assert "selfplay.min_positions" not in text


def test_field_docs_are_read_from_the_dataclass_docstrings():
    train = field_docs(TrainSettings)
    assert train["lr"] == "peak learning rate (AdamW)."  # from the base, training.trainer.TrainConfig
    assert train["keep_checkpoints"].startswith("step checkpoints kept on disk")
    assert first_sentence(train["min_positions"]) == "positions in replay before training starts."
    assert field_docs(SelfPlaySettings)["games"].startswith("games played at once per worker")
    evals = field_docs(EvalConfig)
    assert evals["sprt_elo0"] == evals["sprt_elo1"] and "``" not in evals["gating"]
    assert set(TOP_LEVEL) <= set(field_docs(RunConfig))
    for group, cls in GROUPS.items():
        docs = field_docs(cls)
        assert [k for k in setting_keys() if k.startswith(f"{group}.") and k.split(".")[1] not in docs] == []
    assert first_sentence("Base, e.g. Base+MLP (play). See x.") == "Base, e.g. Base+MLP (play)."


def test_config_groups_are_the_folders_of_configs():
    groups = config_groups()
    assert groups["experiment"] == ["ablation", "cpu", "cpu_long", "gpu", "smoke", "zero", "zero_long"]
    assert "tiny" in groups["model"]


@pytest.mark.slow
def test_hive_train_help_prints_the_settings_and_creates_nothing(tmp_path):
    cmd = [sys.executable, "-m", "scripts.train", "--help", f"run_dir={tmp_path / 'run'}"]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert proc.stdout.startswith("usage: hive-train ")
    assert any(line.split()[:2] == ["train.lr", "0.001"] and line.endswith("peak learning rate (AdamW).")
               for line in proc.stdout.splitlines())
    assert not (tmp_path / "run").exists()
