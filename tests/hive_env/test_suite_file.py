"""The tactics suite's file (``hive_env/suite_file.py``): written rows read back as the same
positions and solutions; a line that is not one names its file and line."""

from __future__ import annotations

import pytest

from hive_env import Game
from hive_env.suite_file import read_suite, write_suite

from helpers import ROOT

SUITE = ROOT / "tests" / "data" / "tactics.txt"


def test_rows_written_read_back_as_their_positions_and_solutions(tmp_path):
    rows = [line.split("\t") for line in SUITE.read_text().splitlines()[:25]]
    path = tmp_path / "suite.txt"
    write_suite(path, [tuple(row) for row in rows])
    back = read_suite(path)
    assert [kind for kind, _, _ in back] == [row[0] for row in rows]
    for (_, game, solutions), (_, text, moves) in zip(back, rows, strict=True):
        assert game.hash == Game.from_string(text).hash and game.ply == Game.from_string(text).ply
        assert solutions == {game.parse_move(m) for m in moves.split(";")}
        assert solutions <= set(game.legal_moves())


@pytest.mark.parametrize("bad", ["win1\tBase;NotStarted;White[1]", "win1\tnot a game\twQ",
                                 "win1\tBase;InProgress;White[1];wQ\tzz9"])
def test_a_line_that_is_not_a_suite_line_names_its_file_and_line(tmp_path, bad):
    path = tmp_path / "suite.txt"
    path.write_text(SUITE.read_text().splitlines()[0] + "\n\n" + bad + "\n")
    with pytest.raises(ValueError, match=r"suite\.txt:3: not a suite line"):
        read_suite(path)
