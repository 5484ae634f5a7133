"""``hive-uhp`` end to end through a subprocess: exact replies, bad input, timing, exit."""

from __future__ import annotations

import queue
import signal
import subprocess
import threading
import time
from collections.abc import Callable

import numpy as np
import pytest
import torch

from hive_env import Game, HiveError
from models.gnn import build_model
from search.checkpoint import save_checkpoint

from helpers import MIDGAME, ROOT, WIN_IN_ONE
from helpers import UHP_ENGINE as ENGINE

INFO = ["id hive-zero v0.1.0", "Mosquito;Ladybug;Pillbug", "ok"]
# White to move wins with wA2 /bQ (found by a search over random games)
WON = WIN_IN_ONE.replace("InProgress;White[7]", "WhiteWins;Black[7]") + ";wA2 /bQ"
BLACK_FIRST = ";".join(f"b{bug} {ref}" for bug in ("S1", "B1", "G1", "A1")
                       for ref in ("wS1/", "wS1-", "wS1\\", "/wS1", "-wS1", "\\wS1"))
KINDS = "alphabeta;alphazero;greedy;random"
"""The Player option's choices: the kinds that need no option (the shipped network for alphazero)."""
OPTIONS = ["Player;enum;alphazero;alphazero;" + KINDS, "MaxDepth;int;0;0;0;60",
           "MaxTime;double;60.0;60.0;0.01;86400.0", "Seed;int;0;0;0;2147483647",
           "Leaves;int;0;0;0;256", "Level;int;0;0;0;10"]
"""The default player is the shipped network at its top level (a bare bestmove thinks 1 s)."""


def reason(action: Callable[[], object]) -> str:
    """The one-line message of the HiveError that ``action`` raises through the Game API.

    Replies that relay an engine refusal are compared with the Game API's own message, so
    these tests pin the protocol (which line, which prefix), not the wording of the rules engine.
    """
    try:
        action()
    except HiveError as e:
        return str(e)
    raise AssertionError("no HiveError raised")


def played(game_string: str, *moves: str) -> Game:
    game = Game.from_string(game_string)
    for m in moves:
        game.play(m)
    return game


class Engine:
    """A ``hive-uhp`` subprocess driven line by line, every read with a timeout."""

    def __init__(self, *args: str):
        pipe = subprocess.PIPE
        self.proc = subprocess.Popen([*ENGINE, *args], cwd=ROOT, stdin=pipe, stdout=pipe, stderr=pipe,
                                     text=True, bufsize=1)
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        self.startup = self.reply(timeout=60)

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def reply(self, timeout: float = 30) -> list[str]:
        out: list[str] = []
        while True:
            line = self.lines.get(timeout=timeout)
            assert line is not None, f"engine exited; stderr: {self.proc.stderr.read()}"  # type: ignore[union-attr]
            out.append(line)
            if line == "ok":
                return out

    def send(self, line: str, timeout: float = 30) -> list[str]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        return self.reply(timeout)

    def close(self) -> tuple[int, str]:
        """Close stdin (end of input); the exit status and anything left on stdout."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        rc = self.proc.wait(timeout=10)
        rest = []
        while (line := self.lines.get(timeout=5)) is not None:
            rest.append(line)
        self.proc.stderr.close()  # type: ignore[union-attr]
        return rc, "\n".join(rest)


@pytest.fixture(scope="module")
def engine():
    eng = Engine()
    yield eng
    if eng.proc.poll() is None:
        eng.close()


def test_scripted_session_exact_replies(engine):
    script = [
        ("info", INFO),
        ("newgame", ["Base;NotStarted;White[1]", "ok"]),
        ("newgame Base+MLP", ["Base+MLP;NotStarted;White[1]", "ok"]),
        ("newgame Base", ["Base;NotStarted;White[1]", "ok"]),
        ("play wS1", ["Base;InProgress;Black[1];wS1", "ok"]),
        ("validmoves", [BLACK_FIRST, "ok"]),
        ("play bS1 wS1-", ["Base;InProgress;White[2];wS1;bS1 wS1-", "ok"]),
        ("pass", [f"invalidmove {reason(lambda: played('Base', 'wS1', 'bS1 wS1-').play('pass'))}", "ok"]),
        ("undo", ["Base;InProgress;Black[1];wS1", "ok"]),
        ("undo 2", [f"err {reason(lambda: played('Base', 'wS1').undo(2))}", "ok"]),
        ("undo 1", ["Base;NotStarted;White[1]", "ok"]),
        (f"newgame {WIN_IN_ONE}", [WIN_IN_ONE, "ok"]),
        ("bestmove depth 2", ["wA2 /bQ", "ok"]),
        ("bestmove time 00:00:01", ["wA2 /bQ", "ok"]),
        ("bestmove", ["wA2 /bQ", "ok"]),
        ("play wA2 /bQ", [WON, "ok"]),
        ("validmoves", ["err the game is over (WhiteWins)", "ok"]),
        ("bestmove depth 1", ["err the game is over (WhiteWins)", "ok"]),
        ("play wQ /wG1", [f"invalidmove {reason(lambda: played(WON).play('wQ /wG1'))}", "ok"]),
        ("undo", [WIN_IN_ONE, "ok"]),
        ("options", [*OPTIONS, "ok"]),
        ("options get MaxDepth", ["MaxDepth;int;0;0;0;60", "ok"]),
        ("options set MaxDepth 2", ["MaxDepth;int;2;0;0;60", "ok"]),
        ("options set player RANDOM", ["Player;enum;random;alphazero;" + KINDS, "ok"]),
        ("options set Player alphabeta", ["Player;enum;alphabeta;alphazero;" + KINDS, "ok"]),
        ("bestmove", ["wA2 /bQ", "ok"]),
        ("options set MaxDepth 0", ["MaxDepth;int;0;0;0;60", "ok"]),
    ]
    assert engine.startup == INFO
    for command, expected in script:
        assert engine.send(command) == expected, command


COMMANDS = "(try info, newgame, play, pass, validmoves, bestmove, undo, options)"
USAGE = "err expected options, options get Name or options set Name Value, not"


def _start(move: str) -> Callable[[], object]:
    return lambda: Game("Base").play(move)


def _load(text: str) -> Callable[[], object]:
    return lambda: Game.from_string(text)


@pytest.mark.parametrize("line, reply", [
    ("hello", f"err unknown command 'hello' {COMMANDS}"),
    ("\x00\x01 ;;", f"err unknown command '\\x00\\x01' {COMMANDS}"),
    ("newgame Chess", f"err {reason(_load('Chess'))}"),
    ("newgame Base;InProgress", f"err {reason(_load('Base;InProgress'))}"),
    ("newgame Base;InProgress;White[2];wS1", f"err {reason(_load('Base;InProgress;White[2];wS1'))}"),
    ("newgame Base;NotStarted;White[1];wQ", f"err {reason(_load('Base;NotStarted;White[1];wQ'))}"),
    ("play", "err play needs a MoveString, e.g. play wS1"),
    *[(f"play {m}", f"invalidmove {reason(_start(m))}")
      for m in ("wZ1", "wS1 wS1- extra", "wM", "bS1", "wQ", "wS2", "wS1 wQ-", "pass")],
    ("pass now", "err pass takes no argument, not 'now'"),
    ("undo", f"err {reason(lambda: Game().undo(1))}"),
    ("undo -1", "err undo needs a whole number of moves, not '-1'"),
    ("undo 0", "err undo needs at least 1 move"),
    ("undo x", "err undo needs a whole number of moves, not 'x'"),
    ("bestmove time 1:2", "err bestmove time needs hh:mm:ss up to 24:00:00, not '1:2'"),
    ("bestmove time 00:99:00", "err bestmove time needs hh:mm:ss up to 24:00:00, not '00:99:00'"),
    ("bestmove depth 0", "err bestmove depth needs a whole number 1..60, not '0'"),
    ("bestmove depth x", "err bestmove depth needs a whole number 1..60, not 'x'"),
    ("bestmove nodes 5",
     "err expected bestmove, bestmove time hh:mm:ss, bestmove seconds S or bestmove depth N, not 'nodes 5'"),
    ("options get Colour",
     "err unknown option 'Colour' (options: Player, MaxDepth, MaxTime, Seed, Leaves, Level)"),
    ("options set Player chess",
     "err Player must be one of alphabeta, alphazero, greedy, random, not 'chess'"),
    ("options set MaxDepth 61", "err MaxDepth must be between 0 and 60, not 61"),
    ("options set MaxTime fast", "err MaxTime must be a number, not 'fast'"),
    ("options set MaxDepth", f"{USAGE} 'set MaxDepth'"),
    ("options reset", f"{USAGE} 'reset'"),
])
def test_bad_input_gets_one_line_and_ok_and_leaves_the_game(engine, line, reply):
    assert engine.send("newgame Base") == ["Base;NotStarted;White[1]", "ok"]
    assert engine.send(line) == [reply, "ok"]
    assert engine.send("validmoves")[-1] == "ok"
    assert engine.send("undo 1") == [f"err {reason(lambda: Game().undo(1))}", "ok"]  # still at the start


def test_illegal_move_leaves_the_game_unchanged(engine):
    start = "Base;InProgress;White[2];wS1;bS1 wS1-"
    legal = ";".join(Game.from_string(start).legal_move_strings())
    engine.send(f"newgame {start}")
    for move in ("wS2 bS1-", "bS2 -wS1", "wQ \\wZ1", "wQ \\bQ", "wB1 wS1", "wS1 -bS1"):
        why = reason(lambda m=move: played(start).play(m))
        assert engine.send(f"play {move}") == [f"invalidmove {why}", "ok"]
    assert engine.send("undo 0")[0].startswith("err")
    assert engine.send("validmoves") == [legal, "ok"]
    assert engine.send("undo 2") == ["Base;NotStarted;White[1]", "ok"]


def test_empty_lines_are_ignored_and_garbage_never_kills_it(engine):
    rng = np.random.default_rng(4)
    words = ["play", "pass", "undo", "bestmove", "validmoves", "options", "newgame", "set", "get", "time",
             "depth", "wQ", "bS1", "wS1-", "/bQ", "Base+MLP", "00:00:00", "-3", "99999999999999999999", ";",
             "\\", "é"]
    engine.send("newgame Base+MLP")
    for _ in range(150):
        line = " ".join(rng.choice(words, size=rng.integers(1, 4)))
        if line.startswith(("bestmove", "newgame Base+MLP;")):
            line = "x" + line  # keep the loop fast: searches are tested elsewhere
        reply = engine.send(line)
        assert reply[-1] == "ok" and len(reply) >= 2, line
        assert not any(r.startswith("err internal") for r in reply), (line, reply)
    engine.proc.stdin.write("\n   \n\t\n")  # type: ignore[union-attr]
    assert engine.send("info") == INFO  # no reply came for the empty lines


@pytest.mark.slow  # asserts wall-clock time: run in the slow CI step
def test_bestmove_time_returns_within_the_limit():
    eng = Engine("--player", "alphabeta")
    try:
        eng.send(f"newgame {MIDGAME}")
        for seconds in (1, 2):
            start = time.perf_counter()
            reply = eng.send(f"bestmove time 00:00:0{seconds}", timeout=seconds + 10)
            assert time.perf_counter() - start < seconds + 0.1, seconds
            assert reply[-1] == "ok" and reply[0] in eng.send("validmoves")[0].split(";")
        # MaxTime caps searches that have no time limit of their own: deep ones still return
        assert eng.send("options set MaxTime 0.5") == ["MaxTime;double;0.5;60.0;0.01;86400.0", "ok"]
        start = time.perf_counter()
        assert eng.send("bestmove depth 60", timeout=10)[-1] == "ok"
        assert time.perf_counter() - start < 0.5 + 0.1
    finally:
        assert eng.close()[0] == 0


def test_a_megabyte_line_is_one_err_line_and_the_session_goes_on(engine):
    # a 1 MB line once came back whole; now it is read in chunks and dropped
    assert engine.send("newgame Base") == ["Base;NotStarted;White[1]", "ok"]
    start = time.perf_counter()
    assert engine.send("play " + "x" * 1_000_000) == [
        "err line too long: 1000005 characters (at most 65536); ignored", "ok"]
    assert time.perf_counter() - start < 5
    assert engine.send("play wS1") == ["Base;InProgress;Black[1];wS1", "ok"]


def test_end_of_input_exits_cleanly_mid_session():
    eng = Engine("--player", "random")
    eng.send("newgame Base+MLP")
    eng.proc.stdin.write("play wS1\nvalidmoves\n")  # type: ignore[union-attr]
    rc, rest = eng.close()
    assert rc == 0
    assert rest.startswith("Base+MLP;InProgress;Black[1];wS1\nok\n") and rest.endswith("ok")


def test_exit_command_and_bad_arguments():
    no_game = ["err no game in progress (send newgame first)", "ok"]
    done = subprocess.run(ENGINE, cwd=ROOT, input="play wS1\nvalidmoves\nbestmove\nundo\ninfo\nexit\ninfo\n",
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.splitlines() == INFO + no_game * 4 + INFO
    bad = subprocess.run([*ENGINE, "--player", "chess"], cwd=ROOT, input="", capture_output=True, text=True,
                         timeout=60)
    assert bad.returncode == 2 and "unknown player kind 'chess'" in bad.stderr


def test_a_uhp_spec_player_keeps_its_command_in_the_options():
    spec = "uhp:cmd=" + " ".join([*ENGINE, "--player", "random"])
    eng = Engine("--player", spec)
    try:
        options = ["Player;enum;uhp;alphazero;alphabeta;alphazero;greedy;random;uhp", "ok"]
        assert eng.send("options get Player") == options
        eng.send("newgame Base")
        assert eng.send("options set Player random")[0].startswith("Player;enum;random")
        assert eng.send("options set Player uhp")[0].startswith("Player;enum;uhp")
        assert eng.send("bestmove depth 1")[0] in {"wS1", "wB1", "wG1", "wA1"}
    finally:
        assert eng.close()[0] == 0


def test_interrupt_exits_cleanly():
    eng = Engine("--player", "random")
    eng.proc.send_signal(signal.SIGINT)
    assert eng.proc.wait(timeout=10) == 0
    assert "Traceback" not in eng.proc.stderr.read()  # type: ignore[union-attr]
    eng.proc.stdin.close()  # type: ignore[union-attr]
    eng.proc.stderr.close()  # type: ignore[union-attr]


def test_alphazero_answers_a_legal_move_after_moves_it_did_not_suggest(tmp_path):
    # Its kept tree grew below its own suggestion; after another first move and a reply whose
    # move code is also an edge there, that subtree is another position's and must be dropped.
    torch.manual_seed(0)
    ckpt = save_checkpoint(tmp_path / "net.pt", build_model("tiny"))
    eng = Engine("--player", f"alphazero:ckpt={ckpt},sims=64,device=cpu")
    try:
        assert eng.send("options set MaxTime 86400")[-1] == "ok"  # (a cap used to make every search 54 s)
        eng.send("newgame Base")
        suggested = eng.send("bestmove depth 1")[0]
        for first in [m for m in ("wB1", "wS1", "wG1") if m != suggested][:2]:
            for reply in (f"b{bug}1 {first}{side}" for bug in "BS" for side in ("-", "/", "\\")):
                eng.send(f"play {first}")
                assert eng.send(f"play {reply}")[0].startswith("Base;InProgress;White[2]")
                answer = eng.send("bestmove depth 1")[0]
                assert answer in eng.send("validmoves")[0].split(";"), (first, reply, answer)
                assert eng.send(f"play {answer}")[0].startswith("Base;InProgress;Black[2]")
                assert eng.send("undo 3") == ["Base;NotStarted;White[1]", "ok"]
                assert eng.send("bestmove depth 1")[0] == suggested  # its tree is below it again
        # A bare bestmove searches the spec's sims; MaxTime (60 s) only caps it (it used to fill 54 s).
        assert eng.send("options set MaxTime 60")[-1] == "ok"
        assert eng.send("bestmove")[0] in eng.send("validmoves")[0].split(";")
    finally:
        assert eng.close()[0] == 0
