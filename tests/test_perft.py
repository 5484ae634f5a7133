"""Perft from the start position against Mzinga's published counts (../shared/reference)."""

from __future__ import annotations

import pytest
from conftest import require_reference

from hive_env import GAME_TYPES, Game

FILES = {gt: f"mzinga_perft_{gt.replace('+', '')}.csv" for gt in GAME_TYPES}


def published(game_type: str) -> dict[int, int]:
    """depth -> count for the start position of a game type."""
    counts = {}
    text = require_reference(FILES[game_type]).read_text(encoding="utf-8-sig")
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        game_string, depth, count = line.split("\t")
        assert game_string.split(";")[0] == game_type
        counts[int(depth)] = int(count)
    return counts


def check(game_type: str, depth: int) -> None:
    want = published(game_type)[depth]
    assert Game(game_type).perft(depth) == want


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
