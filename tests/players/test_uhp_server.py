"""``hive-uhp``'s engine (``players.uhp_server``) under hostile input, in process.

Huge numbers are a plain ``err`` naming the argument, replies quote a short prefix of a huge
argument, the line reader never keeps an over-long line whole, and no option makes ``bestmove``
search without end. The stdin/stdout loop itself: tests/e2e/test_uhp_engine.py.
"""

from __future__ import annotations

import io
import time

import pytest

from hive_env import Game
from players.base import Budget
from players.uhp_server import MAX_LINE, MAX_REPLY, LineTooLong, UhpEngine, read_lines

from helpers import MIDGAME

BIG = "9" * 5000  # past Python's 4,300-digit limit of int()
MEGA = "x" * 1_000_000


@pytest.fixture(scope="module")
def engine():
    eng = UhpEngine("random")  # none of these tests searches: the cheapest player
    yield eng
    eng.close()


def _refused(engine: UhpEngine, line: str) -> str:
    """The one reply line (before ``ok``) to ``line``, checked to be a short plain refusal."""
    reply = engine.handle(line)
    assert len(reply) == 2 and reply[-1] == "ok", reply
    assert reply[0].startswith(("err ", "invalidmove ")), reply[0][:200]
    assert "internal error" not in reply[0], reply[0][:200]
    assert len(reply[0]) <= 200, reply[0][:300]
    return reply[0]


@pytest.mark.parametrize(("line", "reply"), [
    (f"undo {BIG}", f"err cannot undo '{'9' * 40}'... (5000 characters) plies: only 0 played"),
    (f"bestmove time {'1' * 1_000_000}:00:00",
     f"err bestmove time needs hh:mm:ss up to 24:00:00, not '{'1' * 40}'... (1000006 characters)"),
    ("bestmove time 25:00:00", "err bestmove time needs hh:mm:ss up to 24:00:00, not '25:00:00'"),
    (f"bestmove depth {BIG}",
     f"err bestmove depth needs a whole number 1..60, not '{'9' * 40}'... (5000 characters)"),
    (f"bestmove seconds {BIG}",
     f"err bestmove seconds needs a number of seconds in (0, 86400], not '{'9' * 40}'... (5000 characters)"),
    (f"options set MaxDepth {BIG}",
     f"err MaxDepth must be a whole number between 0 and 60, not '{'9' * 40}'... (5000 characters)"),
    (f"options set Seed {BIG}", "err Seed must be a whole number between 0 and 2147483647, not "
                                f"'{'9' * 40}'... (5000 characters)"),
    ("undo \u00b2", "err undo needs a whole number of moves, not '\u00b2'"),  # isdigit() but not int()
])
def test_huge_numbers_are_a_plain_err_naming_the_argument(engine, line, reply):
    engine.handle("newgame Base")
    assert _refused(engine, line) == reply


@pytest.mark.parametrize("line", [
    f"play wS{BIG}",  # a tile number
    f"newgame Base;InProgress;White[{BIG}]",  # a turn number
])
def test_huge_numbers_inside_notation_are_refused_by_the_rules_engine(engine, line):
    engine.handle("newgame Base")
    text = _refused(engine, line)
    assert "9" * 41 not in text and "characters)" in text, text


@pytest.mark.parametrize("line", [
    MEGA, f"play {MEGA}", f"play wS1 {MEGA}", f"newgame {MEGA}", f"newgame Base;{MEGA};White[1]",
    f"pass {MEGA}", f"bestmove {MEGA}", f"bestmove depth {MEGA}", f"undo {MEGA}", f"options {MEGA}",
    f"options get {MEGA}", f"options set Player {MEGA}", f"options set MaxTime {MEGA}",
])
def test_replies_quote_a_short_prefix_of_a_huge_argument(engine, line):
    engine.handle("newgame Base")
    text = _refused(engine, line)
    assert "x" * 41 not in text and "characters)" in text, text


def test_a_long_message_is_cut_to_one_short_line():
    # the rules engine names an illegal move as typed, spaces and all: a 50,000-character name
    reply = UhpEngine("random").handle("newgame Base;InProgress;White[2];wS1;bQ" + " " * 50_000 + "wS1-")
    assert len(reply) == 2 and reply[0].startswith("err ") and len(reply[0]) <= MAX_REPLY


# ----- the line reader -----------------------------------------------------------------------
def test_read_lines_drops_over_long_lines_and_keeps_the_rest():
    text = "info\n" + "x" * 100 + "\n" + "a" * 10 + "\n" + "b" * 11 + "\n\nlast" + "\n" + "y" * 25
    assert list(read_lines(io.StringIO(text), limit=10)) == [
        "info\n", LineTooLong(100), "a" * 10 + "\n", LineTooLong(11), "\n", "last\n", LineTooLong(25)]
    assert list(read_lines(io.StringIO("validmoves"), limit=10)) == ["validmoves"]  # no newline at the end


class EndlessLine:
    """A stream of one ``length``-character line then ``info``, made as it is read: a reader
    that kept the line whole would hold ``length`` characters; this records the largest read."""

    def __init__(self, length: int):
        self.left, self.largest = length, 0
        self.rest = ["\n", "info\n"]

    def readline(self, size: int = -1) -> str:
        assert size > 0, "an unbounded readline"
        self.largest = max(self.largest, size)
        if self.left:
            n = min(size, self.left)
            self.left -= n
            return "x" * n
        return self.rest.pop(0) if self.rest else ""


def test_read_lines_reads_a_16_mb_line_in_chunks():
    stream = EndlessLine(16 * 2**20)
    start = time.perf_counter()
    assert list(read_lines(stream)) == [LineTooLong(16 * 2**20), "info\n"]  # type: ignore[arg-type]
    assert stream.largest == MAX_LINE + 1
    assert time.perf_counter() - start < 2


def test_too_long_is_one_err_line_and_ok():
    assert UhpEngine("random").too_long(10**6) == [
        f"err line too long: 1000000 characters (at most {MAX_LINE}); ignored", "ok"]


# ----- MaxTime: no search without end --------------------------------------------------------
class BudgetSpy:
    """A player that records the budget of each ``choose`` and plays the first legal move."""

    name = "spy"

    def __init__(self) -> None:
        self.budgets: list[Budget | None] = []

    def choose(self, game: Game, budget: Budget | None = None) -> int:
        self.budgets.append(budget)
        return int(game.legal_moves()[0])

    def close(self) -> None:
        pass


def test_max_time_zero_is_refused_and_every_search_has_a_time_cap():
    engine = UhpEngine("random")
    refused = ("err MaxTime must be between 0.01 and 86400.0, not 0 "
               "(every search has a time cap; 86400 = a day)")
    assert engine.handle("options set MaxTime 0") == [refused, "ok"]
    assert engine.handle("options set MaxTime 0.0")[0].startswith("err MaxTime must be between 0.01")
    assert engine.handle("options get MaxTime") == ["MaxTime;double;60.0;60.0;0.01;86400.0", "ok"]
    assert engine.handle("options set MaxDepth 60")[0] == "MaxDepth;int;60;0;0;60"
    spy = BudgetSpy()
    engine._player = spy  # type: ignore[assignment]
    engine.handle(f"newgame {MIDGAME}")
    for command in ("bestmove", "bestmove depth 60", "bestmove time 24:00:00", "bestmove seconds 86400"):
        assert engine.handle(command)[-1] == "ok"
    assert len(spy.budgets) == 4
    for budget in spy.budgets:
        assert budget is not None and budget.time_s is not None and 0 < budget.time_s <= 86400, budget


def test_depth_60_with_the_smallest_max_time_returns_at_once():
    engine = UhpEngine("alphabeta")  # the player that searched without end
    try:
        engine.warm_up()
        engine.handle(f"newgame {MIDGAME}")
        assert engine.handle("options set MaxDepth 60")[-1] == "ok"
        assert engine.handle("options set MaxTime 0")[0].startswith("err ")
        assert engine.handle("options set MaxTime 0.01")[0] == "MaxTime;double;0.01;60.0;0.01;86400.0"
        start = time.perf_counter()
        move = engine.handle("bestmove")[0]
        assert time.perf_counter() - start < 2
        assert move in Game.from_string(MIDGAME).legal_move_strings()
    finally:
        engine.close()
