"""Openings, the arena's schedule and games, resumable results, SPRT runs, the CLI and the plot."""

from __future__ import annotations

import csv
import json
import math
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import arena.game as game_module
from arena.arena import run_arena
from arena.config import ArenaConfig, ArenaError
from arena.game import play_game
from arena.openings import OpeningsError, load_openings, random_openings
from arena.plot import checkpoint_step, plot_ratings
from arena.report import build_report, format_report, pairing_rows, rating_rows, write_report
from arena.results import GAMES_FILE
from arena.schedule import resolve_openings, schedule
from hive_env import PASS, Game

from helpers import ROOT, WIN_IN_ONE, match_records, wait_for, whole

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
# White to move wins with wA2 /bQ (tests/e2e/test_play_cli.py)


class StopError(Exception):
    """Raised by a test hook to interrupt an arena."""


def stop_after(n: int):
    seen = []

    def hook(record):
        seen.append(record["id"])
        if len(seen) >= n:
            raise StopError

    return hook


def ids_in(out: Path) -> list[str]:
    return [json.loads(line)["id"] for line in (out / "games.jsonl").read_text().splitlines()]


def gauntlet(games: int = 4, **kw) -> ArenaConfig:
    return ArenaConfig("gauntlet", ("greedy", "random"), games, **kw)


# ----- openings ---------------------------------------------------------------------------------
def test_random_openings_are_distinct_seeded_and_unfinished():
    openings = random_openings("Base", 20, 4, seed=3)
    assert len(openings) == 20
    games = [Game.from_string(o) for o in openings]
    assert all(g.ply == 4 and not g.is_over for g in games)
    assert len({g.hash for g in games}) == 20
    assert random_openings("Base", 20, 4, seed=3) == openings
    assert random_openings("Base", 30, 4, seed=3)[:20] == openings  # more from the same seed extends
    assert random_openings("Base", 20, 4, seed=4) != openings
    assert sorted(random_openings("Base", 10, 1)) == sorted(f"Base;InProgress;Black[1];w{b}1" for b in "SBGA")
    assert random_openings("Base+MLP", 2, 0) == ["Base+MLP;NotStarted;White[1]"]
    for bad in ({"n": 0, "plies": 2}, {"n": 2, "plies": -1}):
        with pytest.raises(OpeningsError):
            random_openings("Base", **bad)
    with pytest.raises(OpeningsError, match="game type"):
        random_openings("Chess", 2, 2)


def test_load_openings_validates_each_line(tmp_path):
    good = tmp_path / "book.txt"
    good.write_text("# my book\n\nBase;InProgress;Black[1];wS1\n"
                    "  Base;InProgress;White[2];wS1;bS1 wS1-  \nBase\n")
    assert load_openings(good) == ["Base;InProgress;Black[1];wS1", "Base;InProgress;White[2];wS1;bS1 wS1-",
                                   "Base;NotStarted;White[1]"]
    over = Game.from_string(WIN_IN_ONE)
    over.play("wA2 /bQ")
    cases = {
        "Base;InProgress;Black[1];wS1\n# c\nBase;InProgress;White[2];wS1;bQ wS1-\n":
            "line 3: not a GameString",
        f"Base;InProgress;Black[1];wS1\n{over.game_string()}\n": "line 2: the game is over",
        "Base+M;InProgress;Black[1];wM\n": "line 1: game type Base\\+M, but the arena plays Base",
        "# nothing\n\n": "has no openings",
    }
    for text, message in cases.items():
        path = tmp_path / "bad.txt"
        path.write_text(text)
        with pytest.raises(OpeningsError, match=message):
            load_openings(path, game_type="Base")
    with pytest.raises(OpeningsError, match="cannot read"):
        load_openings(tmp_path / "missing.txt")


# ----- schedule and games -----------------------------------------------------------------------
def test_schedule_pairs_colours_on_the_same_opening():
    config = ArenaConfig("gauntlet", ("a", "b", "c"), 6, openings="random:2")
    openings = resolve_openings(config)
    assert len(openings) == 3  # one per round
    tasks = schedule(config, openings)
    assert len(tasks) == 2 * 6 and len({t.id for t in tasks}) == 12
    assert len({t.seeds for t in tasks}) == 12
    for t in tasks:
        assert t.opening == openings[t.round]
    by_id = {t.id: t for t in tasks}
    for j in (1, 2):
        for k in range(3):
            a, b = by_id[f"0v{j}-r{k}-a"], by_id[f"0v{j}-r{k}-b"]
            assert (a.white, a.black, b.white, b.black) == ("a", "bc"[j - 1], "bc"[j - 1], "a")
            assert a.opening == b.opening and a.seeds != b.seeds
    rr = schedule(ArenaConfig("roundrobin", ("a", "b", "c", "d"), 2), openings[:1])
    assert sorted({t.id.split("-")[0] for t in rr}) == ["0v1", "0v2", "0v3", "1v2", "1v3", "2v3"]
    cycled = schedule(ArenaConfig("gauntlet", ("a", "b"), 6), openings[:2])
    assert [t.opening_index for t in cycled] == [0, 0, 1, 1, 0, 0]


def test_play_game_record_replays():
    config = gauntlet(2)
    task = schedule(config, resolve_openings(config))[0]
    record = play_game(task)
    assert (record["white"], record["black"], record["id"]) == ("greedy", "random", task.id)
    game = Game.from_string(record["game_string"])
    assert game.ply == record["plies"] and game.is_over
    assert record["termination"] == ("repetition" if game.state == "Draw" else "queen_surrounded")
    assert game.game_string().startswith(task.opening.split(";")[0])
    assert game.move_strings[:4] == Game.from_string(task.opening).move_strings
    assert record["white_score"] == {"WhiteWins": 1.0, "BlackWins": 0.0, "Draw": 0.5}[game.state]
    assert record["result"] == {1.0: "1-0", 0.0: "0-1", 0.5: "1/2-1/2"}[record["white_score"]]
    timing = {k: record[k] for k in ("seconds", "white_seconds", "black_seconds", "move_seconds")}
    assert record == {**play_game(task), **timing}  # seeded: the same game again


def test_records_keep_each_moves_time_and_search_stats():
    config = gauntlet(2)
    task = schedule(config, resolve_openings(config))[0]  # greedy White, random Black
    record = play_game(task)
    seconds, stats = record["move_seconds"], record["move_stats"]
    opening_plies = Game.from_string(task.opening).ply
    assert len(seconds) == len(stats) == record["plies"] - opening_plies > 0
    assert all(isinstance(x, float) and x >= 0 for x in seconds)
    white = [x for k, x in enumerate(seconds) if (opening_plies + k) % 2 == 0]
    black = [x for k, x in enumerate(seconds) if (opening_plies + k) % 2 == 1]
    # each move rounded to 0.1 ms: the sums agree with the sides' totals within that
    assert sum(white) == pytest.approx(record["white_seconds"], abs=1e-4 * len(white) + 1e-4)
    assert sum(black) == pytest.approx(record["black_seconds"], abs=1e-4 * len(black) + 1e-4)
    # greedy scores one position per legal move; random reports nothing (null)
    game = Game.from_string(task.opening)
    for k, move in enumerate(Game.from_string(record["game_string"]).move_strings[opening_plies:]):
        expected = {"nodes": len(game.legal_moves())} if game.side_to_move == 0 else None
        assert stats[k] == expected, k
        game.play(move)
    assert json.loads(json.dumps(record)) == record  # JSON-ready as stored


def test_ply_cap_is_a_draw_in_progress():
    config = ArenaConfig("gauntlet", ("random", "random:"), 2, openings="random:0", ply_cap=12)
    record = play_game(schedule(config, ["Base"])[0])
    assert (record["termination"], record["result"], record["plies"]) == ("ply_cap", "1/2-1/2", 12)
    assert Game.from_string(record["game_string"]).state == "InProgress"


class _Passer:
    name = "passer"

    def choose(self, game, budget=None):
        return PASS

    def close(self):
        pass


def test_an_illegal_move_loses(monkeypatch):
    # patched where the arena builds players: registering a kind would leak into other tests
    real = game_module.make_player
    monkeypatch.setattr(game_module, "make_player",
                        lambda spec, seed=0: _Passer() if spec == "passer" else real(spec, seed))
    config = ArenaConfig("gauntlet", ("random", "passer"), 2)
    for task in schedule(config, resolve_openings(config)):
        record = play_game(task)
        assert record["termination"] == "illegal_move" and "played" in record["detail"]
        assert record["white_score"] == (1.0 if task.white == "random" else 0.0)


# ----- arena runs ---------------------------------------------------------------------------------
def test_gauntlet_end_to_end(tmp_path):
    config = ArenaConfig("gauntlet", ("greedy", "random", "random:"), 4)
    report = run_arena(config, tmp_path, progress=False)
    assert report.complete and report.games_done == report.games_total == 8
    assert sorted(ids_in(tmp_path)) == sorted(t.id for t in schedule(config, resolve_openings(config)))
    with open(tmp_path / "pairings.csv") as f:
        pairings = list(csv.DictReader(f))
    assert [(p["player"], p["opponent"], p["games"]) for p in pairings] == [("greedy", "random", "4"),
                                                                            ("greedy", "random:", "4")]
    assert all(int(p["wins"]) + int(p["draws"]) + int(p["losses"]) == 4 for p in pairings)
    with open(tmp_path / "ratings.csv") as f:
        ratings = {r["player"]: r for r in csv.DictReader(f)}
    assert ratings["random"]["elo"] == "0.00" and ratings["random"]["anchor"] == "True"
    assert float(ratings["greedy"]["elo"]) > 0 and ratings["greedy"]["rank"] == "1"
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["complete"] and summary["anchor"] == "random" and summary["games_done"] == 8
    assert json.loads((tmp_path / "config.json").read_text())["settings"]["players"] == list(config.players)
    assert not list(tmp_path.glob("*.tmp"))
    text = format_report(report)
    assert "anchor random = 0" in text and "greedy" in text and "Pairings" in text


def test_resume_after_interruption_plays_every_game_once(tmp_path):
    config = gauntlet(6)
    all_ids = sorted(t.id for t in schedule(config, resolve_openings(config)))
    with pytest.raises(StopError):
        run_arena(config, tmp_path, progress=False, on_record=stop_after(2))
    first = (tmp_path / "games.jsonl").read_text().splitlines()
    assert len(first) == 2
    summary = json.loads((tmp_path / "summary.json").read_text())  # partial tables on interruption
    assert not summary["complete"] and summary["games_done"] == 2
    # a crash while appending leaves a partial last line: it is dropped and that game replayed
    with open(tmp_path / "games.jsonl", "a") as f:
        f.write('{"id": "0v1-r1-a", "white": "gre')
    with pytest.raises(StopError):
        run_arena(config, tmp_path, progress=False, on_record=stop_after(1))
    assert len(ids_in(tmp_path)) == 3
    # a whole record that lost its newline is kept
    text = (tmp_path / "games.jsonl").read_text()
    (tmp_path / "games.jsonl").write_text(text.rstrip("\n"))
    resumed = []
    report = run_arena(config, tmp_path, progress=False, on_record=lambda r: resumed.append(r["id"]))
    assert report.complete and len(resumed) == 3
    ids = ids_in(tmp_path)
    assert sorted(ids) == all_ids  # every scheduled game exactly once
    assert (tmp_path / "games.jsonl").read_text().splitlines()[:2] == first
    again = []
    run_arena(config, tmp_path, progress=False, on_record=again.append)
    assert again == [] and ids_in(tmp_path) == ids


def test_resume_refuses_other_settings_and_corrupt_records(tmp_path):
    run_arena(gauntlet(2), tmp_path, progress=False)
    with pytest.raises(ArenaError, match="ply_cap: 300 -> 150"):
        run_arena(gauntlet(2, ply_cap=150), tmp_path, progress=False)
    with pytest.raises(ArenaError, match="other settings"):
        run_arena(gauntlet(2, seed=1), tmp_path, progress=False)
    lines = (tmp_path / "games.jsonl").read_text().splitlines()
    (tmp_path / "games.jsonl").write_text("\n".join(["garbage", *lines]) + "\n")
    with pytest.raises(ArenaError, match="line 1: not a game record"):
        run_arena(gauntlet(2), tmp_path, progress=False)
    (tmp_path / "games.jsonl").write_text("\n".join([lines[0], *lines]) + "\n")
    with pytest.raises(ArenaError, match="recorded twice"):
        run_arena(gauntlet(2), tmp_path, progress=False)


@pytest.mark.parametrize("change, message", [
    ({"white_score": None}, "without 'white_score'"),
    ({"round": "0"}, "a bad 'round': '0'"),
    ({"white_index": True}, "a bad 'white_index'"),
    ({"seeds": 7}, "a bad 'seeds'"),
    ({"game_string": None}, "without 'game_string'"),
    ({"white_index": 1, "black_index": 0}, "other player indices or round"),
    ({"white_score": 0.25}, "white_score 0.25 and result"),
    ({"move_seconds": None}, "move_seconds or move_stats missing or not a list"),
    ({"move_stats": {"nodes": 3}}, "move_seconds or move_stats missing or not a list"),
    ({"move_seconds": [0.1], "move_stats": [None, None]}, "1 move_seconds, 2 move_stats"),
    ({"move_seconds": [0.1] * 400, "move_stats": [None] * 400}, "400 move_seconds, 400 move_stats and"),
    ({"move_seconds": [-0.1], "move_stats": [None]}, "a bad 'move_seconds' entry"),
    ({"move_seconds": [True], "move_stats": [None]}, "a bad 'move_seconds' entry"),
    ({"move_seconds": [0.1], "move_stats": [{"nodes": 1.5}]}, "a bad 'move_stats' entry"),
    ({"move_seconds": [0.1], "move_stats": [7]}, "a bad 'move_stats' entry"),
])
def test_resume_validates_whole_records_naming_file_and_line(tmp_path, change, message):
    # before: only id and players were checked, and a missing field failed later ("rerun to resume")
    run_arena(gauntlet(2), tmp_path, progress=False)
    lines = (tmp_path / "games.jsonl").read_text().splitlines()
    record = json.loads(lines[0])
    record.update(change)
    record = {k: v for k, v in record.items() if v is not None}
    for number, text in ((1, [json.dumps(record), lines[1]]), (2, [lines[1], json.dumps(record)])):
        (tmp_path / "games.jsonl").write_text("\n".join(text) + "\n")  # a whole last line is checked too
        with pytest.raises(ArenaError, match=f"games.jsonl line {number}: .*{message}"):
            run_arena(gauntlet(2), tmp_path, progress=False)


def test_old_records_without_move_fields_resume_and_report_unknown(tmp_path):
    config = gauntlet(2)
    run_arena(config, tmp_path, progress=False)
    old = [{k: v for k, v in json.loads(line).items() if k not in ("move_seconds", "move_stats")}
           for line in (tmp_path / "games.jsonl").read_text().splitlines()]
    (tmp_path / "games.jsonl").write_text("".join(json.dumps(r) + "\n" for r in old))
    replayed = []
    report = run_arena(config, tmp_path, progress=False, on_record=replayed.append)
    assert replayed == [] and report.complete and report.records == old
    with open(tmp_path / "ratings.csv") as f:
        ratings = list(csv.DictReader(f))
    assert all(r[k] == "" for r in ratings for k in ("seconds_per_move", "sims_per_move", "nodes_per_move"))
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert all(r["seconds_per_move"] is None for r in summary["ratings"] + summary["pairings"])
    assert "s/move" not in format_report(report)  # no column of blanks


def test_parallel_workers_match_serial_and_resume(tmp_path):
    config = gauntlet(6)
    serial = run_arena(config, tmp_path / "serial", progress=False)
    with pytest.raises(StopError):
        run_arena(config, tmp_path / "parallel", workers=2, progress=False, on_record=stop_after(2))
    assert 2 <= len(ids_in(tmp_path / "parallel")) < 6
    report = run_arena(config, tmp_path / "parallel", workers=2, progress=False)
    assert report.complete
    assert sorted(ids_in(tmp_path / "parallel")) == sorted(r["id"] for r in serial.records)
    games = {r["id"]: r["game_string"] for r in serial.records}
    assert {r["id"]: r["game_string"] for r in report.records} == games  # seeds per game, not per worker


def test_sprt_stops_at_a_bound_and_resumes_decided(tmp_path):
    config = ArenaConfig("sprt", ("greedy", "random"), 60, elo0=0, elo1=100)
    report = run_arena(config, tmp_path, progress=False)
    assert report.decision == "H1" and report.complete
    assert report.decided_after % 2 == 0 and report.games_done == report.decided_after < 60
    assert report.llr >= config.sprt().upper
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["sprt"]["decision"] == "H1" and summary["anchor"] == "random"
    assert "H1 accepted" in format_report(report)
    more = []
    again = run_arena(config, tmp_path, progress=False, on_record=more.append)
    assert more == [] and again.decision == "H1"
    config_b = ArenaConfig("sprt", ("random", "greedy"), 60, elo0=0, elo1=100)
    assert run_arena(config_b, tmp_path / "b", progress=False).decision == "H0"


def test_bad_settings_are_refused(tmp_path):
    """Settings an ArenaConfig can judge alone are refused when it is built; the rest (player
    specs, openings) when the arena starts."""
    cases = [
        (lambda: ArenaConfig("gauntlet", ("greedy",), 2), "at least two players"),
        (lambda: ArenaConfig("gauntlet", ("greedy", "greedy"), 2), "named twice"),
        (lambda: gauntlet(3), "even"),
        (lambda: ArenaConfig("sprt", ("greedy", "random", "random:"), 2), "exactly two"),
        (lambda: ArenaConfig("sprt", ("greedy", "random"), 2, elo0=5, elo1=0), "elo1 > elo0"),
        (lambda: ArenaConfig("gauntlet", ("greedy", "nosuchkind"), 2), "unknown player kind"),
        (lambda: ArenaConfig("gauntlet", ("greedy", "alphabeta:depth=0"), 2), "depth"),
        (lambda: gauntlet(2, openings="random:x"), "random:PLIES"),
        (lambda: gauntlet(2, openings=str(tmp_path / "none.txt")), "cannot read"),
        (lambda: gauntlet(2, openings="random:6", ply_cap=6), "ply cap 6"),
    ]
    for build, message in cases:
        with pytest.raises(ArenaError, match=message):
            run_arena(build(), tmp_path / "x", progress=False)
    with pytest.raises(ArenaError, match="anchor"):
        run_arena(gauntlet(2), tmp_path / "y", anchor="alphabeta", progress=False)


# ----- time and search per move -------------------------------------------------------------------
TIMED_PLAYERS = ("alphabeta:depth=1", "random", "greedy")
TIMED_RECORDS = [whole(r) for r in [
    # plies 4..7 after a 4-ply opening: alphabeta (White) on 4 and 6, random on 5 and 7
    {"id": "0v1-r0-a", "white_index": 0, "black_index": 1, "white_score": 1.0, "round": 0, "plies": 8,
     "move_seconds": [0.5, 0.25, 0.25, 0.75], "move_stats": [{"nodes": 100}, None, {"nodes": 300}, None]},
    # colours swapped, timed from ply 5 (an odd start): alphabeta (Black) on 5, random on 6
    {"id": "0v1-r0-b", "white_index": 1, "black_index": 0, "white_score": 0.5, "round": 0, "plies": 7,
     "move_seconds": [0.75, 0.5], "move_stats": [{"nodes": 500, "sims": 7}, None]},
    {"id": "0v2-r0-a", "white_index": 0, "black_index": 2, "white_score": 1.0, "round": 0, "plies": 5,
     "move_seconds": [0.25], "move_stats": [{"nodes": 0}]},
    # written before the per-move fields: counts for the score, not for the means
    {"id": "0v2-r0-b", "white_index": 2, "black_index": 0, "white_score": 0.0, "round": 0, "plies": 30},
]]


def test_report_means_per_move_from_records(tmp_path):
    config = ArenaConfig("gauntlet", TIMED_PLAYERS, 2)
    report = build_report(config, tmp_path, 1, TIMED_RECORDS, 4)
    nan = float("nan")
    # alphabeta: 0.5 + 0.25 + 0.75 + 0.25 s over 4 moves; nodes 100 + 300 + 500 + 0 over 4; sims 7 over 1
    expected = [0.4375, 7.0, 225.0, 0.5, nan, nan, nan, nan, nan]  # exact in binary
    got = [m[k] for m in report.per_move for k in ("seconds_per_move", "sims_per_move", "nodes_per_move")]
    assert got == pytest.approx(expected, abs=0, rel=0, nan_ok=True)
    pairs = {(r["player"], r["opponent"]): r for r in pairing_rows(report)}
    vs_random, vs_greedy = pairs["alphabeta:depth=1", "random"], pairs["alphabeta:depth=1", "greedy"]
    assert (vs_random["seconds_per_move"], vs_random["nodes_per_move"], vs_random["sims_per_move"]) == (
        0.5, 300.0, 7.0)
    assert vs_random["opponent_seconds_per_move"] == 0.5
    assert (vs_greedy["seconds_per_move"], vs_greedy["nodes_per_move"]) == (0.25, 0.0)
    assert math.isnan(vs_greedy["sims_per_move"]) and math.isnan(vs_greedy["opponent_seconds_per_move"])
    write_report(report)
    with open(tmp_path / "ratings.csv") as f:
        ratings = {r["player"]: r for r in csv.DictReader(f)}
    assert [(ratings[n]["seconds_per_move"], ratings[n]["sims_per_move"], ratings[n]["nodes_per_move"])
            for n in TIMED_PLAYERS] == [("0.437500", "7.0", "225.0"), ("0.500000", "", ""), ("", "", "")]
    assert ratings["random"]["elo"] == "0.00" and ratings["greedy"]["spec"] == "greedy"  # old columns kept
    with open(tmp_path / "pairings.csv") as f:
        rows = {r["opponent"]: r for r in csv.DictReader(f)}
    assert (rows["random"]["seconds_per_move"], rows["random"]["opponent_seconds_per_move"],
            rows["random"]["opponent_nodes_per_move"]) == ("0.500000", "0.500000", "")
    assert (rows["greedy"]["nodes_per_move"], rows["greedy"]["opponent_seconds_per_move"]) == ("0.0", "")
    summary = json.loads((tmp_path / "summary.json").read_text())
    by_player = {r["player"]: r for r in summary["ratings"]}
    assert by_player["alphabeta:depth=1"]["sims_per_move"] == 7.0
    assert by_player["greedy"]["nodes_per_move"] is None
    text = format_report(report)
    ratings_table = text[text.index("rank  player"):text.index("\n\nPairings")].splitlines()
    assert ratings_table[0].split()[-3:] == ["s/move", "sims/move", "nodes/move"]
    assert [line.split()[1:] for line in ratings_table[1:]] == [
        ["alphabeta:depth=1", "+120", "[-287,", "+653]", "87.5%", "of", "4", "0.4375", "7", "225"],
        ["random", "+0", "anchor", "25.0%", "of", "2", "0.5000"],  # its unknown sims and nodes: blank
        ["greedy", "-159", "[-1076,", "+515]", "0.0%", "of", "2"]]
    pairings_table = text[text.index("Pairings"):text.index("\n\nHow the games ended")].splitlines()[1:]
    assert pairings_table[0].endswith("Elo   95% interval  s/move  opp s/move")
    assert [line.split()[-2:] for line in pairings_table[1:]] == [["0.5000", "0.5000"], ["+1135]", "0.2500"]]


# ----- statistics in the tables: intervals of draws and sweeps, unrated players ---------------------
def squeeze(text: str) -> str:
    """``text`` with runs of spaces as one (table columns without their padding)."""
    return re.sub(" +", " ", text)


SWEEP_PLAYERS = ("greedy", "random", "alphabeta:depth=1", "alphabeta:depth=2")
"""greedy sweeps the anchor random and the two others, 4-0 each: those two are only the prior's."""


def test_all_draws_give_one_wide_interval_in_every_table(tmp_path):
    """10 draws once printed 50.0% [50.0, 50.0] +0 [+0, +0] beside [-205, +205]."""
    report = build_report(ArenaConfig("gauntlet", ("greedy", "random"), 10), tmp_path, 1,
                          match_records((0, 1, 0, 10, 0)), 10)
    text = squeeze(format_report(report))
    assert "greedy random 0 10 0 50.0% of 10 [22.9, 77.1] +0 [-211, +211]" in text
    assert "1 greedy +0 [-211, +211] 50.0% of 10" in text  # the ratings table says the same
    write_report(report)
    summary = json.loads((tmp_path / "summary.json").read_text())
    (row,), rating = summary["pairings"], summary["ratings"][0]
    assert (round(row["score_lo"], 4), round(row["score_hi"], 4)) == (0.2285, 0.7715)
    assert (rating["elo_lo"], rating["elo_hi"]) == pytest.approx((row["elo_lo"], row["elo_hi"]), abs=1e-6)
    assert "likelihood ratio" in summary["rating_model"] and summary["prior_draws"] == 1.0


def test_unrated_players_have_no_rank_no_elo_and_a_flag(tmp_path):
    """Players only the prior places were once listed as +0 [-718, +718] and ranked."""
    config = ArenaConfig("gauntlet", SWEEP_PLAYERS, 4)
    report = build_report(config, tmp_path, 1, match_records(*((0, j, 4, 0, 0) for j in (1, 2, 3))), 12)
    rows = rating_rows(report)
    assert [(r["rank"], r["player"], r["rated"]) for r in rows] == [
        (1, "greedy", True), (2, "random", True), (None, "alphabeta:depth=1", False),
        (None, "alphabeta:depth=2", False)]
    assert all(math.isnan(r["elo"]) and math.isnan(r["elo_lo"]) for r in rows[2:])
    table = squeeze(format_report(report))
    assert "- alphabeta:depth=1 unrated - 0.0% of 4\n- alphabeta:depth=2 unrated - 0.0% of 4" in table
    write_report(report)
    summary = json.loads((tmp_path / "summary.json").read_text())
    unrated = [r for r in summary["ratings"] if not r["rated"]]
    assert [(r["rank"], r["elo"], r["elo_lo"], r["elo_hi"]) for r in unrated] == [(None,) * 4] * 2
    with open(tmp_path / "ratings.csv") as f:
        csv_rows = {r["player"]: r for r in csv.DictReader(f)}
    assert (csv_rows["alphabeta:depth=2"]["rank"], csv_rows["alphabeta:depth=2"]["elo"]) == ("", "")
    assert csv_rows["alphabeta:depth=2"]["rated"] == "False" and csv_rows["greedy"]["rated"] == "True"


def test_every_printed_score_carries_its_game_count(tmp_path):
    config = ArenaConfig("roundrobin", ("greedy", "random", "alphabeta:depth=1"), 4)
    records = match_records((0, 1, 3, 1, 0), (0, 2, 1, 1, 2))  # random and alphabeta never met
    text = squeeze(format_report(build_report(config, tmp_path, 1, records, 12)))
    percent = re.findall(r"\d+\.\d%(?: of \d+)?", text)
    assert len(percent) == 5 and all(" of " in p for p in percent), percent
    assert "2 greedy +241 [-91, +757] 62.5% of 8" in text and "greedy random 3 1 0 87.5% of 4" in text
    pairings = text[:text.index("\n\nHow the games ended")]
    assert pairings.endswith("random alphabeta:depth=1 0 0 0 - of 0 - - -")  # no games: no interval


# ----- command line and plot ----------------------------------------------------------------------
def test_cli_runs_and_errors_in_one_line(tmp_path, capsys):
    from arena.cli import main

    out = tmp_path / "rr"
    args = ["roundrobin", "random", "greedy", "random:", "--games-per-pairing", "2", "--out", str(out),
            "--no-progress"]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "rank" in text and "anchor random = 0" in text and (out / "summary.json").exists()
    book = tmp_path / "book.txt"
    book.write_text("Base;InProgress;Black[1];wS1\nnonsense\n")
    errors = [
        ["gauntlet", "greedy", "random", "--games-per-pairing", "3"],
        ["gauntlet", "greedy", "nosuch:x=1"],
        ["gauntlet", "greedy", "random", "--openings", str(book)],
        [*args[:4], "--games-per-pairing", "2", "--ply-cap", "150", "--out", str(out)],  # other settings
        ["gauntlet", "greedy", "random", "--bogus-flag"],
        ["sprt", "greedy"],
        ["plot", str(tmp_path / "nowhere")],
    ]
    for argv in errors:
        if "--out" not in argv and argv[0] != "plot":
            argv = [*argv, "--out", str(tmp_path / "e")]
        try:
            code = main(argv)
        except SystemExit as e:  # argparse's usage errors
            code = e.code
        err = capsys.readouterr().err
        assert code == 2, argv
        assert err.startswith("hive-arena: error: ") and err.count("\n") == 1 and "Traceback" not in err


def test_cli_usage_errors_exit_2_without_traceback():
    proc = subprocess.run([sys.executable, "-m", "scripts.arena", "gauntlet", "greedy", "random",
                           "--games-per-pairing", "3", "--bogus"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 2 and proc.stderr.startswith("hive-arena: error: ")
    assert proc.stderr.count("\n") == 1
    proc = subprocess.run([sys.executable, "-m", "scripts.arena", "gauntlet", "greedy", "random",
                           "--games-per-pairing", "3"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stderr == ("hive-arena: error: games per pairing must be even and "
                                                    ">= 2 (colours alternate in pairs), got 3\n")


def interruptible() -> None:
    """SIGINT as a terminal's: a suite started in the background (``cmd &``) ignores it, and so
    would the match it starts."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_ends_a_match_in_one_line_and_keeps_its_games(tmp_path):
    out = tmp_path / "match"  # 400 games of about 0.7 s: minutes, so the signal comes mid-match
    argv = ["gauntlet", "alphabeta", "greedy", "--time", "0.05", "--games-per-pairing", "400",
            "--out", str(out), "--no-progress"]
    proc = subprocess.Popen([sys.executable, "-m", "scripts.arena", *argv], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=interruptible)
    games = out / GAMES_FILE
    assert wait_for(proc, lambda: games.is_file() and games.read_text().count("\n") >= 2, timeout=120)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err == "\nhive-arena: interrupted; rerun the same command to resume\n", err
    assert games.read_text().count("\n") >= 2  # the games played are kept


def test_checkpoint_steps():
    assert checkpoint_step("alphazero:ckpt=runs/a/ckpt_00001200.pt,sims=64") == (
        "alphazero:ckpt=runs/a/ckpt_*.pt,sims=64", 1200)
    assert checkpoint_step("alphazero:sims=8,ckpt=run3/model-500") == (
        "alphazero:sims=8,ckpt=run3/model-*", 500)
    assert checkpoint_step("alphabeta:depth=2") is None
    assert checkpoint_step("alphazero:ckpt=best.pt") is None


def test_plot_writes_a_png(tmp_path):
    def summary(folder: str, rows: list[tuple[str, float | None, float, float]]) -> Path:
        path = tmp_path / folder
        path.mkdir()
        ratings = [{"player": p, "elo": e, "elo_lo": lo, "elo_hi": hi} for p, e, lo, hi in rows]
        (path / "summary.json").write_text(json.dumps({"anchor": "random", "ratings": ratings}))
        return path

    first = summary("a", [("random", 0.0, 0.0, 0.0), ("greedy", 310.0, 250.0, 370.0),
                          ("alphazero:ckpt=r/ckpt_00000100.pt,sims=32", 120.0, 60.0, 180.0),
                          ("alphazero:ckpt=r/ckpt_00000200.pt,sims=32", 280.0, 220.0, 340.0)])
    second = summary("b", [("random", 0.0, 0.0, 0.0), ("nobody", None, 0.0, 0.0),
                           ("alphazero:ckpt=r/ckpt_00000300.pt,sims=32", 420.0, 330.0, 510.0),
                           ("alphazero:ckpt=r/ckpt_00000300.pt,sims=64", 470.0, 380.0, 560.0)])
    out = plot_ratings([first, second], tmp_path / "plots" / "ratings.png")
    data = out.read_bytes()
    assert data.startswith(PNG_MAGIC) and len(data) > 5000
    from arena.cli import main

    assert main(["plot", str(first), "--out", str(tmp_path / "cli.png")]) == 0
    assert (tmp_path / "cli.png").read_bytes().startswith(PNG_MAGIC)
