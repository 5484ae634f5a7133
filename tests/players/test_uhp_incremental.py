"""The UHP client keeps the engine's game between moves (``play``/``undo``, ``newgame`` only at a
game's start or to resync) and sets the engine's options; the engine is
``tests/fake_engines/uhp_recorder.py``, which logs every command it gets."""

from __future__ import annotations

import shlex
import sys

import pytest

from arena.arena import run_arena
from arena.config import ArenaConfig, ArenaError
from hive_env import Game
from players import Budget, PlayerSpecError, make_player
from players.uhp_client import UhpEngineError, UhpPlayer

from helpers import ROOT, require_tool

RECORDER = ROOT / "tests" / "fake_engines" / "uhp_recorder.py"


def recorder(log, mode: str = "normal", **kw) -> UhpPlayer:
    return UhpPlayer([sys.executable, str(RECORDER), str(log), mode], default_budget=Budget(depth=1), **kw)


def recorder_spec(log, mode: str = "normal", options: str = "") -> str:
    cmd = shlex.join([sys.executable, str(RECORDER), str(log), mode])
    return f"uhp:cmd={cmd},depth=1" + (f",{options}" if options else "")


def commands(log) -> list[str]:
    return [ln for ln in log.read_text().splitlines() if ln and ln not in ("info", "options")]


def play_out(engine: UhpPlayer, game: Game, replies: int) -> None:
    """The engine moves, then a fixed reply (the first legal move) is played for the other side."""
    for _ in range(replies):
        game.play(engine.choose(game))
        game.play(game.legal_moves()[0])


def test_the_engine_gets_newgame_once_then_each_new_move_as_play(tmp_path):
    log = tmp_path / "log"
    game = Game.from_string("Base;InProgress;White[2];wS1;bS1 wS1-")
    with recorder(log) as engine:
        play_out(engine, game, 4)
        sent = commands(log)
        assert engine.resyncs == 0
    assert sent[0] == "newgame Base;InProgress;White[2];wS1;bS1 wS1-"
    assert sum(c.startswith("newgame") for c in sent) == 1
    moves = game.game_string().split(";")[3:]
    played = [c.removeprefix("play ") for c in sent if c.startswith("play ")]
    assert played == moves[2:-2]  # every move after the opening once; the last two came after the last ask
    assert [c for c in sent if not c.startswith("play ")][1:] == ["bestmove depth 1"] * 4
    # the replies were checked: the engine's game is ours
    assert engine._engine_game == ("Base", moves[:-2])


def test_a_game_that_went_back_is_undone_not_restarted(tmp_path):
    log = tmp_path / "log"
    game = Game()
    with recorder(log) as engine:
        play_out(engine, game, 3)  # 6 plies; the engine has 4
        game.undo()
        game.undo()
        game.undo()
        before = len(commands(log))
        game.play(engine.choose(game))
        sent = commands(log)[before:]
        assert sent == ["undo 1", "bestmove depth 1"]
        other = Game.from_string("Base;InProgress;White[2];wG1;bG1 wG1-")  # shares no move: restart
        engine.choose(other)
        assert commands(log)[-2] == "newgame Base;InProgress;White[2];wG1;bG1 wG1-"
        assert engine.resyncs == 0


def test_an_engine_out_of_step_is_resynced_with_the_whole_game(tmp_path):
    log = tmp_path / "log"
    game = Game()
    with recorder(log, "drift") as engine:
        play_out(engine, game, 4)  # the third play is answered one move short
        sent = commands(log)
        assert engine.resyncs == 1
    newgames = [k for k, c in enumerate(sent) if c.startswith("newgame")]
    assert len(newgames) == 2
    third_play = [k for k, c in enumerate(sent) if c.startswith("play")][2]
    assert newgames[1] == third_play + 1  # resynced at once
    assert sent[newgames[1]] .startswith("newgame Base;InProgress;")
    assert sent[-1] == "bestmove depth 1" and sent[-2].startswith("play")  # incremental again


def test_an_engine_that_stays_out_of_step_has_lost_sync(tmp_path):
    log = tmp_path / "log"
    game = Game()
    with recorder(log, "stuck") as engine:
        game.play(engine.choose(game))
        game.play(game.legal_moves()[0])
        with pytest.raises(UhpEngineError, match="lost sync"):
            engine.choose(game)


def test_options_are_set_where_the_engine_lists_them(tmp_path):
    log = tmp_path / "log"
    with recorder(log, threads=1, table_mib=64) as engine:
        assert engine.threads == 1 and engine.options["TableSizeMiB"][1] == "64"
    assert "options set NumThreads 1" in commands(log) and "options set TableSizeMiB 64" in commands(log)
    player = make_player(recorder_spec(tmp_path / "log2", options="threads=3"))
    try:
        assert player.threads == 3
    finally:
        player.close()
    with pytest.raises(PlayerSpecError, match="threads"):
        make_player(recorder_spec(tmp_path / "log3", options="threads=0"))


def test_an_option_the_engine_does_not_list_is_refused_in_one_line(tmp_path):
    with pytest.raises(UhpEngineError, match=r"has no option NumThreads \(its options: none\)$"):
        recorder(tmp_path / "log", "nooptions", threads=1)
    with pytest.raises(ArenaError) as e:
        spec = recorder_spec(tmp_path / "log4", "nooptions", "threads=2")
        run_arena(ArenaConfig("gauntlet", ("random", spec), 2), tmp_path / "arena", progress=False)
    assert "has no option NumThreads" in str(e.value) and "\n" not in str(e.value)
    with recorder(tmp_path / "log5", "nooptions") as engine:  # no option asked: it plays, threads unknown
        assert engine.threads is None and not engine.limit_threads(1)
        engine.choose(Game())


def test_a_timed_arena_asks_engines_for_one_thread_and_reports_it(tmp_path):
    log = tmp_path / "log"
    spec = recorder_spec(log).removesuffix(",depth=1")
    report = run_arena(ArenaConfig("gauntlet", ("alphabeta:depth=1", spec), 2, time_s=0.05, ply_cap=12),
                       tmp_path / "timed", progress=False)
    assert "options set NumThreads 1" in log.read_text().splitlines()
    assert all(r["threads"] == [1, 1] for r in report.records)
    assert report.threads == ["1", "1"]
    log.unlink()
    report = run_arena(ArenaConfig("gauntlet", ("alphabeta:depth=1", spec), 2, ply_cap=12),
                       tmp_path / "untimed", progress=False)
    assert not any(ln.startswith("options set") for ln in log.read_text().splitlines())
    assert report.threads == ["1", "2"]  # the engine's own
    log.unlink()
    run_arena(ArenaConfig("gauntlet", ("alphabeta:depth=1", spec + ",threads=3"), 2, time_s=0.05, ply_cap=12),
              tmp_path / "own", progress=False)
    assert "options set NumThreads 3" in log.read_text() and "options set NumThreads 1" not in log.read_text()


def test_nokamute_follows_the_game_move_by_move_on_one_thread(tmp_path):
    """The real engine: one newgame a game, every reply in step, NumThreads and TableSizeMiB set."""
    nokamute = require_tool("nokamute")
    with UhpPlayer([str(nokamute)], default_budget=Budget(depth=1), threads=1, table_mib=16) as engine:
        assert engine.threads == 1 and engine.options["TableSizeMiB"][1] == "16"
        game = Game("Base+MLP")
        for _ in range(12):
            game.play(engine.choose(game))
            if game.is_over:
                break
            game.play(game.legal_moves()[0])
            if game.is_over:
                break
        sent_before = engine.commands
        game.undo(3)
        engine.choose(game)  # undo, not a new game
        assert engine.resyncs == 0 and engine.commands - sent_before == 2  # "undo N" and bestmove
        assert engine._engine_game is not None and engine._engine_game[1] == game.game_string().split(";")[3:]
