"""The ladder (arena/ladder.py, ``hive-arena ladder``): a player against fixed rungs, its Elo
relative to alphabeta:depth=2, reproducible and resumable."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys

import pytest

import arena.arena as arena_module
from arena.arena import build_report, default_out_dir, resolve_openings, schedule
from arena.ladder import ANCHOR, ladder_anchor, ladder_config, ladder_opponents, ladder_result
from hive_env.outcome import DEFAULT_PLY_CAP
from players import Budget
from scripts.arena import _config, _parser, main

from helpers import ROOT

AZ = "alphazero:ckpt=runs/x/checkpoints/best.pt,sims=64"
RUNGS = ("random", "greedy", "alphabeta:depth=1", "alphabeta:depth=2", "alphabeta:depth=3",
         "alphabeta:depth=4")
LINE = re.compile(r"^ladder: (\S+)  Elo vs (\S+): ([+-]\d+) \[([+-]\d+), ([+-]\d+)\] "
                  r"\((\d+) games, (\d+) vs \2\)$")


def test_the_ladders_opponents_settings_and_anchor():
    config = ladder_config(AZ)
    assert config.mode == "gauntlet" and config.players == (AZ, *RUNGS)
    assert (config.games_per_pairing, config.seed, config.openings, config.ply_cap) == (
        100, 0, "random:4", DEFAULT_PLY_CAP)
    assert config.budget() is None and config.game_type == "Base"
    assert ladder_anchor(config.players) == ANCHOR == "alphabeta:depth=2"
    config.check()
    # extra opponents come last, once; a rung equal to the player is left out
    extra = ladder_opponents(extra=("uhp:cmd=engine", "greedy", "uhp:cmd=engine"))
    assert extra == (*RUNGS, "uhp:cmd=engine")
    assert ladder_config("alphabeta:depth=3").players == ("alphabeta:depth=3", *RUNGS[:4], RUNGS[5])
    assert ladder_config(AZ, depths=(1, 3)).players == (AZ, *RUNGS[:3], RUNGS[4])
    assert ladder_anchor(ladder_config(AZ, depths=(1, 3)).players) == "random"
    # the results directory follows from the settings: the same command resumes
    assert default_out_dir(ladder_config(AZ)) == default_out_dir(ladder_config(AZ))
    assert default_out_dir(ladder_config(AZ, seed=1)) != default_out_dir(ladder_config(AZ))
    args = _parser().parse_args(["ladder", AZ, "--extra", "uhp:cmd=engine"])
    assert _config(args) == ladder_config(AZ, extra=("uhp:cmd=engine",))


def test_equal_time_sets_the_time_budget_of_every_player():
    args = _parser().parse_args(["ladder", AZ, "--equal-time", "0.5"])
    config = _config(args)
    assert config.time_s == 0.5 and config.budget() == Budget(time_s=0.5)
    # the time budget overrides the depth: one alphabeta rung (the anchor) unless asked otherwise
    assert config.players == (AZ, "random", "greedy", ANCHOR)
    args = _parser().parse_args(["ladder", AZ, "--equal-time", "1", "--depths", "1", "2"])
    assert _config(args).players == (AZ, "random", "greedy", "alphabeta:depth=1", "alphabeta:depth=2")
    config = ladder_config(AZ, depths=(1, 2), games_per_pairing=4, equal_time=0.5)
    tasks = schedule(config, resolve_openings(config))
    assert {t.white for t in tasks} | {t.black for t in tasks} == set(config.players)
    assert all(t.budget == Budget(time_s=0.5) for t in tasks)


def test_a_tiny_ladder_writes_its_results_and_one_line_and_resumes(tmp_path, capsys, monkeypatch):
    out = tmp_path / "ladder"
    argv = ["ladder", "random", "--depths", "2", "--games-per-pairing", "2", "--ply-cap", "20",
            "--out", str(out), "--no-progress"]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    summary = lines[-1]
    m = LINE.match(summary)
    assert m and m.group(1, 2, 6, 7) == ("random", ANCHOR, "4", "2"), summary
    assert sum(line.startswith("ladder: ") for line in lines) == 1
    assert any(line.endswith("anchor alphabeta:depth=2 = 0") for line in lines)
    for name in ("config.json", "games.jsonl", "pairings.csv", "ratings.csv", "summary.json", "ladder.json"):
        assert (out / name).is_file(), name
    data = json.loads((out / "ladder.json").read_text())
    assert data["summary"] == summary and data["player"] == "random" and data["anchor"] == ANCHOR
    assert data["games"] == 4 and data["anchor_games"] == 2 and data["complete"]
    assert data["lo"] <= data["elo"] <= data["hi"] and f"{data['elo']:+.0f}" == m.group(3)
    assert set(data["scores"]) == {"greedy", ANCHOR}
    assert all(s["games"] == 2 and s["wins"] + s["draws"] + s["losses"] == 2 for s in data["scores"].values())
    # the ladder's numbers do not depend on the fit's anchor
    config = ladder_config("random", depths=(2,), games_per_pairing=2, ply_cap=20)
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    by_random = ladder_result(build_report(config, out, 0, records, 4))
    assert by_random.line() == summary

    def no_games(task):
        raise AssertionError(f"game {task.id} replayed")

    monkeypatch.setattr(arena_module, "play_game", no_games)
    assert main(argv) == 0  # the rerun resumes: every game is recorded
    assert capsys.readouterr().out.splitlines()[-1] == summary
    assert len((out / "games.jsonl").read_text().splitlines()) == 4


def test_ladder_result_interval_rests_on_the_games_against_the_anchor(tmp_path):
    """A gauntlet is a star: the player's Elo relative to the anchor is its head-to-head Elo."""
    config = ladder_config("random", depths=(2,), games_per_pairing=4, ply_cap=20)
    rec = {"white_index": 0, "black_index": 2, "white_score": 1.0, "round": 0}
    records = [dict(rec, id="a"), dict(rec, id="b", white_score=0.5), dict(rec, id="c", white_score=0.0),
               dict(rec, id="d", white_score=0.0),
               *(dict(rec, id=f"g{k}", black_index=1, white_score=1.0) for k in range(4))]
    result = ladder_result(build_report(config, tmp_path, 2, records, 8))
    score = (1.5 + 0.5) / (4 + 1)  # one virtual draw (the prior)
    assert result.elo == pytest.approx(400 * math.log10(score / (1 - score)))
    assert result.games == 8 and result.anchor_games == 4 and result.scores["greedy"]["score"] == 1.0


def test_a_bad_player_spec_is_one_line_and_exit_2(tmp_path):
    out = tmp_path / "bad"
    proc = subprocess.run([sys.executable, "-m", "scripts.arena", "ladder", "alphabeta:depht=2",
                           "--out", str(out), "--no-progress"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert proc.stderr.startswith("hive-arena: error: ") and "depht" in proc.stderr
    assert not out.exists()
