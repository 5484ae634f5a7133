"""A game's review (search.review): its numbers, its marks, and the exact tactic marks on real
positions with a win in one."""

from __future__ import annotations

import json

import numpy as np
import pytest

from hive_env import Game
from hive_env.tactics import PROVEN_LOSS, PROVEN_WIN, move_proofs
from models import shipped
from search.review import THRESHOLDS, Network, mark_of, plot_review, review_game, table

from helpers import ROOT

TACTICS = ROOT / "tests" / "data" / "tactics.txt"


@pytest.fixture(scope="module")
def network() -> Network:
    return Network.load(shipped.CHECKPOINT)


def win_in_one_positions(n: int) -> list[tuple[Game, str]]:
    """Positions of real games where the side to move wins at once, with the winning move."""
    out = []
    for line in TACTICS.read_text().splitlines():
        kind, game_string, answer = line.split("\t")[:3]
        if kind == "win1":
            out.append((Game.from_string(game_string), answer))
        if len(out) == n:
            break
    return out


def test_a_missed_win_in_one_is_marked_a_blunder(network):
    game, _ = win_in_one_positions(1)[0]
    moves, codes = move_proofs(game.board, game.hist)
    other = next(int(m) for m, c in zip(moves, codes, strict=True) if c != PROVEN_WIN)
    ply = game.ply
    game.play(other)
    review = review_game(game, network, sims=32)
    judged = review.plies[ply]
    assert judged.tactic == "missed win" and judged.mark == "blunder"
    assert judged.played == game.move_strings[ply]
    # the search's best move there is a win: it proves the surround
    won = {game.copy().move_string(int(m)) for m, c in zip(moves, codes, strict=True) if c == PROVEN_WIN}
    assert judged.best in won and judged.played_rank > 1


def test_a_move_that_lets_the_opponent_win_is_marked(network):
    for game, _ in win_in_one_positions(40):
        game.undo(1)  # the move before: the opponent's, which let the side to move win at once
        moves, codes = move_proofs(game.board, game.hist)
        if (codes == PROVEN_LOSS).any() and (codes != PROVEN_LOSS).any():
            break
    else:
        pytest.skip("no such position among the first 40")
    ply = game.ply
    game.play(next(int(m) for m, c in zip(moves, codes, strict=True) if c == PROVEN_LOSS))
    review = review_game(game, network, sims=16)
    assert review.plies[ply].tactic == "allowed win" and review.plies[ply].mark == "blunder"
    assert all(p.tactic != "allowed win" or p.mark == "blunder" for p in review.plies)


def test_the_numbers_of_a_review(network):
    game = Game.from_string(TACTICS.read_text().splitlines()[0].split("\t")[1])
    shares = []
    review = review_game(game, network, sims=24, progress=shares.append)
    assert len(review.plies) == game.ply and len(review.white_scores()) == game.ply + 1
    assert shares == sorted(shares) and shares[-1] == 1.0
    for p, move in zip(review.plies, game.move_strings, strict=True):
        assert p.played == move and 0 <= p.white_score <= 1 and 0 < p.best_share <= 1
        assert sum(p.white_wdl) == pytest.approx(1.0) and p.drop >= 0
        assert (p.played_rank == 1) == (p.played == p.best)
        if p.played == p.best:
            assert p.drop == 0 and not p.mark  # never marked for playing the search's choice
        elif not p.tactic:
            assert p.mark == mark_of(p.drop, "")
    data = json.loads(json.dumps(review.to_json()))
    assert data["plies"][3]["played"] == review.plies[3].played and data["sims"] == 24
    lines = table(review).splitlines()
    assert len(lines) == len(review.plies) + 2 and lines[1].split()[1] == review.plies[0].played.split()[0]


def test_marks_follow_the_documented_thresholds():
    assert [name for name, _ in THRESHOLDS] == ["blunder", "mistake", "inaccuracy"]
    assert mark_of(0.05, "") == "" and mark_of(0.10, "") == "inaccuracy" and mark_of(0.2, "") == "mistake"
    assert mark_of(0.31, "") == "blunder" and mark_of(0.0, "allowed win") == "blunder"


def test_a_review_can_be_cancelled_and_drawn(network, tmp_path):
    game = Game.from_string(TACTICS.read_text().splitlines()[1].split("\t")[1])
    calls = []
    review = review_game(game, network, sims=64, progress=calls.append, cancelled=lambda: len(calls) >= 2)
    assert review.cancelled and not review.plies and len(calls) == 2
    done = review_game(game, network, sims=8)
    png = plot_review(done, tmp_path / "review.png")
    assert png.stat().st_size > 10_000 and np.isfinite(done.white_scores()).all()
