"""Property tests over random games of every game type (hypothesis drives the seeds)."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hive_env import GAME_TYPES, Game
from hive_env.board import BOARD_SIZE, HIST, LEVEL, POS, REPETITION_WINDOW, TOP, full_hash, repeats
from hive_env.grid import NEIGH
from hive_env.pieces import N_PIECES
from hive_env.symmetry import N_SYMMETRIES, transform_board, transform_move

from helpers import SHUFFLE, cells_connected, random_game

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def rich_game(game_type: str, seed: int, plies: int) -> Game:
    """A random game preferring movements, which reaches richer positions."""
    return random_game(game_type, seed, plies, prefer_moves=True)


games = st.builds(
    rich_game,
    game_type=st.sampled_from(GAME_TYPES),
    seed=st.integers(0, 2**32 - 1),
    plies=st.integers(0, 90),
)


def hive_is_connected(board: np.ndarray) -> bool:
    return cells_connected({int(board[POS + p]) for p in range(N_PIECES) if board[POS + p] >= 0})


def window(game: Game) -> list[int]:
    return [q % HIST for q in range(max(0, game.ply - 32), game.ply + 1)]


@SETTINGS
@given(games)
def test_play_undo_restores_state_and_hash(game):
    board, hist, text = game.board.copy(), game.hist.copy(), game.game_string()
    for move in game.legal_moves():
        game.play(int(move))
        game.undo()
        assert (game.board == board).all(), game.game_string()
        assert (game.hist[window(game)] == hist[window(game)]).all()
    assert game.game_string() == text


@SETTINGS
@given(games)
def test_every_listed_move_plays_and_keeps_one_hive(game):
    for move in game.legal_moves():
        child = game.copy()
        child.play(int(move))
        assert hive_is_connected(child.board), (game.game_string(), game.move_string(move))
        assert child.hash == int(full_hash(child.board)), "incremental hash differs from scratch"


def repeats_reference(game: Game, hashes: list[int], move: int) -> bool:
    """Whether ``move`` reaches a position of ``hashes`` (the game's, by ply) with the same side
    to move, within the repetition window: played out on a copy."""
    child = game.copy()
    child.play(move)
    earlier = range(child.ply - 2, max(child.ply - REPETITION_WINDOW, 0) - 1, -2)
    return any(hashes[q] == child.hash for q in earlier)


def check_repeats_along(game_type: str, moves: list[int]) -> int:
    """``repeats`` against the reference for every legal move along ``moves``; the repeating moves met."""
    game, hashes, met = Game(game_type), [], 0
    for played in [*moves, None]:
        hashes.append(game.hash)
        board, hist = game.board.copy(), game.hist.copy()
        for move in game.legal_moves():
            got = repeats(game.board, game.hist, int(move))
            assert got == repeats_reference(game, hashes, int(move)), (game.game_string(), int(move))
            met += got
        assert (game.board == board).all() and (game.hist == hist).all()  # left as it was
        if played is not None and not game.is_over:
            game.play(played)
    return met


@SETTINGS
@given(games)
def test_repeats_says_whether_a_move_returns_to_a_position_seen(game):
    check_repeats_along(game.game_type, list(game.moves))


def test_repeats_finds_the_shuffles_of_a_repetition_draw():
    record = Game.from_string(SHUFFLE)
    assert record.state == "Draw"
    assert check_repeats_along("Base", list(record.moves)) >= 4  # both sides' returns


@SETTINGS
@given(games)
def test_game_string_round_trip(game):
    text = game.game_string()
    loaded = Game.from_string(text)
    assert (loaded.board == game.board).all()
    assert loaded.game_string() == text
    assert loaded.state == game.state and loaded.hash == game.hash
    # Lower-case input parses the same.
    assert Game.from_string(text.lower()).game_string() == text


@SETTINGS
@given(games)
def test_move_strings_round_trip(game):
    for move in game.legal_moves():
        text = game.move_string(move)
        assert game.parse_move(text) == move
        assert game.parse_move(text.swapcase()) == move


@SETTINGS
@given(games, st.integers(0, N_SYMMETRIES - 1))
def test_symmetry_maps_legal_moves_onto_legal_moves(game, sym):
    board, hist = transform_board(game.board, game.hist, sym)
    assert board.shape == (BOARD_SIZE,)
    image = Game.from_board(board, hist)
    want = {transform_move(int(m), sym) for m in game.legal_moves()}
    assert {int(m) for m in image.legal_moves()} == want
    assert image.state == game.state


def test_symmetries_are_distinct_and_preserve_adjacency():
    from hive_env.symmetry import DIR_MAPS, HEX_MAPS

    assert len({tuple(m[:64]) for m in HEX_MAPS}) == N_SYMMETRIES
    for s in range(N_SYMMETRIES):
        assert sorted(DIR_MAPS[s]) == list(range(6))
        for h in (0, 5, 77, 1023):
            for d in range(6):
                assert HEX_MAPS[s, NEIGH[h, d]] == NEIGH[HEX_MAPS[s, h], DIR_MAPS[s, d]]


def test_stack_levels_are_consistent_in_long_games():
    game = rich_game("Base+MLP", seed=7, plies=400)
    for p in range(N_PIECES):
        h = game.board[POS + p]
        if h >= 0:
            top = game.board[TOP + h]
            assert game.board[LEVEL + top] >= game.board[LEVEL + p]


@SETTINGS
@given(games)
def test_trusted_play_of_legal_moves_is_checked_play(game):
    trusted = Game(game.game_type)
    for move in game.moves:
        trusted.play_trusted(move)
    assert (trusted.board == game.board).all() and (trusted.hist == game.hist).all()
    assert trusted.game_string() == game.game_string()
    assert trusted.hash == game.hash and trusted.state == game.state
    if game.moves:  # undo works from it as from a checked game
        trusted.undo(1)
        game.undo(1)
        assert (trusted.board == game.board).all() and trusted.hash == game.hash
