"""``hive-web``'s game clocks through the API, on a fake clock: a person's time runs from the
start of their turn, an engine searches the time manager's share and is charged what it took,
the increment is added, a flag fall ends the game as a loss on time (asked or not), and a bad
clock is refused in one line."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from players import Budget
from players.clock import ClockControl, GameClock
from web import create_app

from helpers import assert_refused


class FakeClock:
    """A monotonic clock that moves only when a test moves it."""

    def __init__(self):
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


class RecordingPlayer:
    """Plays the first legal move, keeps the budget it was given, and takes ``takes`` seconds
    of the fake clock to do it."""

    name = "recording"

    def __init__(self, clock: FakeClock, takes: float):
        self.clock, self.takes, self.budgets = clock, takes, []

    def choose(self, game, budget=None):
        self.budgets.append(budget)
        self.clock.advance(self.takes)
        return int(game.legal_moves()[0])

    def close(self):
        pass


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture
def clock_client(tmp_path, clock):
    """A fresh app for each test, its games' clocks on ``clock`` (not the module-wide ``client``
    of tests/web/conftest.py)."""
    with TestClient(create_app(tmp_path / "none", move_time=5.0, sims=16, clock=clock)) as c:
        yield c


def new_game(client, **body) -> dict:
    r = client.post("/api/games", json={"white": "human", "black": "human", **body})
    assert r.status_code == 201, r.text
    return r.json()


def play(client, gid: str, move: str) -> dict:
    r = client.post(f"/api/games/{gid}/play", json={"move": move})
    assert r.status_code == 200, r.text
    return r.json()


def test_no_clock_is_a_game_as_before(clock_client, clock):
    for body in ({}, {"clock": None}, {"clock": ""}, {"clock": "  "}):
        s = new_game(clock_client, **body)
        assert s["clock"] is None
        clock.advance(10_000)
        s = play(clock_client, s["id"], "wS1")
        assert s["clock"] is None and s["result"] is None
        assert clock_client.post(f"/api/games/{s['id']}/undo").json()["moves"] == []


def test_a_persons_time_runs_from_the_start_of_their_turn_and_the_increment_is_added(clock_client, clock):
    s = new_game(clock_client, clock="60 + 1")
    assert s["clock"] == {"control": "60+1", "remaining": [60, 60], "running": 0, "flagged": None}
    gid = s["id"]
    clock.advance(5)
    assert clock_client.get(f"/api/games/{gid}").json()["clock"]["remaining"] == [55, 60]
    s = play(clock_client, gid, "wS1")
    assert s["clock"]["remaining"] == [56, 60] and s["clock"]["running"] == 1  # 60 - 5 + 1
    clock.advance(2.5)
    assert clock_client.get(f"/api/games/{gid}/legal-moves").json()["legal_moves"]  # asking costs nothing
    assert clock_client.get(f"/api/games/{gid}").json()["clock"]["remaining"] == [56, 57.5]
    # an illegal move is refused and the clock runs on
    assert_refused(clock_client.post(f"/api/games/{gid}/play", json={"move": "wQ wS1-"}), 400, "illegal move")
    clock.advance(0.5)
    s = play(clock_client, gid, "bS1 wS1-")
    assert s["clock"]["remaining"] == [56, 58] and s["clock"]["running"] == 0  # 60 - 3 + 1
    assert s["result"] is None and s["state"] == "InProgress"


def test_an_engine_searches_the_share_and_is_charged_what_it_took(clock_client, clock):
    engine = RecordingPlayer(clock, takes=1.5)
    clock_client.app.state.server.catalogue.build = lambda entry, seed=0: engine
    s = clock_client.post("/api/games", json={"white": "human", "black": "random", "clock": "60+1"}).json()
    gid = s["id"]
    clock.advance(3)
    s = play(clock_client, gid, "wS1")
    assert s["clock"]["remaining"] == [58, 60] and s["clock"]["running"] == 1
    clock.advance(4)  # the page's round trip: an engine's clock runs only while it is asked to move
    assert clock_client.get(f"/api/games/{gid}").json()["clock"]["remaining"] == [58, 60]
    s = clock_client.post(f"/api/games/{gid}/engine-move").json()
    assert engine.budgets == [Budget(time_s=GameClock(ClockControl(60, 1)).share(1))]
    assert engine.budgets[0].time_s == pytest.approx(59.95 / 25 + 1)
    assert len(s["moves"]) == 2 and s["clock"]["remaining"] == [58, 59.5]  # 60 - 1.5 + 1
    assert s["clock"]["running"] == 0
    clock.advance(1)
    s = play(clock_client, gid, s["legal_moves"][0]["move"])
    assert s["clock"]["remaining"] == [58, 59.5]  # 58 - 1 + 1
    s = clock_client.post(f"/api/games/{gid}/engine-move").json()
    assert engine.budgets[1].time_s == pytest.approx(GameClock(ClockControl(60, 1), [58, 59.5]).share(1))


def test_engines_keep_their_depth_or_simulations_under_the_clock(clock_client):
    catalogue = clock_client.app.state.server.catalogue
    assert catalogue.clock_budget(catalogue.entry("alphabeta-2"), 3.0) == Budget(time_s=3.0, depth=2)
    assert catalogue.clock_budget(catalogue.entry("shipped"), 3.0) == Budget(time_s=3.0, sims=16)
    assert catalogue.clock_budget(catalogue.entry("greedy"), 3.0) == Budget(time_s=3.0)


@pytest.mark.parametrize(("limits", "cap"), [({"move_time": 3.0}, 3.0), ({"engine_timeout": 4.0}, 2.0)])
def test_the_share_is_capped_by_the_move_time_and_the_engine_timeout(tmp_path, clock, limits, cap):
    app = create_app(tmp_path / "none", clock=clock, **limits)
    engine = RecordingPlayer(clock, takes=0.5)
    app.state.server.catalogue.build = lambda entry, seed=0: engine
    with TestClient(app) as c:
        s = c.post("/api/games", json={"white": "random", "black": "human", "clock": "900+10"}).json()
        s = c.post(f"/api/games/{s['id']}/engine-move").json()
        assert engine.budgets == [Budget(time_s=cap)] and s["clock"]["remaining"] == [909.5, 900]


def test_real_engines_play_in_a_clock_game(tmp_path):
    with TestClient(create_app(tmp_path / "none", sims=16)) as c:
        for engine in ("alphabeta-1", "shipped", "greedy"):
            s = c.post("/api/games", json={"white": engine, "black": "human", "clock": "60+0"}).json()
            r = c.post(f"/api/games/{s['id']}/engine-move")
            assert r.status_code == 200, (engine, r.text)
            s = r.json()
            white, black = s["clock"]["remaining"]
            assert len(s["moves"]) == 1 and 0 < white <= 60 and black <= 60, (engine, s["clock"])
            if engine != "greedy":  # greedy's first move can take under the clock's millisecond
                assert white < 60, (engine, s["clock"])


def test_a_flag_falls_without_a_move_and_ends_the_game(clock_client, clock):
    s = clock_client.post("/api/games", json={"white": "human", "black": "random", "clock": "2+0"}).json()
    gid = s["id"]
    clock.advance(1.9)
    s = clock_client.get(f"/api/games/{gid}").json()
    assert s["result"] is None and s["clock"]["remaining"] == [0.1, 2]
    clock.advance(0.2)
    s = clock_client.get(f"/api/games/{gid}").json()
    assert s["clock"] == {"control": "2+0", "remaining": [0, 2], "running": None, "flagged": 0}
    assert s["result"] == {"state": "BlackWins", "winner": "black", "reason": "time forfeit",
                           "flagged": "white", "text": "White loses on time: Black wins"}
    assert s["state"] == "BlackWins" and s["legal_moves"] == [] and s["moves"] == []
    assert s["game_string"] == "Base;NotStarted;White[1]"  # the board's own state: it loads
    assert clock_client.get(f"/api/games/{gid}/legal-moves").json()["legal_moves"] == []
    assert_refused(clock_client.post(f"/api/games/{gid}/play", json={"move": "wS1"}), 409,
                   "White lost on time")
    assert_refused(clock_client.post(f"/api/games/{gid}/engine-move"), 409, "over")
    assert_refused(clock_client.post(f"/api/games/{gid}/undo"), 409, "clock")
    clock.advance(100)
    assert clock_client.get(f"/api/games/{gid}").json() == s  # nothing runs any more


def test_a_flag_falls_on_the_move_that_comes_too_late(clock_client, clock):
    s = new_game(clock_client, clock="10+5")
    gid = s["id"]
    play(clock_client, gid, "wS1")
    clock.advance(10.01)
    late = clock_client.post(f"/api/games/{gid}/play", json={"move": "bS1 wS1-"})
    assert_refused(late, 409, "Black lost on time")
    s = clock_client.get(f"/api/games/{gid}").json()
    assert s["moves"] == ["wS1"] and s["result"]["text"] == "Black loses on time: White wins"
    assert s["clock"]["remaining"] == [15, 0] and s["clock"]["flagged"] == 1
    earlier = clock_client.get(f"/api/games/{gid}", params={"ply": 0}).json()  # browsing shows the live clock
    assert earlier["live"] is False and earlier["result"] is None and earlier["clock"] == s["clock"]


def test_an_engine_past_its_time_loses_on_time_and_its_move_is_not_played(clock_client, clock):
    clock_client.app.state.server.catalogue.build = lambda entry, seed=0: RecordingPlayer(clock, takes=3)
    s = clock_client.post("/api/games", json={"white": "random", "black": "human", "clock": "2+1"}).json()
    r = clock_client.post(f"/api/games/{s['id']}/engine-move")
    assert r.status_code == 200, r.text
    s = r.json()
    assert s["moves"] == [] and s["result"]["reason"] == "time forfeit" and s["result"]["winner"] == "black"
    assert s["clock"]["flagged"] == 0 and s["clock"]["remaining"] == [0, 2]


def test_undo_is_refused_in_a_clock_game(clock_client):
    s = new_game(clock_client, clock="60+0")
    play(clock_client, s["id"], "wS1")
    assert_refused(clock_client.post(f"/api/games/{s['id']}/undo"), 409, "undo", "clock")
    assert clock_client.get(f"/api/games/{s['id']}").json()["moves"] == ["wS1"]


@pytest.mark.parametrize(("text", "words"), [
    ("abc", ("clock", "bad clock", "BASE+INC")),
    ("60+1+2", ("bad clock",)),
    ("-5+0", ("bad clock",)),
    ("0+1", ("bad clock", "base must be in (0, inf)")),
    ("10801+0", ("at most 10800 s base",)),
    ("60+601", ("600 s increment",)),
    ("60\n+1", ("printable ASCII",)),
    ("1" * 40, ("clock", "32")),
    (60, ("clock", "string")),
])
def test_a_bad_clock_is_refused_in_one_line(clock_client, text, words):
    n = len(clock_client.app.state.server.store)
    assert_refused(clock_client.post("/api/games", json={"white": "human", "black": "random", "clock": text}),
                   422, *words)
    assert len(clock_client.app.state.server.store) == n
