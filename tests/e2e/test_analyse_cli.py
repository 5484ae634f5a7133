"""``hive-analyse``: a game record reviewed from the command line (table, JSON, PNG), and its
one-line refusals."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from hive_env.records import read_game

from helpers import ROOT

RECORDS = ROOT / "tests" / "data" / "records"


def analyse(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scripts.analyse", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


def test_a_record_is_reviewed_to_a_table_json_and_png(tmp_path):
    done = analyse(str(RECORDS / "games_0.txt"), "--sims", "16", "--json", str(tmp_path / "r.json"),
                   "--png", str(tmp_path / "r.png"))
    assert done.returncode == 0, done.stderr
    game = read_game(RECORDS / "games_0.txt").game
    lines = done.stdout.splitlines()
    assert lines[0].startswith("hive-analyse: ") and "(gamestring, Base, 16 plies" in lines[0]
    rows = [line for line in lines if line[:4].strip().isdigit()]
    assert len(rows) == game.ply and rows[0].split()[1] == game.move_strings[0]
    review = json.loads((tmp_path / "r.json").read_text())
    assert len(review["plies"]) == game.ply and review["sims"] == 16
    assert (tmp_path / "r.png").stat().st_size > 10_000
    assert "Traceback" not in done.stderr


def test_the_game_of_a_file_and_the_network_are_chosen(tmp_path):
    done = analyse(str(RECORDS / "mzinga.pgn"), "--game", "2", "--player",
                   "alphazero:ckpt=models/shipped/base.pt,sims=8")
    assert done.returncode == 0, done.stderr
    assert "(pgn, " in done.stdout and "8 simulations a position" in done.stdout


@pytest.mark.slow  # moved for the default suite's 10 minutes
def test_bad_input_is_one_line_and_exit_2(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("this is not a game\n")
    for args, words in [((str(bad),), "bad.txt"),
                        ((str(RECORDS / "games_0.txt"), "--game", "9"), "there is no game 9"),
                        ((str(RECORDS / "games_0.txt"), "--player", "random"), "--player must be alphazero")]:
        done = analyse(*args, timeout=120)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        err = done.stderr.strip()
        assert err.startswith("hive-analyse: error: ") and "\n" not in err and words in err, (args, err)
    # every game type has a shipped network now (a type without one: tests/models/test_shipped_model.py)
    done = analyse("Base+L;InProgress;Black[1];wL", "--sims", "4", timeout=120)
    assert done.returncode == 0 and "(gamestring, Base+L, 1 plies" in done.stdout, (done.stdout, done.stderr)


@pytest.mark.slow
def test_a_network_of_another_game_type_is_refused_in_one_line():
    done = analyse(str(RECORDS / "mzinga.pgn"), "--player", "alphazero:ckpt=models/shipped/base.pt")
    assert done.returncode == 2, (done.stdout, done.stderr)  # game 1 is Base+MLP
    assert done.stderr.strip() == ("hive-analyse: error: base.pt learnt Base games, not Base+MLP: "
                                   "leave out ckpt= for the network shipped for that type")
