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

import arena.executor as executor_module
from arena.calibration import Calibration
from arena.cli import build_parser, config_from_args, main
from arena.config import default_out_dir
from arena.ladder import (
    ANCHOR,
    OPENINGS,
    anchor_note,
    ladder_anchor,
    ladder_config,
    ladder_opponents,
    ladder_result,
)
from arena.ladder_card import ladder_section
from arena.report import build_report, pairing_rows, rating_rows
from arena.schedule import resolve_openings, schedule
from hive_env.outcome import DEFAULT_PLY_CAP
from players import Budget

from helpers import ROOT, match_records, require_tool, whole

AZ = "alphazero:ckpt=runs/x/checkpoints/best.pt,sims=64"
RUNGS = ("random", "greedy", "alphabeta:depth=1", "alphabeta:depth=2", "alphabeta:depth=3",
         "alphabeta:depth=4")
LINE = re.compile(r"^ladder: (?P<player>\S+)  Elo vs (?P<anchor>\S+): "
                  r"(?P<elo>[+-]\d+) \[([+-]\d+), ([+-]\d+)\](?P<pooled> pooled)? "
                  r"\((?P<games>\d+) games, (?P<anchor_games>\d+) vs (?P=anchor)"
                  r"(?P<rungs>, \d+ between the rungs)?(?P<tail>; .*)?\)$")


def calibration(rungs, results=None, **conditions) -> Calibration:
    """A hand-made calibration of ``rungs`` under the ladder's conditions (unless ``conditions``
    say otherwise); ``results`` maps ``(a, b)`` to ``a``'s W/D/L (default 3-4-3 every pair)."""
    settings = {"game_type": "Base", "openings": OPENINGS, "ply_cap": DEFAULT_PLY_CAP} | conditions
    wdl = results or {(a, b): (3, 4, 3) for k, a in enumerate(rungs) for b in rungs[k + 1:]}
    return Calibration("test_rungs.json", "hand-made", settings["game_type"], settings["openings"],
                       settings["ply_cap"], 1, 10, tuple(rungs), wdl)


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
    assert m and m.group("player", "anchor", "games", "anchor_games") == ("random", ANCHOR, "4", "2"), summary
    assert sum(line.startswith("ladder: ") for line in lines) == 1
    assert any(line.endswith("anchor alphabeta:depth=2 = 0") for line in lines)
    assert "warning" not in capsys.readouterr().err  # depth 2 is a rung: rated against it, as promised
    for name in ("config.json", "games.jsonl", "pairings.csv", "ratings.csv", "summary.json", "ladder.json"):
        assert (out / name).is_file(), name
    data = json.loads((out / "ladder.json").read_text())
    assert data["summary"] == summary and data["player"] == "random" and data["anchor"] == ANCHOR
    assert data["games"] == 4 and data["anchor_games"] == 2 and data["complete"]
    assert data["lo"] <= data["elo"] <= data["hi"] and f"{data['elo']:+.0f}" == m.group("elo")
    assert set(data["scores"]) == {"greedy", ANCHOR}
    # what each player spent a move: random reports no search, alphabeta its nodes
    assert set(data["per_move"]) == {"random", "greedy", ANCHOR}
    assert data["per_move"]["random"]["seconds_per_move"] >= 0
    assert data["per_move"]["random"]["nodes_per_move"] is None
    anchor = data["per_move"][ANCHOR]
    assert anchor["nodes_per_move"] > 0 and anchor["sims_per_move"] is None
    assert m.group("tail").startswith("; per move: random ") and " nodes" in m.group("tail")
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
    records = [whole(dict(rec, id="a")), whole(dict(rec, id="b", white_score=0.5)),
               whole(dict(rec, id="c", white_score=0.0)), whole(dict(rec, id="d", white_score=0.0)),
               *(whole(dict(rec, id=f"g{k}", black_index=1, white_score=1.0)) for k in range(4))]
    result = ladder_result(build_report(config, tmp_path, 2, records, 8))
    score = (1.5 + 0.5) / (4 + 1)  # one virtual draw (the prior)
    assert result.elo == pytest.approx(400 * math.log10(score / (1 - score)))
    assert result.games == 8 and result.anchor_games == 4 and result.scores["greedy"]["score"] == 1.0


def test_the_ladder_line_and_the_rows_agree_on_a_sweep(tmp_path):
    """A 12-0 sweep (4-0 against each rung) once read -126 in the line, [+7, inf] in its rows."""
    config = ladder_config("alphabeta:depth=3", depths=(1,), games_per_pairing=4)
    assert config.players == ("alphabeta:depth=3", "random", "greedy", "alphabeta:depth=1")
    report = build_report(config, tmp_path, 1, match_records(*((0, j, 4, 0, 0) for j in (1, 2, 3))), 12)
    result = ladder_result(report, calibrations=())  # the games against the anchor alone
    assert result.rating == "anchor" and result.rating_note == "no calibration of the rungs"
    row = next(r for r in pairing_rows(report) if r["opponent"] == "random")
    rating = next(r for r in rating_rows(report) if r["player"] == "alphabeta:depth=3")
    for r in (row, rating):  # the line, the pairing row and the ratings table: one interval
        assert (result.elo, result.lo, result.hi) == pytest.approx((r["elo"], r["elo_lo"], r["elo_hi"]))
    assert result.line() == ("ladder: alphabeta:depth=3  Elo vs random: +382 [-7, +1231] "
                             "(12 games, 4 vs random)")
    scores = result.to_json()["scores"]["random"]
    assert (scores["score"], scores["score_lo"], scores["elo_lo"]) == (1.0, 0.4901, -6.9)
    assert ladder_section_rows(result)["random"]["elo_95"] == [-6.9, 1230.6]  # the model card: the same
    # pooled with a calibration, the anchor-only numbers stay those of the rows
    pooled = ladder_result(report, calibrations=[calibration(config.players[1:])])
    assert pooled.rating == "pooled" and pooled.anchor_rating == (result.elo, result.lo, result.hi)
    data = pooled.to_json()
    assert (data["anchor_elo"], data["anchor_lo"], data["anchor_hi"]) == pytest.approx(
        (row["elo"], row["elo_lo"], row["elo_hi"]), abs=0.01)


def ladder_section_rows(result) -> dict[str, dict]:
    from arena.ladder_card import ladder_rows

    return {r["opponent"]: r for r in ladder_rows(result.to_json())}


def test_a_ladder_without_depth_2_warns_and_names_its_anchor(tmp_path, capsys):
    """``--depths 1`` once rated against random without a word; now it warns and names its anchor."""
    out = tmp_path / "ladder"
    argv = ["ladder", "greedy", "--depths", "1", "--games-per-pairing", "2", "--ply-cap", "20",
            "--out", str(out), "--no-progress"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    note = f"{ANCHOR} is not among the rungs (add depth 2 to --depths): the Elo is relative to random"
    assert captured.err.splitlines() == [f"hive-arena ladder: warning: {note}"]
    assert LINE.match(captured.out.splitlines()[-1]).group("anchor") == "random"
    assert json.loads((out / "ladder.json").read_text())["anchor_note"] == note
    assert anchor_note(ladder_config("greedy").players) is None
    assert anchor_note(ladder_config(ANCHOR).players) == (
        f"the player is the anchor {ANCHOR}: its Elo vs {ANCHOR} is 0 by definition")


def test_a_player_without_games_against_the_anchor_is_unrated_alone_and_rated_pooled(tmp_path):
    config = ladder_config("greedy", depths=(2,), games_per_pairing=2)
    report = build_report(config, tmp_path, 2, match_records((0, 1, 2, 0, 0)), 4)
    result = ladder_result(report, calibrations=())
    assert not result.rated and result.to_json()["elo"] is None and result.to_json()["rated"] is False
    assert result.line() == f"ladder: greedy  Elo vs {ANCHOR}: unrated (2 games, 0 vs {ANCHOR})"
    # the calibration places random relative to the anchor, and so the player beating random
    pooled = ladder_result(report, calibrations=[calibration(("random", ANCHOR))])
    assert pooled.rated and pooled.rating == "pooled" and pooled.lo < pooled.elo < pooled.hi
    assert pooled.pooled_elos["random"] < pooled.elo  # it won both games against random
    assert math.isnan(pooled.anchor_only[0]) and pooled.to_json()["anchor_elo"] is None


def test_the_ladder_line_and_json_give_the_time_and_search_per_move(tmp_path):
    config = ladder_config("random", depths=(2,), games_per_pairing=2, equal_time=0.25, ply_cap=20)
    rec = {"id": "x", "white_index": 0, "black_index": 2, "white_score": 0.0, "round": 0, "plies": 7}
    records = [whole(dict(rec, move_seconds=[0.25, 0.125, 0.5], move_stats=[None, {"nodes": 300}, None])),
               whole(dict(rec, id="y", white_index=2, black_index=0, white_score=1.0,  # from ply 5: random
                          move_seconds=[0.25, 0.375], move_stats=[None, {"nodes": 100}]))]  # first
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


# ----- the pooled fit ---------------------------------------------------------------------------
STRENGTH = {"random": 1, "greedy": 2, "alphabeta:depth=1": 4, ANCHOR: 8, "alphabeta:depth=3": 16,
            "alphabeta:depth=4": 32}
"""Bradley-Terry odds: ``a`` scores ``o_a / (o_a + o_b)`` against ``b``; Elo = 400 log10(o / 8)."""
AZ_STRENGTH = 16  # +120.4 Elo


def exact(o_a: int, o_b: int, m: int) -> tuple[int, int, int]:
    """W/D/L of ``a`` against ``b`` whose score is exactly ``o_a / (o_a + o_b)`` (odds powers of 2)."""
    k = max(o_a, o_b) // min(o_a, o_b)
    n = (k + 1) * m
    wins = k * m if o_a > o_b else m
    return wins, 0, n - wins


def exact_ladder(tmp_path, m_ladder: int, m_rungs: int, prior_draws: float = 0.0):
    """A ladder of AZ and a calibration whose counts follow :data:`STRENGTH` exactly."""
    config = ladder_config(AZ)
    records = match_records(*((0, j, *exact(AZ_STRENGTH, STRENGTH[spec], m_ladder))
                              for j, spec in enumerate(config.players) if j))
    cal = calibration(RUNGS, {(a, b): exact(STRENGTH[a], STRENGTH[b], m_rungs)
                              for k, a in enumerate(RUNGS) for b in RUNGS[k + 1:]})
    report = build_report(config, tmp_path, 4, records, len(records), prior_draws=prior_draws)
    return report, cal


def test_the_pooled_fit_recovers_the_ratings_that_made_the_counts(tmp_path):
    report, cal = exact_ladder(tmp_path, m_ladder=2, m_rungs=10)
    result = ladder_result(report, [cal])
    truth = {spec: 400 * math.log10(o / 8) for spec, o in STRENGTH.items()}
    assert result.rating == "pooled" and result.calibration == "test_rungs.json"
    assert result.elo == pytest.approx(400 * math.log10(AZ_STRENGTH / 8), abs=1e-4)  # +120.4
    assert {k: v for k, v in result.pooled_elos.items() if k != AZ} == pytest.approx(truth, abs=0.01)
    assert result.calibration_games == sum(sum(c) for c in cal.wdl.values())
    # the games against the anchor alone say the same (exact counts) with a wider interval: the
    # other rungs carry information once the calibration places them
    elo, lo, hi = result.anchor_rating
    assert elo == pytest.approx(result.elo, abs=1e-4)
    assert lo < result.lo < result.elo < result.hi < hi
    assert (result.hi - result.lo) < 0.7 * (hi - lo)
    data = result.to_json()
    assert data["rating"] == "pooled" and data["calibration"] == "test_rungs.json"
    assert (data["anchor_elo"], data["anchor_lo"], data["anchor_hi"]) == pytest.approx((elo, lo, hi),
                                                                                       abs=0.01)
    assert data["elo"] == pytest.approx(120.41, abs=0.01) and data["rating_note"] is None
    interval = f"[{result.lo:+.0f}, {result.hi:+.0f}]"
    assert result.line() == (f"ladder: {AZ}  Elo vs {ANCHOR}: +120 {interval} pooled ({result.games} games, "
                             f"6 vs {ANCHOR}, {result.calibration_games} between the rungs)")
    assert LINE.match(result.line()).group("pooled")


def test_the_pooled_fit_with_the_prior_stays_near_the_ratings(tmp_path):
    report, cal = exact_ladder(tmp_path, m_ladder=10, m_rungs=10, prior_draws=1.0)
    result = ladder_result(report, [cal])
    assert result.elo == pytest.approx(120.4, abs=5)  # the virtual draws pull every pairing a little to 50%
    assert result.lo < 120.4 < result.hi


def test_rungs_outside_the_calibration_place_only_themselves(tmp_path):
    """An extra engine plays only the player: pooled with it or without it, the player's Elo is one."""
    engine = "uhp:cmd=engine"
    cal = calibration(RUNGS, {(a, b): exact(STRENGTH[a], STRENGTH[b], 5)
                              for k, a in enumerate(RUNGS) for b in RUNGS[k + 1:]})
    results = []
    for extra in ((), (engine,)):
        config = ladder_config(AZ, extra=extra)
        records = match_records(*((0, j, *exact(AZ_STRENGTH, STRENGTH.get(spec, 64), 3))
                                  for j, spec in enumerate(config.players) if j))
        results.append(ladder_result(build_report(config, tmp_path, 4, records, len(records)), [cal]))
    alone, with_engine = results
    assert with_engine.rating == "pooled" and with_engine.games == alone.games + 5 * 3
    assert (with_engine.elo, with_engine.lo, with_engine.hi) == pytest.approx((alone.elo, alone.lo, alone.hi),
                                                                             abs=1e-3)
    assert engine in with_engine.pooled_elos


@pytest.mark.parametrize("case, note", [
    ("game type", "no calibration of the rungs for game type Base+MLP"),
    ("equal time", "a time budget changes the rungs' strength: no calibration applies"),
    ("ply cap", "ply cap 20, not the calibration's 300 (test_rungs.json)"),
    ("openings", "openings random:2, not the calibration's random:4 (test_rungs.json)"),
    ("no anchor", f"test_rungs.json does not hold the anchor {ANCHOR}"),
    ("anchor only", "test_rungs.json holds only the anchor of the ladder's rungs"),
    ("is the anchor", None),
])
def test_without_a_calibration_that_holds_the_elo_rests_on_the_anchor(tmp_path, case, note):
    settings: dict = {}
    rungs, player = RUNGS, AZ
    if case == "game type":
        settings["game_type"] = "Base+MLP"
    elif case == "equal time":
        settings["equal_time"] = 0.5
    elif case == "ply cap":
        settings["ply_cap"] = 20
    elif case == "no anchor":
        rungs = tuple(r for r in RUNGS if r != ANCHOR)
    elif case == "anchor only":
        rungs = ("alphabeta:depth=7", ANCHOR)
    elif case == "is the anchor":
        player = ANCHOR
    config = ladder_config(player, **settings)
    if case == "openings":
        config = dataclasses.replace(config, openings="random:2")
    records = match_records(*((0, j, 3, 2, 1) for j in range(1, len(config.players))))
    report = build_report(config, tmp_path, 0, records, len(records))
    result = ladder_result(report, [calibration(rungs)])
    assert result.rating == "anchor" and result.rating_note == note and result.anchor_only is None
    anchor_row = ladder_result(report, ()).to_json()
    data = result.to_json()
    assert data["rating"] == "anchor" and data["calibration"] is None and data["pooled_elos"] == {}
    assert (data["elo"], data["lo"], data["hi"]) == (anchor_row["elo"], anchor_row["lo"], anchor_row["hi"])
    assert (data["anchor_elo"], data["anchor_lo"], data["anchor_hi"]) == (data["elo"], data["lo"], data["hi"])
    assert "pooled" not in result.line()
    if case == "is the anchor":
        assert (result.elo, result.lo, result.hi) == (0.0, 0.0, 0.0)


def test_a_ladder_pools_with_the_shipped_calibration(tmp_path, capsys):
    out = tmp_path / "ladder"
    assert main(["ladder", "random", "--depths", "2", "--games-per-pairing", "2", "--out", str(out),
                 "--no-progress"]) == 0
    summary = capsys.readouterr().out.splitlines()[-1]
    m = LINE.match(summary)
    assert m and m.group("pooled") and m.group("rungs"), summary
    data = json.loads((out / "ladder.json").read_text())
    assert data["rating"] == "pooled" and data["calibration"] == "ladder_rungs.json"
    assert data["calibration_games"] > 0 and set(data["pooled_elos"]) == {"random", "greedy", ANCHOR}
    assert data["summary"] == summary and ladder_section(out)["rating"] == "pooled"


def test_equal_time_matches_become_a_card_section_with_their_commands(tmp_path):
    from arena.ladder_card import matches_section

    def gauntlet(name: str, players: list[str], seconds: float, seed: int, w: int, d: int, lo: int):
        path = tmp_path / name
        path.mkdir()
        pairing = {"player": players[0], "opponent": "nokamute", "games": w + d + lo, "wins": w, "draws": d,
                   "losses": lo, "score": (w + d / 2) / (w + d + lo), "score_lo": 0.7, "score_hi": 0.99,
                   "elo": 400.0, "elo_lo": 150.04, "elo_hi": float("inf")}
        summary = {"settings": {"mode": "gauntlet", "players": players, "games_per_pairing": w + d + lo,
                                "game_type": "Base+MLP", "seed": seed, "time_s": seconds},
                   "pairings": [pairing]}
        (path / "summary.json").write_text(json.dumps(summary))
        return path

    section = matches_section([
        gauntlet("five", ["alphazero:device=cpu", "uhp:cmd=/x/nokamute,name=nokamute"], 5.0, 7, 17, 2, 1),
        gauntlet("odds", ["alphazero:device=cpu", "uhp:cmd=/x/nokamute,name=nokamute,time=3"], 1.0, 8, 9, 0,
                 1)])
    assert [r["opponent"] for r in section["rows"]] == ["nokamute, 5 s a move",
                                                        "nokamute at 3 s, the network at 1 s"]
    assert [(r["wins"], r["draws"], r["losses"]) for r in section["rows"]] == [(17, 2, 1), (9, 0, 1)]
    assert section["rows"][0]["elo_95"] == [150.0, None]  # JSON has no infinity
    first, second = section["command"].split("; ")
    assert "--time 5 --games-per-pairing 20 --workers 2 --seed 7 --game-type Base+MLP" in first
    assert '"uhp:cmd=NOKAMUTE,name=nokamute,time=3" --time 1' in second and "/x/" not in section["command"]
    assert section["summary"].startswith("the shipped network against nokamute, one core a side")
    # a gauntlet of two opponents, each at its own time: each in the command as it was played
    two = gauntlet("two", ["alphazero:device=cpu", "uhp:cmd=/x/nokamute,name=nokamute,time=2",
                           "alphabeta:depth=3,name=ab3"], 1.0, 9, 5, 0, 0)
    summary = json.loads((two / "summary.json").read_text())
    summary["pairings"].append({**summary["pairings"][0], "opponent": "ab3"})
    (two / "summary.json").write_text(json.dumps(summary))
    section = matches_section([two])
    assert [r["opponent"] for r in section["rows"]] == ["nokamute at 2 s, the network at 1 s",
                                                        "ab3, 1 s a move"]
    assert ('"uhp:cmd=NOKAMUTE,name=nokamute,time=2" "alphabeta:depth=3,name=ab3" --time 1'
            in section["command"])
    assert "against nokamute, ab3," in section["summary"]
    # the engine's options are kept, its directory is not
    flagged = gauntlet("flags", ["alphazero:device=cpu",
                                 "uhp:cmd=/x/nokamute --aspiration-window=50,name=asp"], 1.0, 10, 5, 0, 0)
    command = matches_section([flagged])["command"]
    assert '"uhp:cmd=NOKAMUTE --aspiration-window=50,name=asp"' in command and "/x/" not in command


def test_a_levels_calibration_becomes_a_card_section_and_table(tmp_path):
    from arena.ladder_card import levels_section
    from training.model_card import markdown

    def player(name, elo, lo, hi, level=None, gap=None):
        out = {"player": name, "spec": name, "level": level, "elo": elo, "lo": lo, "hi": hi, "games": 40,
               "score": 0.5}
        if gap is not None:
            out["over_below"] = {"level": level - 1, "elo": gap[0], "lo": gap[1], "hi": gap[2],
                                 "confirmed": gap[1] is not None and gap[1] > 0}
        return out

    levels = {"anchor": "alphabeta:depth=2", "games": 120, "complete": True, "game_type": "Base",
              "command": "python -m scripts.calibrate_levels --games 20 --part timed --out /x --no-progress",
              "levels": {"1": "level 1: 1 simulation a move, a move drawn among the policy's 12 best",
                         "2": "level 2: 16 simulations a move"},
              "players": [player("level-1", -300.0, -400.0, -200.0, 1),
                          player("level-2", -250.0, -330.0, -170.0, 2, gap=(50.0, -20.0, 120.0)),
                          player("alphabeta:depth=2", 0.0, 0.0, 0.0), player("nokamute", None, None, None)]}
    path = tmp_path / "levels.json"
    path.write_text(json.dumps(levels))
    section = levels_section(path)
    assert section["command"] == "python -m scripts.calibrate_levels --games 20"  # the whole study
    assert [r["level"] for r in section["rows"]] == [1, 2]
    assert section["rows"][1]["over_below"] == {"elo": 50.0, "elo_95": [-20.0, 120.0], "confirmed": False}
    assert [r["player"] for r in section["anchors"]] == ["alphabeta:depth=2", "nokamute"]
    card = {"name": "n", "game_type": "Base", "file": "base.pt", "bytes": 1, "step": 1,
            "model": {"width": 8, "layers": 1}, "lineage": None, "machine": "m", "replaced": None,
            "run": {"command": "c", "git": "0" * 40, "seed": 0, "wall_minutes": 1}, "levels": section}
    text = markdown(card)
    assert "## Levels" in text and "`python -m scripts.calibrate_levels --games 20`" in text
    assert ("| 2 | 16 simulations a move | -250 [-330, -170] | +50 [-20, +120] (not confirmed) |"
            in text.splitlines())
    assert "| `nokamute` | unrated |" in text.splitlines()


def test_matches_are_not_added_to_an_equal_time_ladder():
    from arena.ladder_card import add_matches

    new = {"command": "hive-arena gauntlet x", "summary": "s", "rows": [{"opponent": "a, 1 s a move"}]}
    assert add_matches(None, new) == new
    ladder = {"command": "hive-arena ladder x", "summary": "s", "rows": [{"rung": "greedy"}]}
    with pytest.raises(ValueError, match="a ladder's, not matches'"):
        add_matches(ladder, new)
