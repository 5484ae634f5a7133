"""One version everywhere, the commands started through hive_zero.commands, no clash in
the checkout, and a network's lineage and card saying what trained it."""

from __future__ import annotations

import tomllib
from pathlib import Path

import hive_zero
from hive_zero import commands, layout

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_the_version_is_the_distributions_everywhere():
    version = PYPROJECT["project"]["version"]
    assert hive_zero.__version__ == version
    from players.uhp_server import ENGINE_ID

    assert f"id hive-zero v{version}" == ENGINE_ID
    assert hive_zero.version_line("hive-perft") == f"hive-perft (hive-zero {version})"


def test_every_console_command_starts_in_hive_zero_commands():
    scripts = PYPROJECT["project"]["scripts"]
    assert set(scripts) == set(commands.COMMANDS)
    for name, target in scripts.items():
        module, function = target.split(":")
        assert module == "hive_zero.commands" and function == name.replace("-", "_")
        assert callable(getattr(commands, function))


def test_the_checkout_has_no_clash_and_configs_are_found_through_the_package():
    assert layout.problems() == []
    assert (hive_zero.CONFIGS / "train.yaml").is_file()
    from training.overrides import CONFIGS

    assert CONFIGS == hive_zero.CONFIGS


def test_a_lineage_records_the_version_and_device_and_the_card_says_them():
    from hive_zero.machine import machine
    from training.lineage import lineage

    entry = lineage(None, "Base", 10, 100, 1.0, 0.0, device="cuda (NVIDIA H100)")
    assert entry["version"] == hive_zero.__version__ and entry["device"] == "cuda (NVIDIA H100)"
    assert machine("cpu").endswith(", no GPU used")
    assert machine("cuda (NVIDIA H100)").endswith(", trained on cuda (NVIDIA H100)")
    assert machine(None).endswith(", device not recorded")
