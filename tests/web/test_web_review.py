"""hive-web's review mode through its JSON API: a game loaded from any record format, reviewed
in the background (progress, then marks, White's expected score and the moves' cells),
cancelled, and refused in one line where it cannot run."""

from __future__ import annotations

import time

import pytest
from fastapi.testclient import TestClient

from hive_env import Game
from models.gnn import build_model
from search.checkpoint import save_checkpoint
from web import create_app

from helpers import ROOT, WIN_IN_ONE, WIN_IN_ONE_MOVE, assert_refused

RECORDS = ROOT / "tests" / "data" / "records"


def load(client, **body) -> dict:
    r = client.post("/api/games", json={"white": "human", "black": "human", **body})
    assert r.status_code == 201, r.text
    return r.json()


def wait_review(client, gid: str, timeout: float = 120) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = client.get(f"/api/games/{gid}/review").json()
        if job["status"] not in ("queued", "running"):
            return job
        time.sleep(0.1)
    raise AssertionError("the review did not finish")


@pytest.mark.parametrize("name", ["mzinga.pgn", "HV-alice-bob-2019-01-01-1234.sgf", "games.jsonl",
                                  "games_0.txt"])
def test_a_record_of_each_format_loads_as_a_game(client, name):
    from hive_env.records import read_game

    want = read_game(RECORDS / name).game
    state = load(client, record=(RECORDS / name).read_text())
    assert state["moves"] == want.move_strings and state["game_type"] == want.game_type


def test_the_second_game_of_a_record_and_one_past_its_end(client):
    from hive_env.records import read_games

    games = read_games(RECORDS / "games_0.txt")
    assert len(games) >= 2
    state = load(client, record=(RECORDS / "games_0.txt").read_text(), record_game=2)
    assert state["moves"] == games[1].game.move_strings
    r = client.post("/api/games", json={"record": (RECORDS / "games_0.txt").read_text(),
                                        "record_game": len(games) + 1})
    assert_refused(r, 400, "there is no game")


def test_an_unreadable_record_is_refused_in_one_line(client):
    r = client.post("/api/games", json={"record": "[GameType \"Base\"]\n1. wS1\n2. bS1 wS1-\n3. wQ bS1-\n"})
    detail = assert_refused(r, 400, "ply 3")
    assert detail.startswith("bad record"), detail


def test_a_review_marks_the_missed_win_and_gives_the_cells_of_both_moves(client):
    game = Game.from_string(WIN_IN_ONE)
    missed = next(m for m in game.legal_move_strings() if m != WIN_IN_ONE_MOVE and not _wins(game, m))
    after = game.copy()
    after.play(missed)
    state = load(client, game_string=after.game_string())
    gid = state["id"]
    r = client.post(f"/api/games/{gid}/review", json={"sims": 16})
    assert r.status_code == 202, r.text
    job = wait_review(client, gid)
    assert job["status"] == "done", job
    assert job["progress"] == 1.0 and job["sims"] == 16
    plies = job["plies_reviewed"]
    assert [p["played"] for p in plies] == state["moves"]
    assert len(job["white_scores"]) == len(plies) + 1
    assert all(0.0 <= s <= 1.0 for s in job["white_scores"])
    last = plies[-1]
    assert last["tactic"] == "missed win" and last["mark"] == "blunder"
    assert last["played_cells"]["move"] == missed and last["played_cells"]["to"] is not None
    # the best move's cells are those the page gets for that move in that position
    view = client.get(f"/api/games/{gid}?ply={last['ply']}").json()
    assert view["ply"] == last["ply"]
    before = load(client, game_string=WIN_IN_ONE)
    by_move = {m["move"]: m for m in before["legal_moves"]}
    for key in ("played_cells", "best_cells"):
        cells = last[key]
        assert cells["to"] == by_move[cells["move"]]["to"] and cells["from"] == by_move[cells["move"]]["from"]


def _wins(game: Game, move: str) -> bool:
    g = game.copy()
    g.play(move)
    return g.is_over


def test_a_review_can_be_cancelled(client):
    from hive_env.records import read_game

    text = read_game(RECORDS / "mzinga.pgn").game.game_string()
    gid = load(client, game_string=text)["id"]
    assert client.post(f"/api/games/{gid}/review", json={"sims": 800}).status_code == 202
    assert client.delete(f"/api/games/{gid}/review").status_code == 204
    job = wait_review(client, gid, timeout=60)
    assert job["status"] == "cancelled" and "plies_reviewed" not in job


def test_review_refusals(client):
    gid = load(client, game_type="Base")["id"]
    r = client.post(f"/api/games/{gid}/review", json={"sims": 16})
    assert_refused(r, 409, "nothing to review")
    r = client.get(f"/api/games/{gid}/review")
    assert_refused(r, 404)
    gid = load(client, game_string="Base;InProgress;White[2];wS1;bS1 wS1-")["id"]
    refused = (({"sims": 0}, 422, "sims"), ({"sims": 100_000}, 422, "sims"),
               ({"model": "nope"}, 400, "unknown model"))
    for body, status, where in refused:
        assert_refused(client.post(f"/api/games/{gid}/review", json=body), status, where)
    assert client.get("/api/games/nope/review").status_code == 404


def test_a_deleted_game_takes_its_review_with_it(client):
    from hive_env.records import read_game

    text = read_game(RECORDS / "mzinga.pgn").game.game_string()
    gid = load(client, game_string=text)["id"]
    client.post(f"/api/games/{gid}/review", json={"sims": 800})
    job = client.app.state.server.reviews.get(gid)
    assert client.delete(f"/api/games/{gid}").status_code == 204
    assert job.cancel.is_set()


def test_a_client_has_one_review_at_a_time_and_the_server_a_bounded_number(tmp_path):
    from hive_env.records import read_game

    save_checkpoint(tmp_path / "ckpt_1.pt", build_model("tiny"))
    text = read_game(RECORDS / "mzinga.pgn").game.game_string()
    with TestClient(create_app(tmp_path, review_queue=2)) as first:
        second, third = TestClient(first.app), TestClient(first.app)  # other clients: their own cookies
        a, b = load(first, game_string=text)["id"], load(first, game_string=text)["id"]
        assert first.post(f"/api/games/{a}/review", json={"sims": 800}).status_code == 202
        assert first.post(f"/api/games/{b}/review", json={"sims": 800}).status_code == 202
        assert wait_review(first, a, timeout=60)["status"] == "cancelled"  # the client's newer review won
        c = load(second, game_string=text)["id"]
        assert second.post(f"/api/games/{c}/review", json={"sims": 800}).status_code == 202
        d = load(third, game_string=text)["id"]
        r = third.post(f"/api/games/{d}/review", json={"sims": 800})
        assert_refused(r, 429)
        for client, gid in ((first, b), (second, c)):
            assert client.delete(f"/api/games/{gid}/review").status_code == 204


@pytest.mark.parametrize("bad", ["\u2028", "\u2029", "\x00", "\x1b"])
def test_record_text_with_separators_or_controls_is_refused(client, bad):
    r = client.post("/api/games", json={"record": f"Base;InProgress;White[2];wS1;{bad}bS1 wS1-"})
    assert_refused(r, 422, f"U+{ord(bad):04X}")


def test_a_game_replaced_by_a_new_one_takes_its_review_with_it(tmp_path):
    from hive_env.records import read_game

    save_checkpoint(tmp_path / "ckpt_1.pt", build_model("tiny"))
    text = read_game(RECORDS / "mzinga.pgn").game.game_string()
    with TestClient(create_app(tmp_path, per_client=1)) as client:
        gid = load(client, game_string=text)["id"]
        assert client.post(f"/api/games/{gid}/review", json={"sims": 800}).status_code == 202
        job = client.app.state.server.reviews.get(gid)
        load(client, game_type="Base")  # the client's cap is 1: this replaces the reviewed game
        assert job.cancel.is_set() and client.app.state.server.reviews.get(gid) is None
