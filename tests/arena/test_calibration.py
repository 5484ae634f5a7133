"""The ladder's calibration (arena/calibration.py, ``hive-arena calibrate``): the rungs' round
robin among themselves, shipped as package data and matched to a ladder's conditions."""

from __future__ import annotations

import json
import tomllib

import pytest

import arena.executor as executor_module
from arena.calibration import (
    DATA_DIR,
    Calibration,
    calibration_path,
    read_calibration,
    select_calibration,
    shipped_calibrations,
)
from arena.cli import main
from arena.ladder import ANCHOR, OPENINGS, ladder_config, ladder_opponents
from hive_env.outcome import DEFAULT_PLY_CAP

from helpers import ROOT


def hand_made(game_type: str = "Base", ply_cap: int = DEFAULT_PLY_CAP, name: str = "x.json") -> Calibration:
    return Calibration(name, "hand-made", game_type, OPENINGS, ply_cap, 1, 10, ("random", ANCHOR),
                       {("random", ANCHOR): (1, 2, 7)})


def test_files_are_named_by_game_type():
    assert calibration_path("Base") == DATA_DIR / "ladder_rungs.json"
    assert calibration_path("Base+MLP").name == "ladder_rungs_base_mlp.json"


def test_a_calibration_round_trips_and_reads_each_pairing_from_either_side(tmp_path):
    cal = hand_made()
    assert cal.pairing("random", ANCHOR) == (1, 2, 7) and cal.pairing(ANCHOR, "random") == (7, 2, 1)
    assert cal.pairing("random", "greedy") is None and cal.games == 10
    path = tmp_path / "x.json"
    path.write_text(json.dumps(cal.to_json()))
    assert read_calibration(path) == cal
    path.write_text('{"pairings": []}')
    with pytest.raises(ValueError, match="not a calibration of the ladder's rungs"):
        read_calibration(path)


def test_the_calibration_that_holds_is_chosen_else_the_reason_of_its_game_type():
    base, mlp = hand_made(name="base.json"), hand_made("Base+MLP", name="mlp.json")
    assert select_calibration([mlp, base], ladder_config("greedy")) == (base, None)
    assert select_calibration([mlp, base], ladder_config("greedy", game_type="Base+MLP")) == (mlp, None)
    assert select_calibration([mlp, base], ladder_config("greedy", ply_cap=50)) == (
        None, "ply cap 50, not the calibration's 300 (base.json)")
    assert select_calibration([base], ladder_config("greedy", game_type="Base+P")) == (
        None, "no calibration of the rungs for game type Base+P")
    assert select_calibration([], ladder_config("greedy")) == (None, "no calibration of the rungs")


def test_calibrate_plays_the_rungs_round_robin_writes_the_file_and_resumes(tmp_path, capsys, monkeypatch):
    out, data = tmp_path / "results", tmp_path / "rungs.json"
    argv = ["calibrate", "--games-per-pairing", "2", "--depths", "1", "--out", str(out), "--data", str(data),
            "--no-progress"]
    assert main(argv) == 0
    assert capsys.readouterr().out.splitlines()[-1] == f"wrote {data}: 6 games between 3 rungs"
    body = json.loads(data.read_text())
    assert body["command"] == ("hive-arena calibrate --games-per-pairing 2 --seed 1 --game-type Base "
                               "--depths 1")
    assert (body["game_type"], body["openings"], body["ply_cap"], body["seed"]) == (
        "Base", OPENINGS, DEFAULT_PLY_CAP, 1)
    assert body["rungs"] == ["random", "greedy", "alphabeta:depth=1"] and body["games"] == 6
    assert [(p["a"], p["b"]) for p in body["pairings"]] == [
        ("random", "greedy"), ("random", "alphabeta:depth=1"), ("greedy", "alphabeta:depth=1")]
    assert all(p["wins"] + p["draws"] + p["losses"] == 2 for p in body["pairings"])
    games = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert len(games) == 6
    assert body["play_seconds"] == pytest.approx(sum(g["seconds"] for g in games), abs=0.1)
    cal = read_calibration(data)
    assert cal.rungs == ("random", "greedy", "alphabeta:depth=1") and cal.name == "rungs.json"

    def no_games(task):
        raise AssertionError(f"game {task.id} replayed")

    monkeypatch.setattr(executor_module, "play_game", no_games)
    assert main(argv) == 0  # the same command resumes: nothing replayed, the same file
    assert json.loads(data.read_text()) == body


def test_the_shipped_calibration_covers_the_ladder_and_ships_as_package_data():
    base = [c for c in shipped_calibrations() if c.game_type == "Base"]
    assert len(base) == 1 and base[0].name == "ladder_rungs.json"
    cal = base[0]
    assert cal.rungs == ladder_opponents() and cal.mismatch(ladder_config("greedy")) is None
    assert (cal.openings, cal.ply_cap) == (OPENINGS, DEFAULT_PLY_CAP)
    assert cal.command.startswith("hive-arena calibrate ") and f"--seed {cal.seed}" in cal.command
    n = len(cal.rungs)
    assert len(cal.wdl) == n * (n - 1) // 2 and all(sum(c) == cal.games_per_pairing for c in cal.wdl.values())
    # the rungs are ordered as their names say at the ends: random loses, depth 4 beats depth 2
    for rung in cal.rungs[1:]:
        wins, draws, losses = cal.pairing("random", rung)
        assert wins + draws / 2 < losses + draws / 2, rung
    wins, draws, losses = cal.pairing("alphabeta:depth=4", ANCHOR)
    assert wins > losses
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert "data/*.json" in package_data["arena"]
