"""Hostile external engines: the ``uhp`` player and the arena against engines that stream forever,
answer garbage, illegal moves or invalid UTF-8, sleep, die, or outlive a killed arena.

The engines are ``tests/fake_engines/uhp_fake.py MODE`` (see its docstring).
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from arena.arena import run_arena
from arena.config import ArenaConfig, ArenaError
from hive_env import Game
from players import Budget, make_player, uhp_client
from players.uhp_client import (
    MAX_LINE_BYTES,
    MAX_REPLY_LINES,
    UhpEngineError,
    UhpIllegalMoveError,
    UhpPlayer,
)

from helpers import MIDGAME, ROOT, UHP_ENGINE

FAKE = ROOT / "tests" / "fake_engines" / "uhp_fake.py"


def fake_cmd(mode: str, *extra: str) -> list[str]:
    return [sys.executable, str(FAKE), mode, *extra]


def fake_spec(mode: str, *extra: str, options: str = "") -> str:
    return "uhp:cmd=" + shlex.join(fake_cmd(mode, *extra)) + (f",{options}" if options else "")


def fake(mode: str, timeout_s: float = 10.0) -> UhpPlayer:
    return UhpPlayer(fake_cmd(mode), default_budget=Budget(depth=1), timeout_s=timeout_s)


# ----- the uhp player ------------------------------------------------------------------------------
@pytest.mark.timeout(60)  # before the fix every line restarted the timeout: this never returned
def test_a_reply_trickling_forever_is_cut_at_the_deadline():
    with fake("trickle", timeout_s=1.0) as engine:
        with pytest.raises(UhpEngineError, match=r"gave no reply to 'bestmove depth 1' within 1 s"):
            engine.choose(Game.from_string(MIDGAME))
        assert engine._proc.poll() is not None  # killed: its output is out of step now
        with pytest.raises(UhpEngineError, match="is not running"):
            engine.choose(Game.from_string(MIDGAME))


@pytest.mark.timeout(60)
def test_a_flood_of_lines_or_a_huge_line_is_refused_with_a_short_message():
    with fake("stream", timeout_s=30.0) as engine:
        with pytest.raises(UhpEngineError, match=f"over {MAX_REPLY_LINES} lines without ok") as info:
            engine.choose(Game())
        assert len(str(info.value)) < 1000 and "streaming" in str(info.value)
    with fake("longline", timeout_s=30.0) as engine:
        with pytest.raises(UhpEngineError, match=f"a line over {MAX_LINE_BYTES} bytes") as info:
            engine.choose(Game())
        assert len(str(info.value)) < 500


@pytest.mark.timeout(60)
def test_invalid_utf8_is_a_bad_line_not_a_dead_reader():
    # before: the text-mode reader thread died of UnicodeDecodeError and the move timed out
    with fake("badbytes", timeout_s=30.0) as engine:
        with pytest.raises(UhpIllegalMoveError, match="illegal here") as info:
            engine.choose(Game())
        assert "\ufffd" in str(info.value)
        with pytest.raises(UhpIllegalMoveError):  # still in step: the next command works
            engine.choose(Game())
    with fake("badinfo") as engine:
        assert engine.engine_id.startswith("fake \ufffd") and engine.expansions == 7


@pytest.mark.timeout(60)
def test_bad_answers_and_a_dead_engine_raise_clipped_errors():
    with fake("garbage") as engine, pytest.raises(UhpIllegalMoveError, match="'zzz garbage', illegal here"):
        engine.choose(Game())
    with fake("illegal") as engine, pytest.raises(UhpIllegalMoveError, match="'pass', illegal here"):
        engine.choose(Game.from_string(MIDGAME))
    with fake("die") as engine:  # 50 stderr lines of 5000 characters each
        with pytest.raises(UhpEngineError, match="exited while answering") as info:
            engine.choose(Game())
        message = str(info.value)
        assert not isinstance(info.value, UhpIllegalMoveError)
        assert "fatal 49" in message and "fatal 46" not in message and len(message) < 1000
    with pytest.raises(UhpEngineError, match="No closing quotation"):
        UhpPlayer("engine 'unbalanced")


def test_uhp_cmd_runs_without_a_shell_split_like_posix_shlex():
    cmd = shlex.join(fake_cmd("garbage")) + " 'two words' a\\ b $HOME * 'x|y' ';'"
    with UhpPlayer(cmd) as engine:
        assert json.loads(engine.engine_id.split(" ", 2)[2]) == ["two words", "a b", "$HOME", "*", "x|y", ";"]
    doc = uhp_client.make_player.__doc__ or ""
    assert "without a shell" in doc and "shlex.split" in doc
    readme = (ROOT / "docs" / "players.md").read_text()  # the README's page on players
    assert "without a shell" in readme and "shlex.split" in readme


# ----- the arena -----------------------------------------------------------------------------------
@pytest.mark.timeout(120)
def test_engine_failures_are_recorded_losses_and_the_arena_goes_on(tmp_path):
    illegal, garbage = fake_spec("illegal"), fake_spec("garbage")
    asleep, dead = fake_spec("sleep", options="depth=1,timeout=0.5"), fake_spec("die")
    config = ArenaConfig("gauntlet", ("random", illegal, garbage, asleep, dead), 2)
    report = run_arena(config, tmp_path, progress=False)
    assert report.complete and report.games_done == 8
    expected = {illegal: "illegal_move", garbage: "illegal_move", asleep: "engine_timeout",
                dead: "engine_crash"}
    for record in report.records:
        engine_white = record["white"] != "random"
        engine = record["white"] if engine_white else record["black"]
        assert record["termination"] == expected[engine]
        assert record["white_score"] == (0.0 if engine_white else 1.0)  # the engine lost
        assert record["detail"].startswith("white engine" if engine_white else "black engine")
        assert len(record["detail"]) <= 320
        assert Game.from_string(record["game_string"]).state == "InProgress"
    assert "within 0.5 s" in next(r["detail"] for r in report.records if asleep in (r["white"], r["black"]))
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["complete"] and summary["ratings"][0]["player"] == "random"
    again = []
    run_arena(config, tmp_path, progress=False, on_record=again.append)
    assert again == []  # a rerun does not replay the failed games


def test_an_engine_that_cannot_start_or_play_the_game_type_stops_the_arena_before_any_game(tmp_path, capsys):
    from arena.cli import main

    out = tmp_path / "a"
    argv = ["gauntlet", "random", "uhp:cmd=/nonexistent/engine", "--out", str(out), "--no-progress"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("hive-arena: error: cannot build player 'uhp:cmd=/nonexistent/engine'")
    assert err.count("\n") == 1 and not (out / "games.jsonl").exists()
    with pytest.raises(ArenaError, match="does not support game type Base\\+M"):
        run_arena(ArenaConfig("gauntlet", ("random", fake_spec("baseonly")), 2, game_type="Base+M"),
                  tmp_path / "b", progress=False)


def test_hive_uhp_with_an_engine_that_does_not_start_says_one_line():
    done = subprocess.run([*UHP_ENGINE, "--player", "uhp:cmd=/nonexistent/engine"], cwd=ROOT, input="",
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("hive-uhp: error: cannot start engine") and done.stderr.count("\n") == 1


# ----- no process outlives the arena ------------------------------------------------------------------
def processes() -> dict[int, tuple[int, str, bytes]]:
    """pid -> (parent pid, state, command line) of every process, from /proc."""
    out = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        out[int(entry.name)] = (int(fields[1]), fields[0], cmdline)
    return out


def alive(pids: set[int]) -> set[int]:
    table = processes()
    return {p for p in pids if p in table and table[p][1] != "Z"}


def wait_until(condition, seconds: float):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    return condition()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc; PR_SET_PDEATHSIG is Linux")
@pytest.mark.timeout(180)
def test_a_killed_parallel_arena_leaves_no_engine_or_worker(tmp_path):
    marker = f"hive-test-{uuid.uuid4().hex}".encode()
    spec = fake_spec("sleep", marker.decode(), options="timeout=120")  # every engine move hangs
    script = ("from arena.arena import run_arena\nfrom arena.config import ArenaConfig\n"
              f"run_arena(ArenaConfig('gauntlet', ({spec!r}, 'random'), 4), {str(tmp_path)!r}, workers=2, "
              "progress=False)\n")
    arena = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT)
    try:
        def engines_in_games() -> set[int]:  # started by the workers (not check_players' own)
            table = processes()
            return {p for p, (ppid, state, cmd) in table.items()
                    if marker in cmd and state != "Z" and arena.pid not in (p, ppid)}

        engines = wait_until(lambda: len(engines_in_games()) >= 2 and engines_in_games(), 120)
        assert len(engines) >= 2, "the workers never started their engines"
        table = processes()
        workers = {p for p, (ppid, _, _) in table.items() if ppid == arena.pid}
        assert {table[e][0] for e in engines} <= workers
    finally:
        arena.kill()  # SIGKILL: no finally, no atexit in the arena process
        arena.wait()
    left = wait_until(lambda: not alive(workers | engines), 30)
    assert left, f"still running after the arena was killed: {sorted(alive(workers | engines))}"


def test_a_pool_worker_whose_parent_died_during_start_up_exits():
    gone = subprocess.Popen(["true"])
    gone.wait()  # a pid that is no longer this worker's parent, as after a death during start-up
    code = ("import time\nfrom arena.executor import _init_worker\n"
            f"_init_worker([], {gone.pid})\ntime.sleep(60)\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=50)
    assert done.returncode == 1 and done.stderr == ""


def test_closing_players_of_the_arena_spec_kind_ends_the_engine():
    player = make_player(fake_spec("garbage"))
    proc = player._proc  # type: ignore[attr-defined]
    player.close()
    player.close()  # twice is harmless
    assert proc.poll() is not None
