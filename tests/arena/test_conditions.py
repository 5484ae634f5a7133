"""Match conditions: the game clock (a fake clock), each player's own time, faults of our own
players, the termination vocabulary, threads and pinning in the report."""

from __future__ import annotations

import json

import numpy as np
import pytest

from arena import game as game_module
from arena.arena import run_arena
from arena.cli import main as arena_main
from arena.config import ArenaConfig, ArenaError
from arena.game import play_game
from arena.report import format_report
from arena.schedule import resolve_openings, schedule
from arena.terminations import TERMINATIONS, rules_termination, termination_of
from hive_env import DRAW, Game
from hive_env.position import board_from_tiles
from hive_env.records.arena_record import ArenaRecord
from hive_env.rules import MAX_MOVES, generate_moves
from players import Budget
from players.clock import move_share

from helpers import whole


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class TimedFake:
    """Plays the first legal move, taking ``spend`` times its budget's time on the fake clock."""

    def __init__(self, name: str, clock: FakeClock, spend: float, log: list):
        self.name, self.clock, self.spend, self.log = name, clock, spend, log

    def choose(self, game, budget=None):
        self.log.append((self.name, game.ply, budget))
        self.clock.now += self.spend * (budget.time_s if budget and budget.time_s else 0.1)
        return int(game.legal_moves()[0])

    def close(self):
        pass


def patched_players(monkeypatch, players: dict):
    real = game_module.make_player
    monkeypatch.setattr(game_module, "make_player",
                        lambda spec, seed=0: players[spec] if spec in players else real(spec, seed))


def clock_task(white: str, black: str, clock: str, ply_cap: int = 120):
    config = ArenaConfig("gauntlet", (white, black), 2, openings="random:0", clock=clock, ply_cap=ply_cap)
    return config, schedule(config, ["Base"])[0]


# ----- the clock --------------------------------------------------------------------------------
def test_with_a_clock_each_move_gets_its_share_and_no_side_exceeds_its_time(monkeypatch):
    clock, log = FakeClock(), []
    patched_players(monkeypatch, {"w": TimedFake("w", clock, 0.9, log), "b": TimedFake("b", clock, 1.0, log)})
    _, task = clock_task("w", "b", "5+0.1")
    record = play_game(task, clock=clock)
    assert record["termination"] in ("ply_cap", "queen_surrounded", "repetition", "both_surrounded")
    assert record["clock"] == "5+0.1"
    # replay the clocks: every budget is the share of the clock as it stood, none ran out
    left = [5.0, 5.0]
    for name, ply, budget in log:
        side = ply % 2
        assert budget.time_s == pytest.approx(move_share(left[side], 0.1), abs=1e-9)
        assert budget.time_s < left[side]
        left[side] -= (0.9 if name == "w" else 1.0) * budget.time_s
        assert left[side] > 0
        left[side] += 0.1
    assert record["clock_left"] == pytest.approx(left, abs=1e-3)
    white_moves = len(log[::2])
    assert record["white_seconds"] + record["clock_left"][0] == pytest.approx(5 + 0.1 * white_moves, abs=1e-3)


def test_a_flag_fall_is_a_loss_on_time(monkeypatch):
    clock, log = FakeClock(), []
    patched_players(monkeypatch, {"w": TimedFake("w", clock, 1.0, log),
                                  "b": TimedFake("b", clock, 30.0, log)})
    _, task = clock_task("w", "b", "3+0")
    record = play_game(task, clock=clock)
    assert record["termination"] == "time_forfeit" and record["result"] == "1-0"
    assert record["detail"].startswith("black took") and record["clock_left"][1] < 0 < record["clock_left"][0]
    flagged_at = log[-1][1]
    assert record["plies"] == flagged_at  # the late move was not played
    _, task = clock_task("b", "w", "3+0")
    assert play_game(task, clock=clock)["result"] == "0-1"  # the same side, as White


def test_a_clock_is_given_alone_and_checked(tmp_path, capsys):
    with pytest.raises(ArenaError, match="without --time"):
        ArenaConfig("gauntlet", ("random", "greedy"), 2, time_s=1, clock="60+1")
    with pytest.raises(ArenaError, match="time= is a budget a move"):
        ArenaConfig("gauntlet", ("random", "alphabeta:time=1"), 2, clock="60+1")
    with pytest.raises(ArenaError, match="bad clock"):
        ArenaConfig("gauntlet", ("random", "greedy"), 2, clock="60s")
    assert ArenaConfig("gauntlet", ("random", "greedy"), 2, clock=" 60 + 1").clock == "60+1"
    assert arena_main(["gauntlet", "random", "greedy", "--clock", "1m", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bad clock '1m'" in err


def test_a_clock_match_against_real_players_stays_within_the_clocks(tmp_path):
    config = ArenaConfig("gauntlet", ("alphabeta", "greedy"), 2, clock="2+0.05", ply_cap=40)
    report = run_arena(config, tmp_path, progress=False)
    for record in report.records:
        assert record["termination"] != "time_forfeit" and min(record["clock_left"]) > 0
        assert record["threads"][record["white"] != "alphabeta"] == 1
    assert "Budget: clock 2+0.05" in format_report(report)
    assert json.loads((tmp_path / "config.json").read_text())["settings"]["clock"] == "2+0.05"


# ----- each player's own time ---------------------------------------------------------------------
def test_a_spec_time_overrides_the_arena_time_for_that_player(monkeypatch, tmp_path):
    config = ArenaConfig("gauntlet", ("alphabeta:time=0.3", "alphabeta:depth=1", "greedy"), 2, time_s=1.0)
    tasks = schedule(config, resolve_openings(config))
    for task in tasks:
        for side, spec in enumerate((task.white, task.black)):
            want = 0.3 if spec == "alphabeta:time=0.3" else 1.0
            assert task.side_budget(side) == Budget(time_s=want)
    assert ArenaConfig("gauntlet", ("alphabeta:time=0.3", "greedy"), 2).thread_limit() == 1  # timed
    assert ArenaConfig("gauntlet", ("alphabeta:depth=2", "greedy"), 2).thread_limit() is None
    assert ArenaConfig("gauntlet", ("alphabeta:time=0.3", "greedy"), 2, depth=4).side_budget(
        "alphabeta:time=0.3") == Budget(time_s=0.3, depth=4)
    # played: each side's seconds a move follow its own time (the report shows the odds)
    clock, log = FakeClock(), []
    patched_players(monkeypatch, {"az:time=0.5": TimedFake("a", clock, 1.0, log),
                                  "ab": TimedFake("b", clock, 1.0, log)})
    monkeypatch.setattr("arena.config.spec_time", lambda spec: 0.5 if spec == "az:time=0.5" else None)
    config = ArenaConfig("gauntlet", ("az:time=0.5", "ab"), 2, time_s=2.0, ply_cap=10, openings="random:0")
    record = play_game(schedule(config, ["Base"])[0], clock=clock)
    assert {(n, b.time_s) for n, _, b in log} == {("a", 0.5), ("b", 2.0)}
    assert record["move_seconds"][:2] == [0.5, 2.0]


def test_alphazero_takes_time_in_its_spec():
    from players import make_player

    player = make_player("alphazero:time=0.05,device=cpu")
    try:
        assert player.default_budget == Budget(time_s=0.05)
        game = Game()
        player.choose(game)
        assert player.last_sims > 2 * 4  # searched by time, not the default 200 sims' cap
    finally:
        player.close()


# ----- faults of our own players -------------------------------------------------------------------
class Crasher:
    name = "crasher"

    def choose(self, game, budget=None):
        if game.ply >= 6:
            raise RuntimeError("out of\nmemory")
        return int(game.legal_moves()[0])

    def close(self):
        pass


def test_an_error_in_our_player_is_its_loss_and_the_match_goes_on(monkeypatch, tmp_path):
    patched_players(monkeypatch, {"crasher": Crasher()})
    config = ArenaConfig("gauntlet", ("random", "crasher"), 4, openings="random:2")
    report = run_arena(config, tmp_path, progress=False)
    assert report.complete and report.games_done == 4
    for record in report.records:
        assert record["termination"] == "player_error"
        assert record["white_score"] == (1.0 if record["white"] == "random" else 0.0)
        side = "white" if record["white"] == "crasher" else "black"
        assert record["detail"] == f"{side} RuntimeError: out of memory"
    assert report.terminations == {(0, 1): {"player_error": 4}}
    assert "player_error" in format_report(report)


# ----- terminations -----------------------------------------------------------------------------
def repetition_game() -> Game:
    """A Base game drawn by repetition: both Queens step back and forth."""
    game = Game.from_string("Base;InProgress;White[3];wG1;bG1 wG1-;wQ -wG1;bQ bG1-")
    start = game.hash
    for _ in range(3):
        for move in _queen_shuffle(game, start):
            game.play(move)
            if game.is_over:
                return game
    raise AssertionError("no repetition")


def _queen_shuffle(game: Game, start: int) -> list[str]:
    """Four queen moves that come back to the position ``start``."""
    for a in _queen_moves(game):
        game.play(a)
        for b in _queen_moves(game):
            game.play(b)
            for c in _queen_moves(game):
                game.play(c)
                for d in _queen_moves(game):
                    game.play(d)
                    back = game.hash == start or game.is_over
                    game.undo()
                    if back:
                        game.undo(3)
                        return [a, b, c, d]
                game.undo()
            game.undo()
        game.undo()
    raise AssertionError("no shuffle")


def _queen_moves(game: Game) -> list[str]:
    return [m for m in game.legal_move_strings() if m[1] == "Q"]


def test_rules_terminations_are_told_apart():
    draw = repetition_game()
    assert draw.status == DRAW and rules_termination(draw) == "repetition"
    board, hist = board_from_tiles("Base", [
        ("wQ", 0, 0), ("bQ", 1, 0), ("wS1", 0, 1), ("wS2", -1, 1), ("wB1", -1, 0), ("wB2", 0, -1),
        ("bS1", 2, -1), ("bS2", 2, 0), ("bB1", 1, 1), ("bA1", 1, -2)], ply=17)
    both = Game.from_board(board, hist)
    moves = np.zeros(MAX_MOVES, np.int32)
    for move in moves[:generate_moves(both.board, moves)]:
        trial = both.copy()
        trial.play(int(move))
        if trial.status == DRAW:
            assert rules_termination(trial) == "both_surrounded"
            break
    else:
        raise AssertionError("no double surround")


def test_old_records_read_in_the_vocabulary():
    def old(word: str, **fields) -> ArenaRecord:
        return ArenaRecord.from_json(whole({"white_index": 0, "black_index": 1, "white_score": 0.5,
                                            "termination": word, **fields}))

    assert termination_of(old("Draw", game_string=repetition_game().game_string())) == "repetition"
    assert termination_of(old("WhiteWins")) == "queen_surrounded"
    assert termination_of(old("PlyCap")) == "ply_cap"
    assert termination_of(old("EngineError")) == "engine_crash"
    assert termination_of(old("time_forfeit")) == "time_forfeit"
    assert set(TERMINATIONS) >= {"queen_surrounded", "both_surrounded", "repetition", "ply_cap",
                                 "time_forfeit", "illegal_move", "engine_crash", "player_error"}


def test_the_report_counts_terminations_and_shows_threads_and_pinning(tmp_path):
    config = ArenaConfig("gauntlet", ("alphabeta:depth=1", "random", "greedy"), 4, time_s=0.02, ply_cap=30)
    report = run_arena(config, tmp_path, workers=2, progress=False)
    assert sum(sum(c.values()) for c in report.terminations.values()) == 8
    assert set(report.terminations[(0, 1)]) <= set(TERMINATIONS)
    assert report.threads[0] == "1"
    text = format_report(report)
    assert "Budget: 0.02 s a move; threads: alphabeta:depth=1 1" in text
    import os

    if len(os.sched_getaffinity(0)) >= 2:
        assert report.pinned == "pinned" and "pinned to a core of its own" in text
        assert {len(r["cpus"]) for r in report.records} == {1}
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["pairings"][0]["terminations"] == report.terminations[(0, 1)]
    assert summary["conditions"]["threads"]["alphabeta:depth=1"] == "1"
    csv_head = (tmp_path / "pairings.csv").read_text().splitlines()[0]
    assert csv_head.endswith(",terminations")

