"""``python -m scripts.card``: a shipped network's card redrawn with new results (equal-time
matches, a levels' calibration) from the results directories alone, the network untouched; a
wrong input is one line and exit 2."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

from arena.arena import run_arena
from arena.config import ArenaConfig
from models import shipped
from training.model_card import markdown

from helpers import ROOT


def card_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scripts.card", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)


def test_a_card_redrawn_with_matches_and_levels(tmp_path):
    net = shipped.NETWORKS["Base"]
    out = tmp_path / "shipped"
    out.mkdir()
    shutil.copy(net.card, out / net.card.name)
    before = json.loads(net.card.read_text())
    timed = tmp_path / "timed"
    run_arena(ArenaConfig("gauntlet", ("greedy", "random", "alphabeta:depth=1,name=ab1"), 2, seed=3,
                          time_s=0.05), timed, progress=False)
    levels = tmp_path / "levels"
    done = subprocess.run([sys.executable, "-m", "scripts.calibrate_levels", "--levels", "1", "--games", "2",
                           "--depths", "1", "--no-nokamute", "--out", str(levels), "--no-progress"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    got = card_cli("--game-type", "Base", "--matches", str(timed), "--levels", str(levels / "levels.json"),
                   "--out", str(out))
    assert got.returncode == 0, got.stderr
    assert "equal_time, levels redrawn" in got.stdout
    card = json.loads((out / net.card.name).read_text())
    assert {k: v for k, v in card.items() if k not in ("equal_time", "levels")} == \
        {k: v for k, v in before.items() if k not in ("equal_time", "levels")}  # the rest as it was
    matches = card["equal_time"]
    assert [r["opponent"] for r in matches["rows"]] == ["random, 0.05 s a move", "ab1, 0.05 s a move"]
    assert '"random" "alphabeta:depth=1,name=ab1" --time 0.05 --games-per-pairing 2' in matches["command"]
    assert [r["level"] for r in card["levels"]["rows"]] == [1]
    text = (out / net.model_card.name).read_text()
    assert text == markdown(card) + "\n" and "## Levels" in text and "| ab1, 0.05 s a move | 2 |" in text
    assert net.card.read_text() == json.dumps(before, indent=1) + "\n"  # the shipped card untouched

    untimed = tmp_path / "untimed"
    run_arena(ArenaConfig("gauntlet", ("greedy", "random"), 2, seed=3), untimed, progress=False)
    for args, message in [
            ((), "nothing to redraw"),
            (("--matches", str(untimed)), "not an equal-time gauntlet"),
            (("--matches", str(tmp_path / "nowhere")), "No such file or directory"),
            (("--matches", str(timed), "--equal-time", str(timed)), "give one"),
            (("--levels", str(timed / "summary.json")), "a results file without"),
    ]:
        bad = card_cli("--game-type", "Base", *args, "--out", str(out))
        assert bad.returncode == 2 and message in bad.stderr and "Traceback" not in bad.stderr, bad.stderr
    other = card_cli("--game-type", "Base+M", "--matches", str(timed), "--out", str(out))
    assert other.returncode == 2 and "no Base+M network is shipped" in other.stderr
    shutil.copy(shipped.NETWORKS["Base+M"].card, out)
    other = card_cli("--game-type", "Base+M", "--matches", str(timed), "--out", str(out))
    assert other.returncode == 2 and "a Base match, not Base+M" in other.stderr


def test_matches_added_to_a_card_keep_its_rows_and_replace_a_repeated_one(tmp_path):
    net = shipped.NETWORKS["Base"]
    out = tmp_path / "shipped"
    out.mkdir()
    shutil.copy(net.card, out / net.card.name)
    before = json.loads(net.card.read_text())["equal_time"]
    slow = "alphabeta:depth=1,time=0.1,name=slow"  # the opponent at its own time: time odds
    odds = tmp_path / "odds"
    run_arena(ArenaConfig("gauntlet", ("greedy", slow), 2, seed=4, time_s=0.05), odds, progress=False)
    got = card_cli("--game-type", "Base", "--add-matches", str(odds), "--out", str(out))
    assert got.returncode == 0, got.stderr
    added = json.loads((out / net.card.name).read_text())["equal_time"]
    assert added["rows"][:-1] == before["rows"]  # the old rows, whose directories this test lacks
    assert added["rows"][-1]["opponent"] == "slow at 0.1 s, the network at 0.05 s"
    assert added["rows"][-1]["games"] == 2
    assert added["command"].startswith(before["command"] + "; hive-arena gauntlet")
    assert '"alphabeta:depth=1,time=0.1,name=slow" --time 0.05 --games-per-pairing 2' in added["command"]
    again = tmp_path / "again"  # the same pairing again, 4 games: its row replaced
    run_arena(ArenaConfig("gauntlet", ("greedy", slow), 4, seed=4, time_s=0.05), again, progress=False)
    assert card_cli("--game-type", "Base", "--add-matches", str(again), "--out", str(out)).returncode == 0
    twice = json.loads((out / net.card.name).read_text())["equal_time"]
    assert twice["rows"][:-1] == before["rows"] and twice["rows"][-1]["games"] == 4
    assert (out / net.model_card.name).read_text().count("| slow at 0.1 s, the network at 0.05 s |") == 1
    both = card_cli("--game-type", "Base", "--add-matches", str(odds), "--matches", str(odds),
                    "--out", str(out))
    assert both.returncode == 2 and "give one" in both.stderr
