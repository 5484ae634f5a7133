"""The record writers (``hive_env.records.writers``): every game written as a GameString, Mzinga
PGN or boardspace SGF is read back by ``hive_env.records.read_game`` as the same moves, state and
meta."""

from __future__ import annotations

import pytest

from hive_env import GAME_TYPES, Game
from hive_env.board import PASS
from hive_env.records import RecordError, read_game, read_games
from hive_env.records.writers import as_record, write_pgn, write_sgf

from helpers import random_game

META = {"White": "Ann ] \\ {x}", "Black": 'Bo "B"', "Date": "2026.12.05", "Event": "hive-web", "Hints": "3"}


@pytest.mark.parametrize("game_type", GAME_TYPES)
@pytest.mark.parametrize("fmt", ["gamestring", "pgn", "sgf"])
def test_random_games_of_every_type_are_read_back_as_the_same_moves(game_type, fmt):
    for seed in range(12):
        game = random_game(game_type, seed, 160, prefer_moves=seed % 2 == 0)
        record = read_game(as_record(game, fmt, META))
        assert record.format == fmt
        assert record.game.moves == game.moves, (seed, fmt)
        assert record.game.state == game.state
        assert record.game.game_type == game.game_type


def test_a_finished_game_and_a_game_with_passes_round_trip():
    found_pass = found_over = False
    for seed in range(200):
        game = random_game("Base", seed, 400, prefer_moves=True)
        if PASS in game.moves or game.is_over:
            found_pass |= PASS in game.moves
            found_over |= game.is_over
            for writer in (write_pgn, write_sgf):
                back = read_game(writer(game, {}))
                assert back.game.moves == game.moves and back.game.state == game.state
                if game.is_over:
                    assert back.meta["Result"] == game.state
        if found_pass and found_over:
            break
    assert found_over


def test_the_pgn_keeps_its_tags_and_names():
    game = random_game("Base+MLP", 1, 30)
    text = write_pgn(game, META)
    assert text.startswith('[GameType "Base+MLP"]\n')
    assert "\n1. " in text
    meta = read_game(text).meta
    assert meta["White"] == "Ann ] \\ (x)"  # a brace would open a comment
    assert meta["Black"] == 'Bo "B"'
    assert meta["Hints"] == "3" and meta["Date"] == "2026.12.05"


def test_the_sgf_names_the_players_and_the_variant():
    game = random_game("Base+LP", 2, 30)
    text = write_sgf(game, META)
    assert "SU[hive-lp]" in text and "GM[27]" in text and "C[" in text
    meta = read_game(text).meta
    assert meta["White"] == "Ann ] \\ {x}" and meta["Black"] == "Bo 'B'"
    assert meta["Event"] == "hive-web" and meta["Date"] == "2026.12.05"
    assert meta["Variant"] == "hive-lp"


def test_an_empty_game_is_written_and_read_back():
    for fmt in ("gamestring", "pgn", "sgf"):
        back = read_games(as_record(Game("Base+M"), fmt))
        assert len(back) == 1 and back[0].game.ply == 0 and back[0].game.game_type == "Base+M"


def test_a_game_wider_than_26_columns_is_refused_as_sgf():
    from hive_env.records.writers import _window
    assert _window({0, 1, 31}, 26, "columns") == 31
    with pytest.raises(RecordError, match="at most 26"):
        _window(set(range(0, 32, 2)), 26, "columns")


def test_an_unknown_format_is_refused():
    with pytest.raises(ValueError, match="unknown record format"):
        as_record(Game(), "xml")
