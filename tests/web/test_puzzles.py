"""Puzzles (``web.puzzles``, ``scripts.puzzles``, ``GET/POST /api/puzzles...``): every shipped
puzzle re-solved by the exact solver, the builder on a few game records, and the API's right
and wrong answers."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from hive_env import Game
from search import Network
from web import puzzles

from helpers import ROOT, WIN_IN_ONE, WIN_IN_ONE_MOVE

SHIPPED = {"Base": puzzles.DATA / "puzzles_base.json", "Base+MLP": puzzles.DATA / "puzzles_base_mlp.json"}


@pytest.mark.parametrize("game_type", list(SHIPPED))
def test_every_shipped_puzzle_is_verified_by_the_solver(game_type):
    doc = json.loads(SHIPPED[game_type].read_text())
    found = doc["puzzles"]
    assert doc["game_type"] == game_type and len(found) >= 30
    assert {p["kind"] for p in found} == set(puzzles.KINDS)
    assert {p["difficulty"] for p in found} == set(puzzles.DIFFICULTIES)
    assert len({p["id"] for p in found}) == len(found)
    for p in found:
        assert p["game_type"] == game_type
        assert puzzles.check(p) == [], p["id"]
        assert p["difficulty"] == puzzles.bucket(p["prior"]) and p["rank"] >= 1
    assert [p["prior"] for p in found] == sorted((p["prior"] for p in found), reverse=True)  # easiest first


def test_only_defence_accepts_a_set_of_equivalent_moves_only():
    game = Game.from_string(WIN_IN_ONE)
    assert puzzles.solve(game) == ("win1", [game.parse_move(WIN_IN_ONE_MOVE)])
    for p in puzzles.book().select(kind="defend"):
        game = Game.from_string(p["game_string"])
        moves = [game.parse_move(s) for s in p["solutions"]]
        assert puzzles._equivalent(moves)


def test_the_builder_finds_checks_and_rates_puzzles_deterministically(tmp_path):
    records = tmp_path / "games.txt"
    records.write_text(WIN_IN_ONE + "\n")
    suite = tmp_path / "suite.txt"
    rows = [line.split("\t") for line in (ROOT / "tests" / "data" / "tactics.txt").read_text().splitlines()
            if line.split("\t")[1].startswith("Base;")]
    lines = ([r for r in rows if r[0] == "win1"][:5] + [r for r in rows if r[0] == "win2"][:5]
             + [r for r in rows if r[0] == "defend" and r[2].count(";") < 2][:10])
    suite.write_text("".join("\t".join(r) + "\n" for r in lines))
    games_0 = ROOT / "tests" / "data" / "records" / "games_0.txt"
    sources = [("games", puzzles.record_positions(records)), ("records", puzzles.record_positions(games_0)),
               ("suite", puzzles.suite_positions(suite))]
    network = Network.load("shipped:Base")
    built = puzzles.build(sources, "Base", network, 3, seed=0)
    assert built == puzzles.build(sources, "Base", network, 3, seed=0)
    kinds = [p["kind"] for p in built]
    assert {k: kinds.count(k) for k in puzzles.KINDS} == {"win1": 3, "win2": 3, "defend": 3}
    for p in built:
        assert puzzles.check(p) == []
    assert [p["prior"] for p in built] == sorted((p["prior"] for p in built), reverse=True)
    assert puzzles.check(built[0] | {"solutions": ["wQ -bQ"]})

    # the command line: the same puzzles in a file, which `check` passes
    out = tmp_path / "puzzles.json"
    command = [sys.executable, "-m", "scripts.puzzles", "build", str(records), str(games_0), "--suite",
               str(suite), "--game-type", "Base", "--max-per-kind", "3", "--out", str(out)]
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    doc = json.loads(out.read_text())
    assert doc["network"] == "shipped:Base" and len(doc["sources"]) == 3
    assert [p["id"] for p in doc["puzzles"]] == [p["id"] for p in built]
    run = subprocess.run([sys.executable, "-m", "scripts.puzzles", "check", str(out)], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and "9 puzzles: 3 win1, 3 win2, 3 defend" in run.stdout, run.stderr


def test_the_api_serves_puzzles_without_their_solutions(client):
    listing = client.get("/api/puzzles", params={"game_type": "Base"}).json()
    assert set(listing["game_types"]) == {"Base", "Base+MLP"} and listing["total"] >= 30
    first = client.get("/api/puzzles/next", params={"game_type": "Base"}).json()
    assert "solutions" not in first and "lines" not in first and first["task"]
    assert first["id"] == puzzles.book().select(game_type="Base")[0]["id"]
    second = client.get("/api/puzzles/next", params={"game_type": "Base", "after": first["id"]}).json()
    assert second["id"] != first["id"]
    hard = client.get("/api/puzzles/next", params={"game_type": "Base+MLP", "kind": "win2",
                                                   "difficulty": "hard"}).json()
    assert (hard["kind"], hard["difficulty"], hard["game_type"]) == ("win2", "hard", "Base+MLP")
    assert client.get(f"/api/puzzles/{hard['id']}").json() == hard
    assert client.get("/api/puzzles/nothere").status_code == 404
    assert client.get("/api/puzzles/next", params={"game_type": "Base+M"}).status_code == 404
    assert client.get("/api/puzzles/next", params={"kind": "win9"}).status_code == 422


@pytest.mark.parametrize("kind", list(puzzles.KINDS))
def test_the_api_says_right_or_wrong_and_shows_the_solution(client, kind):
    p = puzzles.book().select(game_type="Base", kind=kind)[0]
    game = Game.from_string(p["game_string"])
    for move in p["solutions"]:
        got = client.post(f"/api/puzzles/{p['id']}/answer", json={"move": move}).json()
        assert got["correct"] and got["move"] == move and got["solutions"] == p["solutions"]
        after = game.copy()
        for m in got["line"]:
            after.play(m)
        if kind != "defend":  # the line shown wins
            assert after.state == ("WhiteWins", "BlackWins")[game.side_to_move]
        assert len(got["line"]) in (2, 3) if kind == "win2" else got["line"] == [move]
    wrong = next(s for s in game.legal_move_strings() if s not in p["solutions"])
    got = client.post(f"/api/puzzles/{p['id']}/answer", json={"move": wrong}).json()
    assert not got["correct"] and got["move"] == wrong and got["line"][0] == p["solutions"][0]
    illegal = client.post(f"/api/puzzles/{p['id']}/answer", json={"move": "wQ wQ-"})
    assert illegal.status_code == 400 and "illegal move" in illegal.json()["detail"]
    assert client.post(f"/api/puzzles/{p['id']}/answer", json={"move": 3}).status_code == 422
