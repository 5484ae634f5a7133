"""``hive-web``'s JSON API through Starlette's TestClient: every endpoint, and every bad input
answered 4xx with a one-line reason while the game stays as it was."""

from __future__ import annotations

import subprocess
import sys
import time
from collections import Counter

import pytest
from fastapi.testclient import TestClient

from hive_env import Game
from hive_env.pieces import BUG_RULES
from models.gnn import build_model
from players import Budget
from search.alphazero_player import DEFAULT_LEAVES
from search.checkpoint import save_checkpoint
from web import create_app

from helpers import MIDGAME, ROOT, WIN_IN_ONE, WIN_IN_ONE_MOVE, assert_refused


@pytest.fixture(scope="module")
def listing_models(tmp_path_factory):
    """A models directory holding one tiny untrained checkpoint, a damaged one, and a link
    leading out of the directory."""
    root = tmp_path_factory.mktemp("models")
    save_checkpoint(root / "run1" / "checkpoints" / "ckpt_1.pt", build_model("tiny"))
    (root / "broken.pt").write_bytes(b"not a checkpoint")
    outside = tmp_path_factory.mktemp("outside")
    save_checkpoint(outside / "secret.pt", build_model("tiny"))
    (root / "escape.pt").symlink_to(outside / "secret.pt")
    return root


@pytest.fixture(scope="module")
def app_models(listing_models):
    """``client`` (tests/web/conftest.py) serves the listing's directory."""
    return listing_models


def new_game(client, **body) -> dict:
    r = client.post("/api/games", json={"white": "human", "black": "human", **body})
    assert r.status_code == 201, r.text
    return r.json()


# ----- the endpoints --------------------------------------------------------------------------
def test_players_are_an_allow_list_by_id(client, listing_models):
    r = client.get("/api/players")
    assert r.status_code == 200
    ids = [p["id"] for p in r.json()["players"]]
    assert ids[:3] == ["human", "shipped", "newest"]
    for i in ("random", "greedy", "alphabeta-1", "alphabeta-2", "alphabeta-3", "alphabeta-4"):
        assert i in ids
    ckpts = [i for i in ids if i.startswith("ckpt-")]
    assert len(ckpts) == 1  # the damaged file and the link out of the directory are not listed
    assert str(listing_models) not in r.text and "secret" not in r.text and "broken" not in r.text
    assert r.json()["game_types"][0] == "Base" and r.json()["game_types"][-1] == "Base+MLP"


def test_the_bug_table_names_each_kind_as_the_page_shows_it(client):
    r = client.get("/api/bugs")
    assert r.status_code == 200
    bugs, sides = r.json()["bugs"], r.json()["sides"]
    assert [(b["letter"], b["name"], b["count"], b["expansion"]) for b in bugs] == [
        ("Q", "Queen", 1, 0), ("S", "Spider", 2, 0), ("B", "Beetle", 2, 0), ("G", "Grasshopper", 3, 0),
        ("A", "Ant", 3, 0), ("M", "Mosquito", 1, 1), ("L", "Ladybug", 1, 2), ("P", "Pillbug", 1, 4)]
    assert [b["rule"] for b in bugs] == list(BUG_RULES)
    assert sides == [{"colour": "white", "name": "White"}, {"colour": "black", "name": "Black"}]
    reserve = new_game(client, game_type="Base+MLP")["reserves"]["white"]  # the counts are the trays'
    assert Counter(t["bug"] for t in reserve) == {b["letter"]: b["count"] for b in bugs}


def test_new_game_state_holds_what_the_page_draws(client):
    s = new_game(client, game_type="Base+MLP")
    for k in ("id", "game_type", "ply", "move_number", "turn", "to_move", "state", "result", "tiles",
              "reserves", "last_move", "legal_moves", "moves", "game_string", "players", "live"):
        assert k in s
    assert s["game_type"] == "Base+MLP" and s["state"] == "NotStarted" and s["to_move"] == "white"
    assert len(s["reserves"]["white"]) == len(s["reserves"]["black"]) == 14
    assert {m["move"] for m in s["legal_moves"]} == set(Game("Base+MLP").legal_move_strings())
    assert all(m["from"] is None and m["to"] == [0, 0] for m in s["legal_moves"])
    assert s["game_string"] == "Base+MLP;NotStarted;White[1]"


def test_play_moves_stacks_and_browsing(client):
    s = new_game(client)
    gid = s["id"]
    moves = ["wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-", "wB1 -wQ", "bA1 bQ-", "wB1 wQ"]  # the beetle climbs
    for move in moves:
        r = client.post(f"/api/games/{gid}/play", json={"move": move})
        assert r.status_code == 200, r.text
        s = r.json()
    assert s["moves"] == moves
    assert s["game_string"] == "Base;InProgress;Black[4];" + ";".join(moves)
    stack = sorted((t for t in s["tiles"] if t["cell"] == [-1, 0]), key=lambda t: t["level"])
    assert [(t["piece"], t["level"], t["height"], t["top"]) for t in stack] == [
        ("wQ", 0, 2, False), ("wB1", 1, 2, True)]
    assert s["last_move"] == {"move": "wB1 wQ", "piece": "wB1", "from": [-2, 0], "to": [-1, 0], "pass": False}
    assert s["move_number"] == 4 and s["to_move"] == "black"
    # every legal move's cells match the engine's own listing
    engine = Game.from_string(s["game_string"])
    assert {m["move"] for m in s["legal_moves"]} == set(engine.legal_move_strings())
    ant = [m for m in s["legal_moves"] if m["piece"] == "bA1"]
    assert ant and all(m["from"] == [3, 0] for m in ant)
    # an earlier position, read-only
    old = client.get(f"/api/games/{gid}", params={"ply": 1}).json()
    assert old["live"] is False and old["ply"] == 1 and old["legal_moves"] == []
    assert [t["piece"] for t in old["tiles"]] == ["wS1"] and old["moves"] == s["moves"]
    r = client.get(f"/api/games/{gid}/legal-moves")
    assert r.status_code == 200 and r.json()["legal_moves"] == s["legal_moves"]


def test_engine_moves_for_each_kind_of_player(client):
    for opponent in ("random", "greedy", "alphabeta-1", "newest", "shipped"):
        s = client.post("/api/games", json={"white": opponent, "black": "human"}).json()
        assert s["to_move_kind"] == "engine"
        r = client.post(f"/api/games/{s['id']}/engine-move")
        assert r.status_code == 200, (opponent, r.text)
        s = r.json()
        assert len(s["moves"]) == 1 and s["to_move_kind"] == "human" and s["last_move"]["from"] is None


def test_without_models_the_shipped_network_is_listed_and_plays(tmp_path, unshipped):
    with TestClient(create_app(tmp_path / "none", move_time=5.0, sims=16)) as c:
        players = c.get("/api/players").json()["players"]
        nets = [p for p in players if p["kind"] == "alphazero"]
        assert [p["id"] for p in nets] == ["shipped"] and "shipped network" in nets[0]["label"]
        s = c.post("/api/games", json={"white": "shipped", "black": "human"}).json()
        r = c.post(f"/api/games/{s['id']}/engine-move")
        assert r.status_code == 200 and len(r.json()["moves"]) == 1
        # the shipped network of the game's type; a type without one is refused when the game is made
        unshipped("Base+L")
        r = c.post("/api/games", json={"white": "shipped", "black": "human", "game_type": "Base+L"})
        assert_refused(r, 400, "no network is shipped for Base+L")
        analysis = c.get(f"/api/games/{new_game(c, game_type='Base+L')['id']}/analysis?model=shipped&sims=4")
        assert_refused(analysis, 409, "no network is shipped for Base+L")


def test_a_new_game_sets_the_level_of_its_alphazero_seats(client):
    """The page's level selector. ``/api/players`` lists the levels (this server's
    ``--sims 16`` at the top); a new game's ``level`` names its AlphaZero seats' strength in their
    labels and sets what their moves cost in the search slots; a bad level is refused."""
    info = client.get("/api/players").json()
    assert [lv["level"] for lv in info["levels"]] == list(range(1, 11)) and info["default_level"] == 10
    assert info["levels"][2]["label"] == "level 3, 1 simulation a move"
    assert info["levels"][9]["label"] == "level 10, 16 simulations a move"  # --sims 16
    s = client.post("/api/games", json={"white": "shipped", "black": "greedy", "level": 3}).json()
    white, black = s["players"]["white"], s["players"]["black"]
    assert white["level"] == 3 and white["label"].endswith(", level 3, 1 simulation a move")
    assert "level" not in black and black["label"] == "Greedy (one ply, heuristic)"
    r = client.post(f"/api/games/{s['id']}/engine-move")
    assert r.status_code == 200 and len(r.json()["moves"]) == 1
    server = client.app.state.server
    catalogue = server.catalogue
    assert server.search_sims_of(catalogue.at_level(catalogue.entry("shipped"), 3)) == 1
    assert server.search_sims_of(catalogue.at_level(catalogue.entry("shipped"), 10)) == 16
    s = new_game(client, white="shipped")
    top = s["players"]["white"]  # the default level
    assert top["level"] == 10 and top["label"].endswith("level 10, 16 simulations a move")
    for level in (0, 11, "3", 2.5):
        assert_refused(client.post("/api/games", json={"white": "shipped", "black": "human", "level": level}),
                       422, "level")


def test_the_top_level_searches_a_second_without_sims(tmp_path):
    catalogue = create_app(tmp_path / "none").state.server.catalogue
    top, three = catalogue.at_level(catalogue.shipped(), 10), catalogue.at_level(catalogue.shipped(), 3)
    assert top.label == "AlphaZero, the shipped network, level 10, 1 s a move"
    assert catalogue.search_cost(top) == 2000 and catalogue.search_cost(three) == 1
    nine = catalogue.at_level(catalogue.shipped(), 9)  # 2,400 simulations: one thread, as the top
    assert catalogue.build(nine).default_budget.sims > 2000 and catalogue.search_cost(nine) == 2000
    assert catalogue.clock_budget(top, 3.0) == Budget(time_s=3.0)
    assert catalogue.clock_budget(three, 3.0) == Budget(time_s=3.0, sims=1)
    player = catalogue.build(three)
    assert player.level.number == 3 and player.default_budget == Budget(sims=1)
    assert catalogue.build(top).default_budget == Budget(time_s=1.0)


def test_undo_goes_back_to_the_persons_move(client):
    s = client.post("/api/games", json={"white": "human", "black": "random"}).json()
    gid = s["id"]
    client.post(f"/api/games/{gid}/play", json={"move": "wG1"})
    s = client.post(f"/api/games/{gid}/engine-move").json()
    assert len(s["moves"]) == 2
    s = client.post(f"/api/games/{gid}/undo").json()
    assert s["moves"] == [] and s["to_move_kind"] == "human"
    client.post(f"/api/games/{gid}/play", json={"move": "wG1"})
    s = client.post(f"/api/games/{gid}/undo", json={"plies": 1}).json()
    assert s["moves"] == []


def test_load_a_game_string_and_end_of_game(client):
    s = new_game(client, game_string=MIDGAME)
    assert s["game_string"] == MIDGAME and s["to_move"] == "white" and s["result"] is None
    s = new_game(client, game_string=WIN_IN_ONE)
    s = client.post(f"/api/games/{s['id']}/play", json={"move": WIN_IN_ONE_MOVE}).json()
    assert s["state"] == "WhiteWins" and s["legal_moves"] == []
    assert s["result"]["winner"] == "white" and s["result"]["reason"] == "surround"
    assert "White wins" in s["result"]["text"]
    capped = new_game(client, ply_cap=2)
    for move in ("wS1", "bS1 wS1-"):
        capped = client.post(f"/api/games/{capped['id']}/play", json={"move": move}).json()
    assert capped["state"] == "Draw" and capped["result"]["reason"] == "ply cap"


def test_analysis_value_priors_and_visit_shares(client):
    s = new_game(client, game_string=MIDGAME)
    r = client.get(f"/api/games/{s['id']}/analysis", params={"sims": 24})
    assert r.status_code == 200, r.text
    a = r.json()
    assert a["model"]["id"] == "newest" and a["side_to_move"] == "white" and a["sims"] >= 24
    assert sum(a["wdl"].values()) == pytest.approx(1.0, abs=1e-5)
    assert len(a["moves"]) == len(s["legal_moves"])
    assert sum(m["prior"] for m in a["moves"]) == pytest.approx(1.0, abs=1e-5)
    assert sum(m["share"] for m in a["moves"]) == pytest.approx(1.0, abs=1e-5)
    assert {m["move"] for m in a["moves"]} == {m["move"] for m in s["legal_moves"]}
    cells = {m["move"]: (m["from"], m["to"]) for m in s["legal_moves"]}
    assert all(cells[m["move"]] == (m["from"], m["to"]) for m in a["moves"])
    shares = [m["share"] for m in a["moves"]]
    assert shares == sorted(shares, reverse=True)
    early = client.get(f"/api/games/{s['id']}/analysis", params={"sims": 0, "ply": 3}).json()
    assert early["ply"] == 3 and early["sims"] == 0 and early["search_value"] is None
    assert all(m["share"] is None for m in early["moves"])
    ckpt = [p["id"] for p in client.get("/api/players").json()["players"] if p["id"].startswith("ckpt-")][0]
    r = client.get(f"/api/games/{s['id']}/analysis", params={"sims": 0, "model": ckpt})
    assert r.status_code == 200 and r.json()["model"]["id"] == ckpt


def test_games_are_isolated_and_deleted(client):
    a, b = new_game(client), new_game(client)
    client.post(f"/api/games/{a['id']}/play", json={"move": "wA1"})
    assert client.get(f"/api/games/{b['id']}").json()["moves"] == []
    assert client.delete(f"/api/games/{a['id']}").status_code == 204
    assert_refused(client.get(f"/api/games/{a['id']}"), 404, "no game")


def test_openapi_documents_the_endpoints(client):
    assert client.get("/docs").status_code == 200
    paths = client.get("/openapi.json").json()["paths"]
    for p in ("/api/players", "/api/games", "/api/games/{gid}", "/api/games/{gid}/play",
              "/api/games/{gid}/undo", "/api/games/{gid}/engine-move", "/api/games/{gid}/analysis",
              "/api/games/{gid}/legal-moves"):
        assert p in paths
    page = client.get("/")
    assert page.status_code == 200 and "/static/app.js" in page.text
    assert client.get("/static/app.js").status_code == 200


# ----- bad input: 4xx, one line, the game unchanged -----------------------------------------------
@pytest.fixture
def game(client):
    """A game in progress (human against random, White to move) and a check that it is unchanged."""
    s = client.post("/api/games", json={"white": "human", "black": "random"}).json()
    client.post(f"/api/games/{s['id']}/play", json={"move": "wS1"})
    before = client.post(f"/api/games/{s['id']}/engine-move").json()

    def unchanged():
        assert client.get(f"/api/games/{s['id']}").json() == before

    return before["id"], unchanged


@pytest.mark.parametrize(("move", "words"), [
    ("wA1 wS1", ("illegal move",)),            # well formed, but a tile is never placed on top
    ("zz9", ("illegal move",)),
    ("bS2 wS1-", ("illegal move",)),           # not White's tile
    ("pass", ("illegal move", "pass")),
    ("", ("illegal move",)),
])
def test_illegal_or_malformed_move(client, game, move, words):
    gid, unchanged = game
    assert_refused(client.post(f"/api/games/{gid}/play", json={"move": move}), 400, *words)
    unchanged()


@pytest.mark.parametrize("text", [
    "Base;InProgress;White[2];wS1;bS1 xx",     # a move that is not notation
    "Base;InProgress;White[3];wS1;bS1 wS1-",   # Turn disagrees with the moves
    "Base;WhiteWins;White[2];wS1;bS1 wS1-",    # state disagrees
    "Chess;NotStarted;White[1]",
    "garbage",
])
def test_malformed_game_string(client, game, text):
    gid, unchanged = game
    assert_refused(client.post("/api/games", json={"game_string": text}), 400, "GameString")
    unchanged()


@pytest.mark.parametrize("player", [
    "uhp:cmd=/bin/sh", "uhp:cmd=hive-uhp", "alphazero:ckpt=/etc/passwd", "../x.pt", "ckpt-000000000000",
    "alphabeta:depth=9", "alphabeta-5", "escape.pt", "broken.pt",
])
def test_forbidden_players(client, game, listing_models, player):
    gid, unchanged = game
    n = len(client.app.state.server.store)
    for seat in ("white", "black"):
        assert_refused(client.post("/api/games", json={seat: player}), 400, "unknown player")
    for path in ("run1/checkpoints/ckpt_1.pt", "/run1/checkpoints/ckpt_1.pt"):  # a path is never an id
        assert_refused(client.post("/api/games", json={"white": path}), 400, "unknown player")
    assert_refused(client.get(f"/api/games/{gid}/analysis", params={"model": player, "sims": 0}), 400,
                   "unknown model")
    assert len(client.app.state.server.store) == n
    unchanged()


@pytest.mark.parametrize(("method", "path"), [
    ("get", ""), ("get", "/legal-moves"), ("post", "/play"), ("post", "/undo"), ("post", "/engine-move"),
    ("get", "/analysis"), ("delete", ""),
])
def test_unknown_game_id(client, game, method, path):
    _, unchanged = game
    kwargs = {"json": {"move": "wS1"}} if path == "/play" else {}
    assert_refused(getattr(client, method)(f"/api/games/no-such-game{path}", **kwargs), 404, "no game")
    unchanged()


def test_oversized_body(client, game):
    gid, unchanged = game
    assert_refused(client.post(f"/api/games/{gid}/play", json={"move": "x" * 70_000}), 413, "too large")
    long_string = "Base;" + "wS1;" * 20_000
    assert_refused(client.post("/api/games", json={"game_string": long_string}), 413, "too large")

    def chunks():  # no Content-Length: the body streams in
        for _ in range(100):
            yield b" " * 1000

    r = client.post(f"/api/games/{gid}/play", content=chunks(), headers={"Content-Type": "application/json"})
    assert_refused(r, 413, "too large")
    unchanged()


@pytest.mark.parametrize(("method", "path", "body", "status", "words"), [
    ("post", "/play", {"move": "wS2 wS1-", "extra": 1}, 422, ("extra",)),
    ("post", "/play", {}, 422, ("move",)),
    ("post", "/undo", {"plies": 0}, 422, ("plies",)),
    ("post", "/undo", {"plies": 99}, 400, ("cannot undo",)),
    ("post", "/engine-move", None, 409, ("person",)),
    ("get", "?ply=99", None, 400, ("ply",)),
    ("get", "?ply=-1", None, 422, ("ply",)),
    ("get", "/analysis?sims=999999", None, 422, ("sims",)),
    ("get", "/analysis?ply=99", None, 400, ("ply",)),
])
def test_bad_requests(client, game, method, path, body, status, words):
    gid, unchanged = game
    kwargs = {"json": body} if body is not None else {}
    assert_refused(getattr(client, method)(f"/api/games/{gid}{path}", **kwargs), status, *words)
    unchanged()


def test_bad_json_and_moves_out_of_turn(client, game):
    gid, unchanged = game
    r = client.post(f"/api/games/{gid}/play", content=b"{not json",
                    headers={"Content-Type": "application/json"})
    assert_refused(r, 422)
    s = client.post("/api/games", json={"white": "random", "black": "human"}).json()
    assert_refused(client.post(f"/api/games/{s['id']}/play", json={"move": "wS1"}), 409, "engine")
    done = new_game(client, game_string=WIN_IN_ONE)
    client.post(f"/api/games/{done['id']}/play", json={"move": WIN_IN_ONE_MOVE})
    assert_refused(client.post(f"/api/games/{done['id']}/play", json={"move": "bS2 bS1-"}), 400, "over")
    assert_refused(client.post(f"/api/games/{done['id']}/engine-move"), 409, "over")
    assert_refused(client.get(f"/api/games/{done['id']}/analysis"), 409, "over")
    assert_refused(client.post("/api/games", json={"game_type": "Base+X"}), 400, "game type")
    unchanged()


# ----- limits -----------------------------------------------------------------------------------
def test_sessions_are_capped_and_expire(listing_models):
    with TestClient(create_app(listing_models, max_sessions=2, idle_s=0.5)) as c:
        ids = [new_game(c)["id"] for _ in range(3)]
        assert_refused(c.get(f"/api/games/{ids[0]}"), 404)  # this client's least recently used went
        assert c.get(f"/api/games/{ids[2]}").status_code == 200
        time.sleep(0.7)
        assert_refused(c.get(f"/api/games/{ids[2]}"), 404, "expired")


class _SlowPlayer:
    name = "slow"

    def choose(self, game, budget=None):
        time.sleep(1.5)
        return int(game.legal_moves()[0])

    def close(self):
        pass


def test_a_slow_engine_times_out_and_the_game_is_unchanged(listing_models):
    app = create_app(listing_models, engine_timeout=0.3)
    app.state.server.catalogue.build = lambda entry, seed=0: _SlowPlayer()
    with TestClient(app) as c:
        s = c.post("/api/games", json={"white": "random", "black": "human"}).json()
        t = time.perf_counter()
        assert_refused(c.post(f"/api/games/{s['id']}/engine-move"), 504, "no move was played")
        assert time.perf_counter() - t < 1.2
        assert c.get("/api/players").status_code == 200  # the server answers meanwhile
        assert c.get(f"/api/games/{s['id']}").json()["moves"] == []


def test_hive_web_refuses_bad_arguments():
    for bad in (["--port", "0"], ["--sims", "0"], ["--leaves", "0"]):
        done = subprocess.run([sys.executable, "-m", "scripts.web", *bad], cwd=ROOT, capture_output=True,
                              text=True, timeout=60)
        assert done.returncode == 2, bad
        assert done.stderr.startswith("hive-web: --port must be 1..65535"), done.stderr


def test_alphazero_opponents_take_the_servers_leaves(tmp_path):
    app = create_app(tmp_path / "none", move_time=5.0, sims=16, leaves=4)
    catalogue = app.state.server.catalogue
    shipped = next(e for e in catalogue.entries() if e.kind == "alphazero")
    player = catalogue.build(shipped)
    assert player.config.leaves_per_tree == 4 and player.sims == 16
    default = create_app(tmp_path / "none").state.server.catalogue.build(shipped)
    assert default.config.leaves_per_tree == DEFAULT_LEAVES
