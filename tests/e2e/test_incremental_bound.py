"""scripts.incremental_bound: a row for every game type of the real games and one for all; a missing
file is one line and status 2."""

from __future__ import annotations

import subprocess
import sys

from hive_env.pieces import GAME_TYPES

from helpers import ROOT


def test_the_command_has_a_row_for_every_game_type_and_refuses_a_missing_file(tmp_path):
    run = subprocess.run([sys.executable, "-m", "scripts.incremental_bound"], cwd=ROOT, capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    rows = {line.split("|")[1].strip(): line for line in run.stdout.splitlines() if line.startswith("| ")}
    for name in [*GAME_TYPES, "all"]:
        assert name in rows, name
        assert rows[name].count("%") == 8
    missing = tmp_path / "nothing.txt"
    bad = subprocess.run([sys.executable, "-m", "scripts.incremental_bound", str(missing)], cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    assert bad.returncode == 2 and "no such file" in bad.stderr and "Traceback" not in bad.stderr
