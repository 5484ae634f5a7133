"""Perft from the start position against Mzinga's published counts (tests/data/perft.csv),
and the ``hive-perft`` command line."""

from __future__ import annotations

import csv
import subprocess
import sys

import pytest

from hive_env import GAME_TYPES, Game
from hive_env.game import PERFT_MAX_DEPTH as MAX_DEPTH

from helpers import ROOT

PERFT_CSV = ROOT / "tests" / "data" / "perft.csv"
"""game_type,depth,count rows: the published counts (the file names its source)."""


def read_published() -> dict[str, dict[int, int]]:
    """game type -> depth -> count, from the project's own copy of the published table."""
    lines = [line for line in PERFT_CSV.read_text(encoding="utf-8").splitlines()
             if line.strip() and not line.startswith("#")]
    counts: dict[str, dict[int, int]] = {}
    for row in csv.DictReader(lines):
        counts.setdefault(row["game_type"], {})[int(row["depth"])] = int(row["count"])
    return counts


PUBLISHED = read_published()


def check(game_type: str, depth: int) -> None:
    assert Game(game_type).perft(depth) == PUBLISHED[game_type][depth]


def test_published_table_covers_every_game_type_to_depth_8():
    assert set(PUBLISHED) == set(GAME_TYPES)
    for counts in PUBLISHED.values():
        assert sorted(counts) == list(range(9))
        assert counts[0] == 1


@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_perft_to_depth_4_every_game_type(game_type):
    for depth in range(0, 5):
        check(game_type, depth)


def test_perft_base_depth_5():
    check("Base", 5)


@pytest.mark.slow
@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_perft_depth_5_every_game_type(game_type):
    check(game_type, 5)


@pytest.mark.slow
@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_perft_depth_6_every_game_type(game_type):
    check(game_type, 6)


@pytest.mark.slow
def test_perft_base_depth_7():
    check("Base", 7)


def test_perft_leaves_the_game_unchanged():
    game = Game.from_string("Base+MLP;InProgress;White[3];wS1;bS1 wS1-;wQ -wS1;bQ bS1-")
    board, hist, text = game.board.copy(), game.hist.copy(), game.game_string()
    game.perft(3)
    assert (game.board == board).all()
    window = [q % 64 for q in range(max(0, game.ply - 32), game.ply + 1)]  # repetition window
    assert (game.hist[window] == hist[window]).all()
    assert game.game_string() == text
    assert game.legal_move_strings() == Game.from_string(text).legal_move_strings()


def hive_perft(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scripts.perft", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def test_hive_perft_prints_one_line_per_depth():
    proc = hive_perft("Base", "3")
    assert proc.returncode == 0, proc.stderr
    rows = [line.split("\t") for line in proc.stdout.splitlines()]
    assert [(int(d), int(c)) for d, c, _ in rows] == [(d, PUBLISHED["Base"][d]) for d in (1, 2, 3)]
    assert all(float(seconds) >= 0 for _, _, seconds in rows)
    proc = hive_perft("Base+MLP;InProgress;White[2];wS1;bS1 wS1-", "1")  # a GameString, too
    assert proc.returncode == 0 and proc.stdout.split("\t")[:2] == ["1", "24"]


@pytest.mark.parametrize("args, says", [
    ((), "GAME, DEPTH"),                      # missing arguments: argparse's usage line before
    (("Base",), "DEPTH"),
    (("Base", "3", "4"), "unrecognized"),
    (("Base", "0"), "DEPTH"),
    (("Base", "x"), "DEPTH"),
    (("Base", str(10**23)), f"1 to {MAX_DEPTH}"),  # accepted and ran until interrupted before
    (("Base", str(MAX_DEPTH + 1)), f"1 to {MAX_DEPTH}"),
    (("Nope", "2"), "hive-perft: error"),
    (("Chess", "2"), "hive-perft: error"),
    (("Base;InProgress;White[2];wQ", "1"), "hive-perft: error"),  # a malformed GameString
])
def test_hive_perft_bad_arguments_print_one_line(args, says):
    proc = hive_perft(*args)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1, proc.stderr
    assert proc.stderr.startswith("hive-perft: error: ") and "Traceback" not in proc.stderr
    assert says in proc.stderr
