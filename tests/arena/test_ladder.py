"""The ladder (arena/ladder.py, ``hive-arena ladder``): a player against fixed rungs, its Elo
relative to alphabeta:depth=2, reproducible and resumable."""

from __future__ import annotations

import dataclasses
import json
import math
import re
import subprocess
import sys

import pytest
from conftest import require_tool

import arena.executor as executor_module
from arena.cli import build_parser, config_from_args, main
from arena.config import default_out_dir
from arena.ladder import ANCHOR, anchor_note, ladder_anchor, ladder_config, ladder_opponents, ladder_result
from arena.ladder_card import ladder_section
from arena.report import build_report, pairing_rows, rating_rows
from arena.schedule import resolve_openings, schedule
from hive_env.outcome import DEFAULT_PLY_CAP
from players import Budget

from helpers import ROOT, match_records

AZ = "alphazero:ckpt=runs/x/checkpoints/best.pt,sims=64"
RUNGS = ("random", "greedy", "alphabeta:depth=1", "alphabeta:depth=2", "alphabeta:depth=3",
         "alphabeta:depth=4")
LINE = re.compile(r"^ladder: (\S+)  Elo vs (\S+): ([+-]\d+) \[([+-]\d+), ([+-]\d+)\] "
                  r"\((\d+) games, (\d+) vs \2(; .*)?\)$")


def test_the_ladders_opponents_settings_and_anchor():
    config = ladder_config(AZ)
    assert config.mode == "gauntlet" and config.players == (AZ, *RUNGS)
    assert (config.games_per_pairing, config.seed, config.openings, config.ply_cap) == (
        100, 0, "random:4", DEFAULT_PLY_CAP)
    assert config.budget() is None and config.game_type == "Base"
    assert ladder_anchor(config.players) == ANCHOR == "alphabeta:depth=2"
    assert dataclasses.replace(config) == config  # valid: an ArenaConfig checks itself when built
    # extra opponents come last, once; a rung equal to the player is left out
    extra = ladder_opponents(extra=("uhp:cmd=engine", "greedy", "uhp:cmd=engine"))
    assert extra == (*RUNGS, "uhp:cmd=engine")
    assert ladder_config("alphabeta:depth=3").players == ("alphabeta:depth=3", *RUNGS[:4], RUNGS[5])
    assert ladder_config(AZ, depths=(1, 3)).players == (AZ, *RUNGS[:3], RUNGS[4])
    assert ladder_anchor(ladder_config(AZ, depths=(1, 3)).players) == "random"
    # the results directory follows from the settings: the same command resumes
    assert default_out_dir(ladder_config(AZ)) == default_out_dir(ladder_config(AZ))
    assert default_out_dir(ladder_config(AZ, seed=1)) != default_out_dir(ladder_config(AZ))
    args = build_parser().parse_args(["ladder", AZ, "--extra", "uhp:cmd=engine"])
    assert config_from_args(args) == ladder_config(AZ, extra=("uhp:cmd=engine",))


def test_equal_time_sets_the_time_budget_of_every_player():
    args = build_parser().parse_args(["ladder", AZ, "--equal-time", "0.5"])
    config = config_from_args(args)
    assert config.time_s == 0.5 and config.budget() == Budget(time_s=0.5)
    # the time budget overrides the depth: one alphabeta rung (the anchor) unless asked otherwise
    assert config.players == (AZ, "random", "greedy", ANCHOR)
    args = build_parser().parse_args(["ladder", AZ, "--equal-time", "1", "--depths", "1", "2"])
    assert config_from_args(args).players == (AZ, "random", "greedy", "alphabeta:depth=1",
                                              "alphabeta:depth=2")
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
    assert "warning" not in capsys.readouterr().err  # depth 2 is a rung: rated against it, as promised
    for name in ("config.json", "games.jsonl", "pairings.csv", "ratings.csv", "summary.json", "ladder.json"):
        assert (out / name).is_file(), name
    data = json.loads((out / "ladder.json").read_text())
    assert data["summary"] == summary and data["player"] == "random" and data["anchor"] == ANCHOR
    assert data["games"] == 4 and data["anchor_games"] == 2 and data["complete"]
    assert data["lo"] <= data["elo"] <= data["hi"] and f"{data['elo']:+.0f}" == m.group(3)
    assert set(data["scores"]) == {"greedy", ANCHOR}
    # what each player spent a move: random reports no search, alphabeta its nodes
    assert set(data["per_move"]) == {"random", "greedy", ANCHOR}
    assert data["per_move"]["random"]["seconds_per_move"] >= 0
    assert data["per_move"]["random"]["nodes_per_move"] is None
    anchor = data["per_move"][ANCHOR]
    assert anchor["nodes_per_move"] > 0 and anchor["sims_per_move"] is None
    assert m.group(8).startswith("; per move: random ") and " nodes" in m.group(8)
    assert all(s["games"] == 2 and s["wins"] + s["draws"] + s["losses"] == 2 for s in data["scores"].values())
    # the ladder's numbers do not depend on the fit's anchor
    config = ladder_config("random", depths=(2,), games_per_pairing=2, ply_cap=20)
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    by_random = ladder_result(build_report(config, out, 0, records, 4))
    assert by_random.line() == summary

    def no_games(task):
        raise AssertionError(f"game {task.id} replayed")

    monkeypatch.setattr(executor_module, "play_game", no_games)
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


def test_the_ladder_line_and_the_rows_agree_on_a_sweep(tmp_path):
    """Issue 28: a 12-0 sweep (4-0 against each rung) read -126 in the line, [+7, inf] in its rows."""
    config = ladder_config("alphabeta:depth=3", depths=(1,), games_per_pairing=4)
    assert config.players == ("alphabeta:depth=3", "random", "greedy", "alphabeta:depth=1")
    report = build_report(config, tmp_path, 1, match_records(*((0, j, 4, 0, 0) for j in (1, 2, 3))), 12)
    result = ladder_result(report)
    row = next(r for r in pairing_rows(report) if r["opponent"] == "random")
    rating = next(r for r in rating_rows(report) if r["player"] == "alphabeta:depth=3")
    for r in (row, rating):  # the line, the pairing row and the ratings table: one interval
        assert (result.elo, result.lo, result.hi) == pytest.approx((r["elo"], r["elo_lo"], r["elo_hi"]))
    assert result.line() == ("ladder: alphabeta:depth=3  Elo vs random: +382 [-7, +1231] "
                             "(12 games, 4 vs random)")
    scores = result.to_json()["scores"]["random"]
    assert (scores["score"], scores["score_lo"], scores["elo_lo"]) == (1.0, 0.4901, -6.9)
    assert ladder_section_rows(result)["random"]["elo_95"] == [-6.9, 1230.6]  # the model card: the same


def ladder_section_rows(result) -> dict[str, dict]:
    from arena.ladder_card import ladder_rows

    return {r["opponent"]: r for r in ladder_rows(result.to_json())}


def test_a_ladder_without_depth_2_warns_and_names_its_anchor(tmp_path, capsys):
    """Issue 28: ``--depths 1`` silently rated against random."""
    out = tmp_path / "ladder"
    argv = ["ladder", "greedy", "--depths", "1", "--games-per-pairing", "2", "--ply-cap", "20",
            "--out", str(out), "--no-progress"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    note = f"{ANCHOR} is not among the rungs (add depth 2 to --depths): the Elo is relative to random"
    assert captured.err.splitlines() == [f"hive-arena ladder: warning: {note}"]
    assert LINE.match(captured.out.splitlines()[-1]).group(2) == "random"
    assert json.loads((out / "ladder.json").read_text())["anchor_note"] == note
    assert anchor_note(ladder_config("greedy").players) is None
    assert anchor_note(ladder_config(ANCHOR).players) == (
        f"the player is the anchor {ANCHOR}: its Elo vs {ANCHOR} is 0 by definition")


def test_a_player_without_games_against_the_anchor_is_unrated(tmp_path):
    config = ladder_config("greedy", depths=(2,), games_per_pairing=2)
    result = ladder_result(build_report(config, tmp_path, 2, match_records((0, 1, 2, 0, 0)), 4))
    assert not result.rated and result.to_json()["elo"] is None and result.to_json()["rated"] is False
    assert result.line() == f"ladder: greedy  Elo vs {ANCHOR}: unrated (2 games, 0 vs {ANCHOR})"


def test_the_ladder_line_and_json_give_the_time_and_search_per_move(tmp_path):
    config = ladder_config("random", depths=(2,), games_per_pairing=2, equal_time=0.25, ply_cap=20)
    rec = {"id": "x", "white_index": 0, "black_index": 2, "white_score": 0.0, "round": 0, "plies": 7}
    records = [dict(rec, move_seconds=[0.25, 0.125, 0.5], move_stats=[None, {"nodes": 300}, None]),
               dict(rec, id="y", white_index=2, black_index=0, white_score=1.0,  # from ply 5: random first
                    move_seconds=[0.25, 0.375], move_stats=[None, {"nodes": 100}])]
    result = ladder_result(build_report(config, tmp_path, 2, records, 6))
    # random: 0.25 + 0.5 + 0.25 s over 3 moves; alphabeta: 0.125 + 0.375 over 2, 400 nodes over 2
    assert result.per_move["random"] == {"seconds_per_move": 0.3333, "sims_per_move": None,
                                         "nodes_per_move": None}
    assert result.per_move[ANCHOR] == {"seconds_per_move": 0.25, "sims_per_move": None,
                                       "nodes_per_move": 200.0}
    assert result.per_move["greedy"] == dict.fromkeys(("seconds_per_move", "sims_per_move", "nodes_per_move"))
    assert result.line().endswith(f"(2 games, 2 vs {ANCHOR}; 0.25 s a move each; "
                                  f"per move: random 0.3333 s, {ANCHOR} 0.2500 s 200 nodes)")
    assert LINE.match(result.line())
    assert result.to_json()["per_move"] == result.per_move
    untimed = [{k: v for k, v in r.items() if k not in ("move_seconds", "move_stats")} for r in records]
    line = ladder_result(build_report(config, tmp_path, 2, untimed, 6)).line()
    assert line.endswith(f"(2 games, 2 vs {ANCHOR}; 0.25 s a move each)")  # nothing measured: nothing said


def test_an_equal_time_ladder_with_an_external_engine(tmp_path, capsys, monkeypatch):
    """``--equal-time`` reaches nokamute as its time a move (``bestmove seconds``: UHP's own
    ``bestmove time`` would round 0.1 s up to 1 s), and the result shows what each side spent."""
    nokamute = require_tool("nokamute")
    monkeypatch.chdir(ROOT)
    engine = f"uhp:cmd={nokamute},name=nokamute"
    out = tmp_path / "ladder"
    argv = ["ladder", "greedy", "--equal-time", "0.1", "--extra", engine, "--games-per-pairing", "2",
            "--ply-cap", "16", "--out", str(out), "--no-progress"]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert LINE.match(lines[-1]) and "; 0.1 s a move each; per move: greedy " in lines[-1], lines[-1]
    data = json.loads((out / "ladder.json").read_text())
    assert data["scores"][engine]["games"] == 2 and data["complete"]
    spent = data["per_move"]
    assert set(spent) == {"greedy", "random", ANCHOR, engine}
    # nokamute reports no search numbers; its time is its 0.1 s plus the per-move newgame, well under 1 s
    assert spent[engine]["nodes_per_move"] is None and spent[engine]["sims_per_move"] is None
    assert 0.05 < spent[engine]["seconds_per_move"] < 0.7, spent[engine]
    assert spent[ANCHOR]["nodes_per_move"] > 0 and spent[ANCHOR]["seconds_per_move"] < 0.5
    assert spent["greedy"]["nodes_per_move"] > 0
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    engine_games = [r for r in records if engine in (r["white"], r["black"])]
    assert all(r["termination"] not in ("EngineError", "IllegalMove") for r in engine_games), engine_games
    assert all(len(r["move_seconds"]) == r["plies"] - 4 for r in records)
    table = "\n".join(lines)
    assert "s/move  nodes/move" in table and "s/move  opp s/move" in table


def test_a_bad_player_spec_is_one_line_and_exit_2(tmp_path):
    out = tmp_path / "bad"
    proc = subprocess.run([sys.executable, "-m", "scripts.arena", "ladder", "alphabeta:depht=2",
                           "--out", str(out), "--no-progress"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert proc.stderr.startswith("hive-arena: error: ") and "depht" in proc.stderr
    assert not out.exists()


@pytest.mark.parametrize("game_type", ["Base+MLP", "Base+P"])
def test_the_ladder_plays_every_game_type(tmp_path, capsys, game_type):
    out = tmp_path / "ladder"
    assert main(["ladder", "random", "--depths", "1", "--games-per-pairing", "2", "--ply-cap", "16",
                 "--game-type", game_type, "--out", str(out), "--no-progress", "--seed", "5"]) == 0
    assert LINE.match(capsys.readouterr().out.splitlines()[-1])
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert len(records) == 4 and all(r["game_string"].startswith(f"{game_type};") for r in records)
    # a model card's ladder section says how to play it again: the game type and the seed
    assert ladder_section(out)["command"].endswith(f"--game-type {game_type} --seed 5")
