"""``hive-web`` against hostile clients: one client cannot evict, see or stall another's games,
searches queue fairly with deadlines that count the wait, long GameStrings are bounded and
parsed off the event loop, checkpoints are checked when opened, inputs are strictly typed, and
connections are capped. Load goes to 127.0.0.1 only, bounded in count and time."""

from __future__ import annotations

import asyncio
import contextlib
import re
import socket
import statistics
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
import torch
from fastapi.testclient import TestClient

import web.players
from hive_env import Game
from models.gnn import build_model
from search.checkpoint import read_checkpoint, save_checkpoint
from web import SearchRefusedError, SearchSlots, ServerLimits, create_app
from web.owners import COOKIE
from web.players import open_inside
from web.sessions import MAX_PLIES

from helpers import ROOT, assert_refused, long_game, serving

HUMANS = {"white": "human", "black": "human"}
ENGINE_FIRST = {"white": "alphabeta-1", "black": "human"}


def token(name: str) -> str:
    """A well-formed owner token for a named test client."""
    return (name + "_" * 32)[:32]


def owner(name: str) -> dict:
    """Request headers of a client with its own owner cookie."""
    return {"cookie": f"{COOKIE}={token(name)}"}


ALICE, BOB = owner("alice"), owner("bob")


class SlowPlayer:
    """An engine that thinks ``delay`` seconds (asleep), then plays the first legal move."""

    name = "slow"

    def __init__(self, delay: float):
        self.delay = delay
        self.closed = False

    def choose(self, game, budget=None) -> int:
        time.sleep(self.delay)
        return int(game.legal_moves()[0])

    def close(self) -> None:
        self.closed = True


def slow_engines(app, delay: float) -> list[SlowPlayer]:
    """Every engine of ``app`` becomes a :class:`SlowPlayer`; returns the list of those built."""
    built: list[SlowPlayer] = []

    def build(entry, seed=0):
        built.append(SlowPlayer(delay))
        return built[-1]

    app.state.server.catalogue.build = build
    return built


def new_game(c, headers: dict, **body) -> str:
    r = c.post("/api/games", json={**HUMANS, **body}, headers=headers)
    assert r.status_code == 201, r.text
    return r.json()["id"]


@pytest.fixture(scope="module")
def decoy_models(tmp_path_factory):
    """One tiny checkpoint, and three files that load as data but not as a network."""
    root = tmp_path_factory.mktemp("models")
    good = save_checkpoint(root / "run" / "ckpt_1.pt", build_model("tiny"))
    state = torch.load(good, weights_only=True)
    key = next(k for k, v in state["model"].items() if v.dim() == 2)
    shapes = {**state, "model": {**state["model"], key: torch.zeros(3, 3)}}
    config = {**state, "model_config": {**state["model_config"], "bogus": 1}}
    strings = {**state, "model": {k: "weights" for k in state["model"]}}
    for name, bad in (("shapes", shapes), ("config", config), ("strings", strings)):
        torch.save(bad, root / f"{name}.pt")
    return root


@pytest.fixture(scope="module")
def app_models(decoy_models):
    """``client`` (tests/web/conftest.py) serves the decoys' directory..."""
    return decoy_models


@pytest.fixture(scope="module")
def app_options() -> dict:
    """... with 8 simulations a move."""
    return {"move_time": 5.0, "sims": 8}


# ----- 1. games belong to their client; caps refuse instead of evicting ---------------------------
def test_a_game_is_seen_by_its_owner_only(decoy_models):
    with TestClient(create_app(decoy_models)) as c:
        r = c.post("/api/games", json=HUMANS)
        assert r.status_code == 201
        assert re.fullmatch(rf"{COOKIE}=[A-Za-z0-9_-]{{32}}; Path=/; HttpOnly; SameSite=Strict",
                            r.headers["set-cookie"])
        gid = r.json()["id"]
        again = c.get(f"/api/games/{gid}")  # the cookie comes back: the same client, no new cookie
        assert again.status_code == 200 and "set-cookie" not in again.headers
        mine = {"cookie": f"{COOKIE}={c.cookies[COOKIE]}"}  # (a stranger's new cookie replaces it in c)
        for method, path, kwargs in [("get", "", {}), ("get", "/legal-moves", {}), ("delete", "", {}),
                                     ("post", "/play", {"json": {"move": "wS1"}}), ("post", "/undo", {}),
                                     ("post", "/engine-move", {}), ("get", "/analysis", {})]:
            for stranger in (BOB, {"cookie": f"{COOKIE}=../../not-a-token"}):
                r = getattr(c, method)(f"/api/games/{gid}{path}", headers=stranger, **kwargs)
                assert_refused(r, 404, "no game")
        assert c.get(f"/api/games/{gid}", headers=mine).json()["moves"] == []
    over_https = TestClient(create_app(decoy_models), base_url="https://testserver").get("/api/players")
    assert over_https.headers["set-cookie"].endswith("; Secure")


def test_a_burst_of_new_games_evicts_no_other_clients_games(decoy_models):
    app = create_app(decoy_models, max_sessions=24, per_client=4, engine_timeout=20)
    slow_engines(app, 1.0)
    with TestClient(app) as c:
        alice = [new_game(c, ALICE) for _ in range(2)]
        thinking = new_game(c, ALICE, **ENGINE_FIRST)
        with ThreadPoolExecutor(1) as ex:
            move = ex.submit(c.post, f"/api/games/{thinking}/engine-move", headers=ALICE)
            time.sleep(0.1)
            # one client, 200 games in a burst: each is made, replacing that client's own oldest
            mallory = owner("mallory")
            codes = [c.post("/api/games", json=HUMANS, headers=mallory).status_code for _ in range(200)]
            assert codes == [201] * 200
            assert len(app.state.server.store.owned_by(token("mallory"))) == 4
            # many clients: the store fills up (24 games), then refuses new ones
            burst = [c.post("/api/games", json=HUMANS, headers=owner(f"m{i}")) for i in range(40)]
            made = 24 - 4 - 3
            assert [r.status_code for r in burst] == [201] * made + [429] * (40 - made)
            assert_refused(burst[-1], 429, "maximum of 24 games")
            for gid in alice:
                assert c.get(f"/api/games/{gid}", headers=ALICE).status_code == 200
            r = move.result(20)
        assert r.status_code == 200 and len(r.json()["moves"]) == 1
        assert c.get(f"/api/games/{thinking}", headers=ALICE).json()["moves"] == r.json()["moves"]


def test_only_idle_games_expire(decoy_models):
    app = create_app(decoy_models, idle_s=0.6, engine_timeout=20)
    slow_engines(app, 1.3)
    with TestClient(app) as c:
        kept, left, thinking = new_game(c, ALICE), new_game(c, ALICE), new_game(c, ALICE, **ENGINE_FIRST)
        with ThreadPoolExecutor(1) as ex:
            move = ex.submit(c.post, f"/api/games/{thinking}/engine-move", headers=ALICE)
            for _ in range(3):  # looked at every 0.3 s: never idle
                time.sleep(0.3)
                assert c.get(f"/api/games/{kept}", headers=ALICE).status_code == 200
            assert_refused(c.get(f"/api/games/{left}", headers=ALICE), 404, "expired")
            r = move.result(20)
        assert r.status_code == 200, r.text  # its engine thought past idle_s: it was not idle
        assert len(c.get(f"/api/games/{thinking}", headers=ALICE).json()["moves"]) == 1


def test_a_game_deleted_while_its_engine_thinks_gets_no_move(decoy_models):
    app = create_app(decoy_models, engine_timeout=20)
    built = slow_engines(app, 0.8)
    with TestClient(app) as c:
        gid = new_game(c, ALICE, **ENGINE_FIRST)
        with ThreadPoolExecutor(1) as ex:
            move = ex.submit(c.post, f"/api/games/{gid}/engine-move", headers=ALICE)
            time.sleep(0.3)
            assert c.delete(f"/api/games/{gid}", headers=ALICE).status_code == 204
            assert_refused(move.result(20), 404, "deleted", "no move was played")
        assert built and built[0].closed  # closed by its thread once it had finished thinking


# ----- 2. searches: their own pool, a fair queue, deadlines that count the wait ---------------------
def test_cheap_requests_never_wait_behind_searches(decoy_models):
    app = create_app(decoy_models, workers=2, search_slots=2, engine_timeout=20)
    slow_engines(app, 1.2)
    budget = 0.5  # seconds; a cheap request takes milliseconds, the searches 1.2 s each
    with TestClient(app) as c:
        c.get("/api/players", headers=ALICE)  # the first scan of the models directory
        games = {name: new_game(c, owner(name), **ENGINE_FIRST) for name in ("a", "b", "c", "d")}
        human = new_game(c, ALICE)
        with ThreadPoolExecutor(5) as ex:
            moves = [ex.submit(c.post, f"/api/games/{gid}/engine-move", headers=owner(name))
                     for name, gid in games.items()]
            deadline = time.monotonic() + 5
            while app.state.server.search_slots.in_flight != (2, 0, 2) and time.monotonic() < deadline:
                time.sleep(0.02)
            assert app.state.server.search_slots.in_flight == (2, 0, 2)  # two running, two waiting
            for method, path, kwargs in [
                ("get", "/api/players", {}), ("post", "/api/games", {"json": HUMANS}),
                ("get", f"/api/games/{human}", {}), ("get", f"/api/games/{human}/legal-moves", {}),
                ("post", f"/api/games/{human}/play", {"json": {"move": "wS1"}}),
            ]:
                t = time.perf_counter()
                r = getattr(c, method)(path, headers=ALICE, **kwargs)
                assert r.status_code in (200, 201), r.text
                assert time.perf_counter() - t < budget, (path, time.perf_counter() - t)
            # one search running per client: "a"'s analysis waits for "a"'s engine move; a third is refused
            analysis = f"/api/games/{games['a']}/analysis?sims=0"
            waiting = ex.submit(c.get, analysis, headers=owner("a"))
            while app.state.server.search_slots.in_flight[2] != 3 and time.monotonic() < deadline:
                time.sleep(0.02)
            assert_refused(c.get(analysis, headers=owner("a")), 429, "running and another waiting")
            assert [m.result(20).status_code for m in moves] == [200] * 4
            assert waiting.result(20).status_code == 200


def test_a_search_deadline_counts_its_wait_for_a_slot(decoy_models):
    app = create_app(decoy_models, search_slots=1, engine_timeout=1.0, analysis_timeout=1.0)
    slow_engines(app, 1.6)
    with TestClient(app) as c:
        busy, other = new_game(c, ALICE, **ENGINE_FIRST), new_game(c, BOB)
        with ThreadPoolExecutor(1) as ex:
            move = ex.submit(c.post, f"/api/games/{busy}/engine-move", headers=ALICE)
            time.sleep(0.2)
            t = time.perf_counter()
            r = c.get(f"/api/games/{other}/analysis?sims=0", headers=BOB)
            waited = time.perf_counter() - t
            assert_refused(r, 503, "no search slot")
            assert 0.8 < waited < 1.4  # its own 1 s limit, not the slot holder's 1.6 s
            assert_refused(move.result(20), 504, "no move was played")
        assert c.get(f"/api/games/{busy}", headers=ALICE).json()["moves"] == []
        # the timed-out engine still runs: its slot (and its client's turn) come back when it ends
        assert app.state.server.search_slots.in_flight[0] == 1
        time.sleep(1.6)
        assert app.state.server.search_slots.in_flight == (0, 0, 0)
        assert c.get(f"/api/games/{other}/analysis?sims=0", headers=BOB).status_code == 200


def test_search_slots_bound_simulations_in_flight():
    log: list[tuple[str, float, float]] = []

    def search(name: str, seconds: float) -> str:
        start = time.monotonic()
        time.sleep(seconds)
        log.append((name, start, time.monotonic()))
        return name

    async def scenario():
        slots = SearchSlots(slots=3, sims_budget=100, max_queue=3)
        soon = time.monotonic() + 5
        runs = [slots.run("a", 60, soon, search, "a", 0.4), slots.run("b", 30, soon, search, "b", 0.4),
                slots.run("c", 60, soon, search, "c", 0.1), slots.run("a", 1, soon, search, "a2", 0.1),
                slots.run("d", 1000, soon, search, "d", 0.1)]  # more than the budget: runs alone
        tasks = [asyncio.ensure_future(r) for r in runs]
        await asyncio.sleep(0.1)
        assert slots.in_flight == (2, 90, 3)  # c waits (90 + 60 > 100), a2 waits for a, d for all
        with pytest.raises(SearchRefusedError) as e:  # a third search of one client
            await slots.run("a", 1, soon, search, "x", 0)
        assert e.value.status == 429 and "running and another waiting" in e.value.detail
        with pytest.raises(SearchRefusedError) as e:  # the queue (3) is full
            await slots.run("e", 1, soon, search, "e", 0)
        assert e.value.status == 429 and "busy" in e.value.detail
        assert await asyncio.gather(*tasks) == ["a", "b", "c", "a2", "d"]
        one = SearchSlots(slots=1)  # no slot before the deadline: 503 then
        holder = asyncio.ensure_future(one.run("h", 0, soon, search, "h", 0.3))
        await asyncio.sleep(0.05)
        with pytest.raises(SearchRefusedError) as e:
            await one.run("i", 0, time.monotonic() + 0.05, search, "i", 0)
        assert e.value.status == 503 and "no search slot" in e.value.detail
        await holder
        one.close()
        # a search past its deadline answers TimeoutError, and holds its slot until it ends
        with pytest.raises(TimeoutError):
            await slots.run("g", 10, time.monotonic() + 0.1, search, "g", 0.5)
        assert slots.in_flight == (1, 10, 0)
        await asyncio.sleep(0.6)
        assert slots.in_flight == (0, 0, 0)
        slots.close()

    asyncio.run(scenario())
    span = {name: (start, end) for name, start, end in log}
    assert span["c"][0] >= min(span["a"][1], span["b"][1]) - 0.01  # c started once one had ended
    assert span["a2"][0] >= span["a"][1] - 0.01  # one search at a time per client
    d0, d1 = span["d"]
    assert all(end <= d0 + 0.01 or start >= d1 - 0.01 for name, start, end in log if name != "d")  # alone


# ----- 3. GameStrings: bounded length, parsed off the event loop ------------------------------------
@pytest.fixture(scope="module")
def longest_games() -> tuple[str, str]:
    """GameStrings of MAX_PLIES plies and of one more (legal games still in progress)."""
    game = long_game(MAX_PLIES + 1, seed=0)
    too_long = game.game_string()
    game.undo(1)
    return game.game_string(), too_long


def test_a_game_string_over_the_ply_cap_is_refused_before_parsing(client, longest_games, monkeypatch):
    longest, too_long = longest_games
    parsed: list[str] = []
    from_string = Game.from_string.__func__

    def spy(cls, text, ply_cap=0):
        parsed.append(threading.current_thread().name)
        return from_string(cls, text, ply_cap)

    monkeypatch.setattr(Game, "from_string", classmethod(spy))
    n = len(client.app.state.server.store)
    assert_refused(client.post("/api/games", json={"game_string": too_long}, headers=ALICE), 413,
                   f"{MAX_PLIES + 1} moves", f"at most {MAX_PLIES} plies")
    issue = "Base;InProgress;White[3107];" + ";".join(["wS1"] * 6212)  # the issue's 6,212 plies
    assert_refused(client.post("/api/games", json={"game_string": issue}, headers=ALICE), 413)
    assert parsed == [] and len(client.app.state.server.store) == n
    r = client.post("/api/games", json={**HUMANS, "game_string": longest}, headers=ALICE)
    assert r.status_code == 201 and r.json()["ply"] == MAX_PLIES
    assert len(parsed) == 1 and parsed[0].startswith("hive-web-cheap")  # off the event loop
    legal = r.json()["legal_moves"][0]["move"]
    assert_refused(client.post(f"/api/games/{r.json()['id']}/play", json={"move": legal}, headers=ALICE),
                   409, f"limit of {MAX_PLIES} plies")


@pytest.mark.slow
def test_long_game_strings_do_not_stall_other_clients(decoy_models, longest_games):
    """The issue's measurement: four clients loading long GameStrings while another asks for
    the player list; its median latency stays small."""
    longest, _ = longest_games
    issue = long_game(6212, seed=1).game_string()
    with serving(create_app(decoy_models)) as port:
        url = f"http://127.0.0.1:{port}"
        stop = time.monotonic() + 6

        def loader(i: int) -> int:
            loads = 0
            with httpx.Client(base_url=url, headers=owner(f"loader{i}"), timeout=30) as h:
                while time.monotonic() < stop:
                    h.post("/api/games", json={"game_string": issue if i % 2 else longest})
                    loads += 1
            return loads

        with ThreadPoolExecutor(4) as ex, httpx.Client(base_url=url, timeout=30) as h:
            jobs = [ex.submit(loader, i) for i in range(4)]
            time.sleep(0.5)
            latencies = []
            while time.monotonic() < stop - 0.5:
                t = time.perf_counter()
                assert h.get("/api/players").status_code == 200
                latencies.append(time.perf_counter() - t)
                time.sleep(0.05)
            assert all(j.result() > 0 for j in jobs)
    assert statistics.median(latencies) < 0.15, sorted(latencies)


# ----- 4. checkpoints: listed only when they load as a network; checked again at open time ----------
def test_only_checkpoints_that_load_as_networks_are_listed(client, decoy_models):
    for name in ("shapes", "config", "strings"):
        read_checkpoint(decoy_models / f"{name}.pt")  # each loads as data
    ids = [p["id"] for p in client.get("/api/players", headers=ALICE).json()["players"]]
    assert len([i for i in ids if i.startswith("ckpt-")]) == 1  # run/ckpt_1.pt only


@pytest.fixture
def changing_models(tmp_path, monkeypatch):
    """A models directory with one checkpoint (listed, then changed by the test), a checkpoint
    outside it, and no rescan during the test (the listing stays as it was)."""
    monkeypatch.setattr(web.players, "RESCAN_S", 3600.0)
    models = tmp_path / "models"
    listed = save_checkpoint(models / "run" / "ckpt_1.pt", build_model("tiny"))
    outside = save_checkpoint(tmp_path / "outside" / "other.pt", build_model("tiny"))
    return models, listed, outside


@pytest.mark.parametrize("change", ["link", "damage"])
def test_a_listed_checkpoint_that_changes_is_refused_at_open_with_its_id(changing_models, tmp_path, change):
    models, listed, outside = changing_models
    with TestClient(create_app(models, move_time=5.0, sims=8)) as c:
        ckpt = next(p["id"] for p in c.get("/api/players", headers=ALICE).json()["players"]
                    if p["id"].startswith("ckpt-"))
        gid = new_game(c, ALICE, white=ckpt)
        listed.unlink()
        if change == "link":  # swapped for a link out of the directory after the scan
            listed.symlink_to(outside)
        else:
            listed.write_bytes(b"not a checkpoint")
        for r in (c.post(f"/api/games/{gid}/engine-move", headers=ALICE),
                  c.get(f"/api/games/{gid}/analysis", params={"model": ckpt, "sims": 0}, headers=ALICE)):
            assert_refused(r, 409, ckpt, "cannot be loaded")
            assert str(tmp_path) not in r.text and "ckpt_1" not in r.text
        assert c.get(f"/api/games/{gid}", headers=ALICE).json()["moves"] == []


def test_open_inside_follows_no_link_out_of_the_directory(changing_models):
    models, listed, outside = changing_models
    (models / "alias.pt").symlink_to(listed)  # a link inside the directory is fine
    with open_inside(models, models / "alias.pt") as f:
        assert f.read(2) == b"PK"
    (models / "out.pt").symlink_to(outside)
    (models / "outdir").symlink_to(outside.parent, target_is_directory=True)
    for path in (models / "out.pt", models / "outdir" / "other.pt", models / "run", models / "none.pt"):
        with pytest.raises(OSError):
            open_inside(models, path)


# ----- 5. strict input ----------------------------------------------------------------------------------
@pytest.fixture
def game(client):
    """Two people's game after ``wS1`` (``bG1 wS1-`` is legal), and a check that it is unchanged."""
    gid = new_game(client, ALICE)
    before = client.post(f"/api/games/{gid}/play", json={"move": "wS1"}, headers=ALICE).json()

    def unchanged():
        assert client.get(f"/api/games/{gid}", headers=ALICE).json() == before

    return gid, unchanged


@pytest.mark.parametrize(("path", "body", "words"), [
    ("/play", {"move": "bG1\nwS1-"}, ("move", "U+000A")),      # a second line
    ("/play", {"move": "bG1 wS1-\r"}, ("move", "U+000D")),
    ("/play", {"move": "bG1\u2028wS1-"}, ("move", "U+2028")),  # line separator
    ("/play", {"move": "bG1\u2029wS1-"}, ("move", "U+2029")),  # paragraph separator
    ("/play", {"move": "bG1\x85wS1-"}, ("move", "U+0085")),    # next line (Cc)
    ("/play", {"move": "bG1\twS1-"}, ("move", "U+0009")),
    ("/play", {"move": 5}, ("move",)),
    ("/play", {"move": ["bG1 wS1-"]}, ("move",)),
    ("/undo", {"plies": "1"}, ("plies",)),                     # no lax coercion
    ("/undo", {"plies": True}, ("plies",)),
    ("/undo", {"plies": 1.0}, ("plies",)),
])
def test_moves_and_numbers_are_strictly_typed(client, game, path, body, words):
    gid, unchanged = game
    assert_refused(client.post(f"/api/games/{gid}{path}", json=body, headers=ALICE), 422, *words)
    unchanged()


@pytest.mark.parametrize("body", [
    {"game_string": "Base;InProgress;White[2];wS1\u2028"},
    {"game_string": "Base;InProgress;White[2];wS1\n"},
    {"game_type": "Base\n"}, {"white": "human\r\nX-Injected: 1"},
    {"ply_cap": "5"}, {"ply_cap": True}, {"seed": 1.0}, {"white": 1},
])
def test_new_game_fields_are_strictly_typed(client, body):
    n = len(client.app.state.server.store)
    assert_refused(client.post("/api/games", json=body, headers=ALICE), 422)
    assert len(client.app.state.server.store) == n


# ----- 6. connections: the real server, on 127.0.0.1 -------------------------------------------------
def read_reply(sock: socket.socket, timeout: float) -> bytes:
    """Everything the server sends until it closes the connection (or ``timeout``)."""
    sock.settimeout(timeout)
    out = b""
    with contextlib.suppress(TimeoutError, ConnectionResetError):
        while chunk := sock.recv(65536):
            out += chunk
    return out


@pytest.fixture(scope="module")
def capped_server(decoy_models):
    """hive-web on a free port with small caps (20 connections, 1 s for a request head or body);
    yields the port."""
    limits = ServerLimits(max_connections=20, header_timeout=1.0, keep_alive=1.0)
    with serving(create_app(decoy_models, body_timeout=1.0), limits) as port:
        yield port


def test_slow_headers_are_capped_and_timed_out(capped_server):
    head = b"GET /api/players HTTP/1.1\r\nHost: 127.0.0.1\r\n"  # never finished
    socks = [socket.create_connection(("127.0.0.1", capped_server)) for _ in range(40)]
    try:
        time.sleep(0.3)
        refused = [s for s in socks if read_reply(s, 0.01).startswith(b"HTTP/1.1 503")]
        assert len(refused) == 20  # only 20 connections at once; the others were answered 503
        held = [s for s in socks if s not in refused]
        for s in held:
            s.sendall(head)
        for _ in range(3):  # sending a byte now and then does not keep a connection open
            held[0].sendall(b"X")
            time.sleep(0.3)
        replies = [read_reply(s, 1.5) for s in held]
        assert all(r.startswith(b"HTTP/1.1 408") for r in replies), {r[:40] for r in replies}
    finally:
        for s in socks:
            s.close()
    time.sleep(0.1)
    with socket.create_connection(("127.0.0.1", capped_server)) as s:  # the server serves again
        s.sendall(head + b"Connection: close\r\n\r\n")
        assert read_reply(s, 10).startswith(b"HTTP/1.1 200")


def test_a_half_closed_request_is_answered(capped_server):
    with socket.create_connection(("127.0.0.1", capped_server)) as s:
        s.sendall(b"GET /api/players HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        s.shutdown(socket.SHUT_WR)
        reply = read_reply(s, 10)
    assert reply.startswith(b"HTTP/1.1 200") and b'"players"' in reply


def test_a_slow_body_is_answered_408(capped_server):
    with socket.create_connection(("127.0.0.1", capped_server)) as s:
        s.sendall(b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 100\r\n\r\n{\"white\":")
        t = time.perf_counter()
        reply = read_reply(s, 5)
    assert reply.startswith(b"HTTP/1.1 408") and b"not received within 1 s" in reply
    assert time.perf_counter() - t < 3


def test_hive_web_shows_and_checks_its_caps():
    done = subprocess.run([sys.executable, "-m", "scripts.web", "--help"], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    for flag in ("--max-games", "--games-per-client", "--idle", "--search-slots", "--search-sims",
                 "--search-queue", "--max-connections", "--header-timeout", "--body-timeout", "--keep-alive",
                 "--review-workers", "--review-queue"):
        assert flag in done.stdout
    assert "(default: 64)" in done.stdout and "(default: 100)" in done.stdout
    bads = (["--max-games", "0"], ["--search-slots", "0"], ["--header-timeout", "0"], ["--review-queue", "0"])
    for bad in bads:
        done = subprocess.run([sys.executable, "-m", "scripts.web", *bad], cwd=ROOT, capture_output=True,
                              text=True, timeout=60)
        assert done.returncode == 2 and done.stderr.startswith("hive-web: --")
        assert done.stderr.count("\n") == 1, done.stderr
