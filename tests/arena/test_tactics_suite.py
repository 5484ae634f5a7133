"""The tactics suite (``tests/data/tactics.txt``, ``arena/tactics_suite.py``): its positions are
what they say (checked by brute force here), and the shipped player solves every win in one and
every defence at its default simulations."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter

import numpy as np
import pytest

from arena import tactics_suite
from hive_env import BLACK_WINS, WHITE_WINS, Game
from hive_env.suite_file import read_suite

from helpers import REAL_GAMES, ROOT

SUITE = ROOT / "tests" / "data" / "tactics.txt"
SHIPPED = ROOT / "models" / "shipped" / "base.pt"


def tactics_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m scripts.tactics_suite ARGS``, its output captured."""
    return subprocess.run([sys.executable, "-m", "scripts.tactics_suite", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def _wins(game: Game, move: int) -> bool:
    after = game.copy()
    after.play(move)
    return after.status == (WHITE_WINS, BLACK_WINS)[game.side_to_move]


def _opponent_wins_at_once(game: Game) -> bool:
    return any(_wins(game, int(m)) for m in game.legal_moves())


def _loses_in_one(game: Game, move: int) -> bool:
    """The move ends the game in a loss, or lets the opponent win at once (brute force)."""
    after = game.copy()
    after.play(move)
    if after.is_over:
        return after.status == (BLACK_WINS, WHITE_WINS)[game.side_to_move]
    return _opponent_wins_at_once(after)


def test_the_suite_holds_every_kind_and_every_line_is_true():
    suite = read_suite(SUITE)
    kinds = {k: [(g, s) for kind, g, s in suite if kind == k] for k in tactics_suite.KINDS}
    assert len(kinds["win1"]) >= 30 and len(kinds["defend"]) >= 100 and len(kinds["win2"]) >= 10
    rng = np.random.default_rng(0)
    for kind, rows in kinds.items():  # a sample of each kind against brute force
        for i in rng.choice(len(rows), min(len(rows), 12 if kind != "win2" else 3), replace=False):
            game, solutions = rows[i]
            moves = [int(m) for m in game.legal_moves()]
            if kind == "win1":
                assert solutions == {m for m in moves if _wins(game, m)}
            elif kind == "defend":
                assert not any(_wins(game, m) for m in moves)
                assert solutions == {m for m in moves if not _loses_in_one(game, m)}
                assert 0 < len(solutions) < len(moves)
            else:
                assert not any(_wins(game, m) for m in moves)
                for m in solutions:  # every reply leaves a win in one
                    after = game.copy()
                    after.play(m)
                    for reply in after.legal_moves():
                        nxt = after.copy()
                        nxt.play(int(reply))
                        assert nxt.is_over and nxt.status == (WHITE_WINS, BLACK_WINS)[game.side_to_move] \
                            or not nxt.is_over and _opponent_wins_at_once(nxt)


def test_make_and_score_through_the_command_line(tmp_path):
    out = tmp_path / "suite.txt"
    done = tactics_cli("make", str(REAL_GAMES), "--out", str(out), "--max-per-kind", "5")
    assert done.returncode == 0, done.stderr
    assert "16 games" in done.stdout
    rows = read_suite(out)
    counts = Counter((kind, game.game_type) for kind, game, _ in rows)
    assert rows and all(len(s) for _, _, s in rows)
    assert max(counts.values()) == 5 and len({t for _, t in counts}) >= 6  # sampled per kind and type
    done = tactics_cli("score", "greedy", "alphabeta:depth=1", "--suite", str(out))
    assert done.returncode == 0, done.stderr
    table = done.stdout
    wins = sum(kind == "win1" for kind, _, _ in rows)
    assert "| greedy |" in table and "| alphabeta:depth=1 |" in table and f"{wins}/{wins} (100.0%)" in table
    bad = tmp_path / "bad.txt"
    bad.write_text("win1\tnot a game\twA1\n")
    done = tactics_cli("score", "greedy", "--suite", str(bad))
    assert done.returncode == 2
    assert "bad.txt:1: not a suite line" in done.stderr


@pytest.mark.parametrize(("kind", "every"), [("win1", 1), pytest.param("defend", 4, marks=pytest.mark.slow),
                                             pytest.param("defend", 1, marks=pytest.mark.slow)])
def test_the_shipped_player_solves_every_win_in_one_and_defence_at_200_simulations(kind, every):
    # every defence takes a minute: the default suite checks every fourth, make test-slow all
    # (200 simulations: the player's default before its levels; every level from 4 up:
    # tests/search/test_levels.py)
    suite = [row for row in read_suite(SUITE) if row[0] == kind][::every]
    result = tactics_suite.score(f"alphazero:ckpt={SHIPPED},device=cpu,sims=200", suite)
    solved, total, _ = result[kind]
    assert solved == total, f"{kind}: {solved}/{total}"


def test_a_proven_win_is_played_out_fast_against_the_best_defence():
    """From the suite's wins in two, once the search proves the root won, the player wins within
    the plies the tree proved (the fastest proven win each move; without it a solver may keep a
    won game going to a repetition)."""
    from players.registry import make_player as make
    from search.alphazero_player import AlphaZeroPlayer

    suite = [row for row in read_suite(SUITE) if row[0] == "win2"][:20]
    player = make(f"alphazero:ckpt={SHIPPED},sims=64,device=cpu", seed=0)
    defender = make("alphabeta:depth=2", seed=0)
    assert isinstance(player, AlphaZeroPlayer)
    proven = 0
    for _, start, _ in suite:
        game = start.copy()
        move = player.choose(game)
        first = player.last_proof
        game.play(move)
        if first is None:
            continue
        proven += 1
        for _ in range(first - 1):
            if game.is_over:
                break
            game.play((defender if game.side_to_move != start.side_to_move else player).choose(game))
        winner = (WHITE_WINS, BLACK_WINS)[start.side_to_move]
        assert game.is_over and game.status == winner, start.game_string()
    assert proven >= 5  # the test means something
