"""One player interface, built from spec strings; the ``uhp`` player against ``hive-uhp``."""

from __future__ import annotations

import shlex
import sys
import time

import numpy as np
import pytest

from hive_env import Game
from hive_env.position import board_from_tiles
from players import (
    Budget,
    Player,
    PlayerSpecError,
    make_player,
    parse_spec,
    player_kinds,
    register_player,
    resolve_budget,
    search_stats,
)
from players.alphabeta import AlphaBetaPlayer
from players.simple import GreedyPlayer, RandomPlayer
from players.uhp_client import UhpEngineError, UhpPlayer, format_seconds, format_time

from helpers import MIDGAME, ROOT
from helpers import UHP_ENGINE as ENGINE
from helpers import WIN_IN_ONE_TILES as WIN_IN_ONE


# ----- specs -----------------------------------------------------------------------------------
def test_parse_spec():
    assert parse_spec("random") == ("random", {})
    assert parse_spec(" alphabeta:depth=3 , time=0.5 ") == ("alphabeta", {"depth": "3", "time": "0.5"})
    cmd = "uhp:cmd=python -m x --player a,b=1,depth=2"
    assert parse_spec(cmd) == ("uhp", {"cmd": "python -m x --player a", "b": "1", "depth": "2"})
    commas = ("uhp", {"cmd": "engine --opt a,b", "depth": "2"})
    assert parse_spec("uhp:cmd=engine --opt a,b,depth=2") == commas


@pytest.mark.parametrize("spec, message", [
    ("", "empty player spec"),
    ("chess", "unknown player kind 'chess'"),
    ("alphabeta:speed=3", "has no option 'speed'"),
    ("alphabeta:depth=0", "bad depth='0'"),
    ("alphabeta:depth=three", "bad depth='three'"),
    ("alphabeta:time=-1", "bad time='-1'"),
    ("alphabeta:depth", "'depth' is not key=value"),
    ("alphabeta:depth=2,depth=3", "'depth' given twice"),
    ("random:seed=1", "has no option 'seed'"),
    ("uhp", "needs cmd=..."),
    ("uhp:cmd=", "bad cmd=''"),
])
def test_bad_specs_raise_clear_errors(spec, message):
    with pytest.raises(PlayerSpecError, match=message) as info:
        make_player(spec)
    assert isinstance(info.value, ValueError)


def test_spec_builds_named_players_with_default_budgets():
    assert isinstance(make_player("random"), RandomPlayer)
    assert isinstance(make_player("greedy"), GreedyPlayer)
    ab = make_player("alphabeta")
    assert isinstance(ab, AlphaBetaPlayer) and ab.default_budget == Budget(depth=3)
    assert make_player("alphabeta:depth=5").default_budget == Budget(depth=5)
    timed = make_player("alphabeta:time=0.5,tt=12")
    assert timed.default_budget == Budget(time_s=0.5) and timed.name == "alphabeta:time=0.5,tt=12"
    assert set(player_kinds()) >= {"random", "greedy", "alphabeta", "uhp"}
    for p in (ab, timed):
        assert isinstance(p, Player)


def test_register_player_adds_a_kind():
    register_player("first", lambda seed, name, n=0: _FirstMove(name, n), {"n": int}, doc="test kind")
    player = make_player("first:n=2")
    assert player.name == "first:n=2" and player.n == 2
    with pytest.raises(ValueError):
        register_player("Bad Kind", lambda seed, name: _FirstMove(name, 0))


class _FirstMove:
    def __init__(self, name: str, n: int):
        self.name, self.n = name, n

    def choose(self, game: Game, budget: Budget | None = None) -> int:
        return int(game.legal_moves()[0])

    def close(self) -> None:
        pass


def test_budget_resolution():
    default = Budget(depth=3)
    assert resolve_budget(None, default) == default
    assert resolve_budget(Budget(), default) == default
    assert resolve_budget(Budget(time_s=1.0), default) == Budget(time_s=1.0)


# ----- in-process players ------------------------------------------------------------------------
@pytest.mark.parametrize("spec", ["random", "greedy", "alphabeta:depth=2"])
def test_players_choose_legal_moves_without_touching_the_game(spec):
    player = make_player(spec, seed=3)
    game = Game("Base+MLP")
    for _ in range(30):
        if game.is_over:
            break
        before = (game.game_string(), game.hash, game.board.copy())
        move = player.choose(game)
        assert (game.game_string(), game.hash) == before[:2] and (game.board == before[2]).all()
        assert move in game.legal_moves()
        game.play(move)
    player.close()


def test_random_player_is_seeded():
    def moves(seed: int) -> list[int]:
        player, game = make_player("random", seed), Game()
        for _ in range(12):
            game.play(player.choose(game))
        return game.moves

    assert moves(1) == moves(1) != moves(2)


def test_greedy_and_alphabeta_take_a_win_in_one():
    game = Game.from_board(*board_from_tiles("Base", WIN_IN_ONE, 14))
    for spec in ("greedy", "alphabeta:depth=1", "alphabeta:depth=3", "alphabeta:time=0.2"):
        assert game.move_string(make_player(spec).choose(game)) in {"wB2 \\wQ", "wA1 -wB2"}


@pytest.mark.slow  # asserts wall-clock time: run in the slow CI step
def test_alphabeta_player_honours_a_time_budget():
    game = Game.from_string(MIDGAME)
    player = make_player("alphabeta:depth=1")
    player.choose(game)  # kernels loaded
    start = time.perf_counter()
    player.choose(game, Budget(time_s=0.25))
    assert time.perf_counter() - start < 0.25 + 0.15  # margin for a loaded machine
    assert player.last.depth >= 2


class _Stats:
    name = "stats"

    def __init__(self, last_stats: object):
        self.last_stats = last_stats


def test_search_stats_reads_what_a_player_reports_and_nothing_else():
    assert search_stats(RandomPlayer()) == {}  # no search, no attribute
    assert search_stats(_Stats(None)) == search_stats(_Stats([("nodes", 3)])) == {}
    stats = _Stats({"sims": np.int64(812), "nodes": 4, "depth": True, "ratio": 0.5, 3: 1})
    assert search_stats(stats) == {"sims": 812, "nodes": 4}  # ints only, as JSON-ready ints
    assert type(search_stats(stats)["sims"]) is int
    copy = search_stats(stats)
    copy["nodes"] = 0
    assert stats.last_stats["nodes"] == 4  # a copy: the record never shares the player's dict


def test_greedy_reports_one_node_per_legal_move():
    game = Game.from_string(MIDGAME)
    player = GreedyPlayer()
    assert search_stats(player) == {}
    player.choose(game)
    assert search_stats(player) == {"nodes": len(game.legal_moves())}


def test_choose_on_a_finished_game_raises():
    game = Game.from_board(*board_from_tiles("Base", WIN_IN_ONE, 14))
    game.play("wB2 \\wQ")
    for spec in ("random", "greedy", "alphabeta"):
        with pytest.raises(ValueError, match="game is over"):
            make_player(spec).choose(game)


# ----- the uhp player ------------------------------------------------------------------------------
def engine_spec(player: str) -> str:
    return "uhp:cmd=" + " ".join(shlex.quote(a) for a in ENGINE) + f" --player {player},timeout=60"


def test_format_time():
    assert format_time(0.2) == "00:00:01"
    assert format_time(61) == "00:01:01"
    assert format_time(3725.5) == "01:02:06"
    assert (format_seconds(0.2), format_seconds(1.25), format_seconds(0.0001)) == ("0.200", "1.250", "0.001")


# An engine answering bestmove seconds with one move and bestmove time with another, so the move
# tells which command it got; with "refuse", it refuses the first bestmove seconds (err), as UHP
# engines without nokamute's extension do (a client that asked again would get wS1).
TIME_ENGINE = """
import sys
refuse = sys.argv[1] == "refuse"
print("id timer"); print("Mosquito;Ladybug;Pillbug"); print("ok", flush=True)
for line in sys.stdin:
    words = line.split()
    if words[0] == "newgame":
        print(line[8:].strip())
    elif words[1:] == ["seconds", "0.200"]:
        print("err unknown bestmove" if refuse else "wS1")
        refuse = False
    elif words[1:2] == ["time"]:
        print("wG1" if words[2] == "00:00:01" else "wA1")
    print("ok", flush=True)
"""


@pytest.mark.parametrize("mode", ["accept", "refuse"])
def test_a_time_with_a_fraction_is_sent_to_the_millisecond_where_the_engine_takes_it(mode):
    with UhpPlayer([sys.executable, "-c", TIME_ENGINE, mode], timeout_s=10) as engine:
        game = Game()
        assert engine.subsecond is None
        assert game.move_string(engine.choose(game, Budget(time_s=2.0))) == "wA1"  # whole seconds: UHP's
        assert engine.subsecond is None  # not asked
        answers = {game.move_string(engine.choose(game, Budget(time_s=0.2))) for _ in range(2)}
        if mode == "accept":  # bestmove seconds 0.200
            assert answers == {"wS1"} and engine.subsecond is True
        else:  # refused once, then bestmove time, rounded up to 00:00:01
            assert answers == {"wG1"} and engine.subsecond is False


def play_through_engine(uhp: Player, other: Player, uhp_white: bool, game_type: str, ply_cap: int) -> Game:
    game = Game(game_type, ply_cap=ply_cap)
    players = (uhp, other) if uhp_white else (other, uhp)
    while not game.is_over:
        game.play(players[game.side_to_move].choose(game))
    return game


def test_uhp_player_plays_whole_games_against_in_process_players(monkeypatch):
    monkeypatch.chdir(ROOT)
    with make_player(engine_spec("random"), seed=0) as uhp:  # type: ignore[attr-defined]
        assert uhp.engine_id == "hive-zero v0.1.0" and uhp.expansions == 7
        for i, (other, game_type) in enumerate([("greedy", "Base"), ("alphabeta:depth=1", "Base+MLP"),
                                                 ("random", "Base+P")]):
            game = play_through_engine(uhp, make_player(other, seed=i), i % 2 == 0, game_type, 150)
            assert game.is_over
            record = game.game_string()
            assert Game.from_string(record).state == game.state or game.ply == 150
            if game.ply < 150:  # the engine, given the whole record, agrees move for move
                assert uhp._command(f"newgame {record}", 10) == [record]
        assert uhp._proc.poll() is None  # still alive after three games
    assert uhp._proc.poll() is not None  # closed


def test_uhp_player_with_a_searching_engine_and_depth_budget():
    game = Game.from_board(*board_from_tiles("Base", WIN_IN_ONE, 14))
    record = Game.from_string("Base;InProgress;White[7];wA1;bB1 wA1\\;wA2 \\wA1;bB2 /bB1;wG1 /wA2;bQ -bB2;"
                              "wQ -wG1;bG1 bB2\\;wB1 -wA2;bQ /wA1;wQ /wG1;bS1 bG1-")
    player = UhpPlayer(ENGINE + ["--player", "alphabeta"], default_budget=Budget(depth=2), cwd=str(ROOT))
    try:
        assert record.move_string(player.choose(record)) == "wA2 /bQ"
        assert record.move_string(player.choose(record, Budget(time_s=0.5))) == "wA2 /bQ"
        assert player.subsecond is True  # hive-uhp takes bestmove seconds: 0.5 s went as 0.500
        with pytest.raises(ValueError, match="GameString"):
            player.choose(game)  # a set-up position has no record to send
    finally:
        player.close()


def test_uhp_player_reports_a_dead_or_silent_engine():
    with pytest.raises(UhpEngineError, match="cannot start"):
        UhpPlayer("/nonexistent/engine")
    with pytest.raises(UhpEngineError, match="exited"):
        UhpPlayer([sys.executable, "-c", "print('id fake')"], timeout_s=10)
    with pytest.raises(UhpEngineError, match="no reply"):
        UhpPlayer([sys.executable, "-c", "import time; time.sleep(30)"], timeout_s=0.5)
    fake = ("import sys\nprint('id fake'); print('ok', flush=True)\n"
            "for line in sys.stdin:\n"
            "    print('Base;NotStarted;White[1]' if line.startswith('newgame') else 'wQ')\n"
            "    print('ok', flush=True)")
    with UhpPlayer([sys.executable, "-c", fake], timeout_s=10) as bad:
        with pytest.raises(UhpEngineError, match="illegal here"):
            bad.choose(Game())  # wQ may not be placed on the first turn
        with pytest.raises(UhpEngineError, match="does not support"):
            bad.choose(Game("Base+M"))
        game = Game()
        game.play("wS1")
        with pytest.raises(UhpEngineError, match="lost sync"):
            bad.choose(game)
