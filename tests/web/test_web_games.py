"""hive-web's game list, records saved as files, and hints: ``GET /api/games`` lists
the client's own games, ``GET /api/games/{id}/record`` writes a game as a GameString, Mzinga PGN
or boardspace SGF that ``hive_env.records`` reads back, and ``POST /api/games/{id}/hint`` gives
the network's best move for the person to move and counts it in the game (and its records)."""

from __future__ import annotations

import pytest

from hive_env.records import read_game
from web.owners import COOKIE

from helpers import MIDGAME, WIN_IN_ONE, random_game


def owner(name: str) -> dict:
    return {"cookie": f"{COOKIE}={(name * 32)[:32]}"}


ALICE, BOB = owner("alice"), owner("bob")
HUMANS = {"white": "human", "black": "human"}


def new_game(client, who: dict, **body) -> dict:
    r = client.post("/api/games", json={**HUMANS, **body}, headers=who)
    assert r.status_code == 201, r.text
    return r.json()


@pytest.mark.parametrize("fmt", ["gamestring", "pgn", "sgf"])
def test_a_game_is_saved_as_each_format_and_read_back(client, fmt):
    game = random_game("Base+MLP", 5, 60, prefer_moves=True)
    gid = new_game(client, ALICE, game_string=game.game_string())["id"]
    r = client.get(f"/api/games/{gid}/record", params={"format": fmt}, headers=ALICE)
    assert r.status_code == 200, r.text
    suffix = {"gamestring": "txt", "pgn": "pgn", "sgf": "sgf"}[fmt]
    assert r.headers["content-disposition"] == f'attachment; filename="hive-Base-MLP-{game.ply}.{suffix}"'
    assert r.headers["content-type"].startswith("text/plain")
    back = read_game(r.text)
    assert back.format == fmt and back.game.moves == game.moves
    if fmt == "pgn":
        assert back.meta["Hints"] == "0"
    if fmt == "sgf":  # SGF: the hints in a comment, which the reader passes over
        assert "C[Hints: 0]" in r.text
    if fmt != "gamestring":
        assert back.meta["Event"] == "hive-web"
        assert back.meta["White"] == back.meta["Black"]  # two people: the seats' label
    # the loader takes it back too
    again = new_game(client, ALICE, record=r.text)
    assert again["moves"] == client.get(f"/api/games/{gid}", headers=ALICE).json()["moves"]


def test_a_record_is_refused_for_an_unknown_format_or_another_client(client):
    gid = new_game(client, ALICE)["id"]
    r = client.get(f"/api/games/{gid}/record", params={"format": "xml"}, headers=ALICE)
    assert r.status_code == 422 and "format" in r.json()["detail"]
    assert client.get(f"/api/games/{gid}/record", headers=BOB).status_code == 404


def test_the_list_holds_the_clients_own_games_most_recent_first(client):
    carol, dave = owner("carol"), owner("dave")
    first = new_game(client, carol, game_type="Base+M")["id"]
    second = new_game(client, carol, game_string=MIDGAME)["id"]
    new_game(client, dave)
    games = client.get("/api/games", headers=carol).json()["games"]
    assert [g["id"] for g in games] == [second, first]
    top = games[0]
    assert top["game_type"] == "Base" and top["ply"] == 16 and top["state"] == "InProgress"
    assert top["players"]["white"]["kind"] == "human" and top["hints"] == 0 and not top["over"]
    assert top["touched"] >= top["created"] > 0
    client.get(f"/api/games/{first}", headers=carol)  # touched: now the most recent
    assert [g["id"] for g in client.get("/api/games", headers=carol).json()["games"]] == [first, second]
    assert client.delete(f"/api/games/{first}", headers=carol).status_code == 204
    assert [g["id"] for g in client.get("/api/games", headers=carol).json()["games"]] == [second]
    assert len(client.get("/api/games", headers=dave).json()["games"]) == 1
    assert client.get("/api/games", headers=owner("erin")).json()["games"] == []


def test_a_hint_is_a_legal_move_counted_in_the_game_and_its_records(client):
    gid = new_game(client, ALICE, game_string=MIDGAME)["id"]
    answer = client.get(f"/api/games/{gid}/legal-moves", headers=ALICE).json()
    legal = {m["move"] for m in answer["legal_moves"]}
    r = client.post(f"/api/games/{gid}/hint", params={"sims": 8}, headers=ALICE)
    assert r.status_code == 200, r.text
    hint = r.json()
    assert hint["move"]["move"] in legal and hint["hints"] == 1 and hint["ply"] == 16
    assert hint["move"]["to"] is not None and hint["sims"] >= 1
    assert client.post(f"/api/games/{gid}/hint", params={"sims": 0}, headers=ALICE).json()["hints"] == 2
    state = client.get(f"/api/games/{gid}", headers=ALICE).json()
    assert state["hints"] == 2
    assert client.get("/api/games", headers=ALICE).json()["games"][0]["hints"] == 2
    for fmt in ("pgn", "sgf"):
        text = client.get(f"/api/games/{gid}/record", params={"format": fmt}, headers=ALICE).text
        assert "Hints" in text
    pgn = client.get(f"/api/games/{gid}/record?format=pgn", headers=ALICE).text
    assert read_game(pgn).meta["Hints"] == "2"
    assert client.post(f"/api/games/{gid}/hint", headers=BOB).status_code == 404


def test_a_hint_is_refused_when_the_game_is_over_or_an_engine_is_to_move(client):
    gid = new_game(client, ALICE, game_string=WIN_IN_ONE)["id"]
    client.post(f"/api/games/{gid}/play", json={"move": "wA2 /bQ"}, headers=ALICE)
    r = client.post(f"/api/games/{gid}/hint", headers=ALICE)
    assert r.status_code == 409 and "over" in r.json()["detail"]
    engine = new_game(client, ALICE, white="random", black="human")["id"]
    r = client.post(f"/api/games/{engine}/hint", headers=ALICE)
    assert r.status_code == 409 and "engine" in r.json()["detail"]
    assert client.get(f"/api/games/{gid}", headers=ALICE).json()["hints"] == 0
