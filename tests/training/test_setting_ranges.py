"""Every range a run's setting declares (``hive_zero.checks``) is checked and named by its full key
(the group said by the config layer, ``training.config``), and the defaults that the import
contracts keep apart stay equal."""

from __future__ import annotations

from dataclasses import fields

import pytest
from omegaconf import OmegaConf

from arena.sprt import Sprt
from hive_zero.checks import RANGE
from hive_zero.options import default_of
from training.config import GROUPS, ConfigError, TrainSettings, defaults, run_config
from training.trainer import TrainConfig


def out_of_range(bound, kind):
    """A value just outside ``bound``, of the field's type."""
    value = bound.ge - 1 if bound.ge is not None else bound.gt
    return kind(value)


RANGED = [(group, f.name, f.metadata[RANGE], f.type) for group, cls in GROUPS.items()
          for f in fields(cls) if RANGE in f.metadata]


@pytest.mark.parametrize("group,name,bound,annotation", RANGED, ids=[f"{g}.{n}" for g, n, _, _ in RANGED])
def test_each_declared_range_is_named_with_its_group(group, name, bound, annotation):
    kind = float if "float" in annotation else int  # ray's resources: dict[str, float]
    bad = out_of_range(bound, kind)
    tree = {**defaults(), "run_dir": "x"}
    tree[group][name] = {"a": bad} if bound.each else bad
    with pytest.raises(ConfigError) as e:
        run_config(OmegaConf.create(tree))
    key = f"{group}.{bound.label or name}" + (".a" if bound.each else "")
    assert str(e.value) == f"{key} {bound.complaint(bad)}"


def test_at_least_one_range_per_group_that_has_numbers():
    assert {g for g, *_ in RANGED} == set(GROUPS)


def test_the_gating_sprt_defaults_are_the_arenas():
    """training may not import arena.sprt outside gating (pyproject.toml), so EvalConfig states
    the SPRT's bounds itself: tied here."""
    evals = defaults()["eval"]
    assert (evals["sprt_elo0"], evals["sprt_elo1"]) == (default_of(Sprt, "elo0"), default_of(Sprt, "elo1"))


def test_min_positions_has_one_default():
    assert "min_positions" not in TrainSettings.__dict__.get("__annotations__", {})
    assert TrainSettings().min_positions == TrainConfig().min_positions
