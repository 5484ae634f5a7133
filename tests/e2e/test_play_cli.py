"""``hive-play`` driven through its stdin (and a pty for line editing), and its text board."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import time

import pytest

from hive_env import Game
from hive_env.board import POS
from hive_env.display.text import render_board, use_colour
from hive_env.position import board_from_tiles
from players.simple import RandomPlayer
from players.terminal import Session

from helpers import ROOT, WIN_IN_ONE

PLAY = [sys.executable, "-m", "scripts.play"]
# White to move wins with wA2 /bQ


def run_play(args: list[str], stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*PLAY, *args], cwd=ROOT, input=stdin, capture_output=True, text=True, timeout=120)


def safe_quiet_move(game_string: str) -> str:
    """A White placement that leaves Black no winning reply (so the game goes on)."""
    game = Game.from_string(game_string)
    for move in game.legal_moves():
        if game.board[POS + (int(move) >> 10)] >= 0:
            continue  # placements only: they cannot spoil White's win in one
        child = _after(game, move)
        if not child.is_over and all(_after(child, r).state != "BlackWins" for r in child.legal_moves()):
            return game.move_string(move)
    raise AssertionError("no quiet move")


def _after(game: Game, move: int) -> Game:
    child = game.copy()
    child.play(int(move))
    return child


def test_short_game_with_an_illegal_move_and_undo(tmp_path):
    quiet = safe_quiet_move(WIN_IN_ONE)
    record = tmp_path / "game.txt"
    stdin = "\n".join(["wZ9", "wQ bQ", "moves", quiet, "game", "undo", "board", "help", "wA2 /bQ", ""])
    args = ["--opponent", "random", "--seed", "5", "--from", WIN_IN_ONE, "--out", str(record)]
    done = run_play(args, stdin)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    illegal = [ln.split("> ")[-1] for ln in out.splitlines() if "illegal: " in ln]
    assert len(illegal) == 2  # one line each, then a new prompt
    assert "'wZ9' is not a tile name" in illegal[0] and illegal[1].startswith("illegal: wQ bQ: ")
    listed = next(ln.split("> ")[-1] for ln in out.splitlines() if "wA2 /bQ; " in ln or "; wA2 /bQ" in ln)
    assert set(listed.split("; ")) == set(Game.from_string(WIN_IN_ONE).legal_move_strings())  # ; as in UHP
    assert "random is thinking...\nrandom plays " in out and "took back 2 plies; White[7] to move" in out
    assert re.search(r"random plays [wb][A-Z]\d?[^\n]* \(\d+\.\d s\)\n", out)  # the seconds it took
    assert re.search(r"\nlast move: Black [wb][A-Z]", out)
    assert "A move is a UHP MoveString" in out
    assert "result: WhiteWins" in out and f"game record written to {record}" in out
    assert "\x1b[" not in out  # not a terminal: no colours
    won = WIN_IN_ONE.replace("InProgress;White[7]", "WhiteWins;Black[7]") + ";wA2 /bQ"
    assert record.read_text() == won + "\n"
    assert Game.from_string(record.read_text()).state == "WhiteWins"
    assert not list(tmp_path.glob("*.tmp")) and not list(tmp_path.glob(".hive-play-*"))


def test_play_black_from_the_start_and_resign(tmp_path):
    record = tmp_path / "g.txt"
    done = run_play(["--opponent", "alphabeta:depth=1", "--colour", "black", "--game-type", "Base+MLP",
                     "--out", str(record)], "undo\nmoves\nresign\n")
    assert done.returncode == 0, done.stderr
    assert "you are Black against alphabeta:depth=1 (Base+MLP)" in done.stdout
    assert "nothing to undo: you have not moved yet" in done.stdout
    assert "result: WhiteWins (you resigned)" in done.stdout
    game = Game.from_string(record.read_text())
    assert game.game_type == "Base+MLP" and game.ply == 1


def test_end_of_input_and_bad_arguments(tmp_path):
    record = tmp_path / "g.txt"
    done = run_play(["--opponent", "random", "--out", str(record)], "wS1\n")
    assert done.returncode == 0 and "result: stopped (end of input)" in done.stdout
    assert Game.from_string(record.read_text()).ply == 2
    bad = run_play(["--opponent", "chess"], "")
    assert bad.returncode == 2 and "unknown player kind 'chess'" in bad.stderr
    bad = run_play(["--from", "Base;InProgress;White[3]"], "")
    assert bad.returncode == 2 and "hive-play: error:" in bad.stderr


def test_an_opponent_engine_that_does_not_start_is_one_line(tmp_path):
    done = run_play(["--opponent", "uhp:cmd=/nonexistent/engine", "--out", str(tmp_path / "g.txt")], "")
    assert done.returncode == 2 and "Traceback" not in done.stderr and done.stderr.count("\n") == 1
    assert done.stderr.startswith("hive-play: error: cannot start opponent 'uhp:cmd=/nonexistent/engine': "
                                  "cannot start engine '/nonexistent/engine'")
    assert not (tmp_path / "g.txt").exists()


def test_render_draws_a_hex_grid_with_stacks():
    #   wQ sits under bB1; wS1 to its east, bA1 south-east of the stack
    board, _ = board_from_tiles("Base", [("wQ", 0, 0), ("bB1", 0, 0), ("wS1", 1, 0), ("bA1", 0, 1)], 4)
    lines = render_board(board, empty_marks=False).splitlines()
    assert lines == ["bB1^2  wS1", "    bA1", "stacks (bottom < top): wQ < bB1"]
    marked = render_board(board)
    assert marked.count(".") == 9 and "bB1^2" in marked
    coloured = render_board(board, colour=True)
    assert "\x1b[" in coloured and "bB1^2" in coloured
    assert render_board(Game().board) == "(empty board)"


def test_use_colour_only_on_terminals(monkeypatch):
    class Tty:
        def isatty(self) -> bool:
            return True

    class Pipe:
        def isatty(self) -> bool:
            return False

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert use_colour(Tty()) and not use_colour(Pipe())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not use_colour(Tty())


def test_from_a_saved_game_file_with_a_steady_board(tmp_path):
    saved = tmp_path / "saved.txt"
    saved.write_text("Base;InProgress;White[3];wS1;bS1 wS1-;wQ -wS1;bQ bS1-\n")
    record = tmp_path / "out.txt"
    done = run_play(["--opponent", "random", "--seed", "1", "--from", str(saved), "--out", str(record)],
                    "board\nwA1 bQ-\nwQ \\wS1\n")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "last move: Black bQ bS1-" in out  # the start position names its last move too
    assert ("illegal: wA1 bQ-: wA1 cannot be placed there: a placed tile may not touch an opponent's tile "
            "(after each side's first placement)") in out
    assert Game.from_string(record.read_text()).move_strings[:5] == [
        "wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-", "wQ \\wS1"]
    # no re-centring: the Queen leaves the left edge, yet wS1 stays in its column
    boards = [ln.split("> ")[-1] for ln in out.splitlines() if "wS1" in ln and ";" not in ln]
    assert len(boards) >= 3 and len({ln.index("wS1") for ln in boards}) == 1
    bad = run_play(["--from", str(tmp_path / "missing.txt")], "")
    assert bad.returncode == 2 and "is neither a file nor a GameString" in bad.stderr


def test_an_illegal_movement_is_refused_with_the_rule_it_breaks():
    # "bQ -wQ" on White's turn once said "bQ cannot move there"; the reason names the rule now
    game = Game.from_string("Base;InProgress;White[3];wS1;bS1 wS1-;wQ -wS1;bQ bS1-")  # wQ wS1 bS1 bQ
    out = io.StringIO()
    session = Session(game, RandomPlayer(0), 0, io.StringIO("bQ -wQ\nwS1 /wQ\nwQ bQ\nquit\n"), out)
    session.run()
    refused = [ln.split("> ")[-1] for ln in out.getvalue().splitlines() if "illegal: " in ln]
    assert refused == [
        "illegal: bQ -wQ: bQ is Black's: it is White's turn",
        "illegal: wS1 /wQ: moving wS1 would split the hive (one-hive rule)",
        "illegal: wQ bQ: the cell is taken: only a beetle (or a mosquito touching one) climbs onto the hive"]
    assert session.result == "stopped" and game.ply == 4


def test_line_editing_and_history_on_a_terminal(tmp_path):
    """Through a pty: Ctrl-A moves to the start of the line, Up recalls the previous line."""
    pty = pytest.importorskip("pty")
    pytest.importorskip("readline")
    master, slave = pty.openpty()
    env = {**os.environ, "TERM": "xterm", "NO_COLOR": "1", "INPUTRC": "/dev/null"}
    proc = subprocess.Popen([*PLAY, "--opponent", "random", "--out", str(tmp_path / "g.txt")], cwd=ROOT,
                            stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True)
    os.close(slave)
    seen = b""

    def read_until(marker: bytes, count: int) -> None:
        nonlocal seen
        deadline = time.monotonic() + 60  # a hang fails the test, it does not measure speed
        while seen.count(marker) < count and time.monotonic() < deadline:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the child closed the terminal
                break
            seen += chunk

    try:
        read_until(b"White[1]> ", 1)
        os.write(master, b"S1\x01w\r")  # typed "S1", Ctrl-A, "w": the line is wS1
        read_until(b"White[2]> ", 1)
        os.write(master, b"game\r")
        read_until(b"Base;InProgress;White[2];wS1;", 1)
        os.write(master, b"\x1b[A\r")  # Up: "game" again
        read_until(b"Base;InProgress;White[2];wS1;", 2)
        os.write(master, b"quit\r")
        read_until(b"game record written", 1)
    finally:
        proc.wait(timeout=60)
        os.close(master)
    text = seen.decode(errors="replace")
    assert "random plays " in text and "illegal" not in text
    assert text.count("Base;InProgress;White[2];wS1;") >= 2 and "result: stopped" in text
    assert Game.from_string((tmp_path / "g.txt").read_text()).move_strings[0] == "wS1"
