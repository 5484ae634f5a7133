"""``python -m scripts.calibrate_levels``, the levels' calibration, at a smoke size: the
schedule of two levels with three anchors, one rating fit, the table as JSON and Markdown."""

from __future__ import annotations

import json
import subprocess
import sys

from helpers import ROOT


def test_a_smoke_calibration_writes_the_levels_table(tmp_path):
    out = tmp_path / "levels"
    args = ["--levels", "2", "1", "--games", "2", "--depths", "1", "--no-nokamute", "--out", str(out),
            "--no-progress"]
    done = subprocess.run([sys.executable, "-m", "scripts.calibrate_levels", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    result = json.loads((out / "levels.json").read_text())
    assert result["complete"] and result["anchor"] == "random"  # no depth 2
    assert result["command"] == "python -m scripts.calibrate_levels " + " ".join(args)
    pairs = {frozenset(p) for p in result["schedule"]}
    assert frozenset({"level-1", "level-2"}) in pairs and frozenset({"random", "level-1"}) in pairs
    assert result["games"] == 2 * len(pairs) and result["games_per_pairing"] == {"untimed": 2}
    assert (out / "untimed" / "games.jsonl").exists() and not (out / "timed").exists()  # nothing timed
    rows = {r["player"]: r for r in result["players"]}
    assert set(rows) == {"level-1", "level-2", "random", "greedy", "alphabeta:depth=1"}
    assert rows["random"]["elo"] == 0
    assert all(r["games"] == 2 * sum(r["player"] in p for p in pairs) for r in rows.values())
    gap = rows["level-2"]["over_below"]
    assert gap["level"] == 1 and gap["lo"] <= gap["elo"] <= gap["hi"]
    table = (out / "levels.md").read_text()
    assert "| 1 | 1 simulation a move, a move drawn among the policy's 12 best" in table
    assert table in done.stdout
    bad = subprocess.run([sys.executable, "-m", "scripts.calibrate_levels", "--levels", "0"], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "--levels: distinct whole numbers from 1 to 10" in bad.stderr
