"""hive_env.reuse: the shares an incremental encoder could take over, counted against independent
set arithmetic on the legal moves and against a position's own observation."""

from __future__ import annotations

import math

from hive_env import Game
from hive_env.board import PASS, POS, move_piece
from hive_env.reuse import ReuseCounts, compare, game_reuse, position_parts

from helpers import MIDGAME, random_game


def test_a_position_against_itself_keeps_everything():
    game = Game.from_string(MIDGAME)
    p = position_parts(game)
    c = compare(p, p)
    assert c.positions == 1 and c.moves > 0 and c.node_rows > 0 and c.slots > 0
    assert all(v == 1.0 for v in c.shares().values()), c.shares()


def test_the_move_counts_match_the_sets_of_legal_moves_two_plies_apart():
    game = random_game("Base+MLP", seed=3, plies=24)
    before = game.copy()
    before.undo(2)
    now_moves = set(game.legal_moves().tolist()) - {PASS}
    before_moves = set(before.legal_moves().tolist()) - {PASS}
    c = compare(position_parts(game), position_parts(before))
    assert c.moves == len(now_moves)
    assert c.moves_same == len(now_moves & before_moves)
    placed = {m for m in now_moves if game.board[POS + move_piece(m)] < 0}
    assert c.placements == len(placed) and c.movements == len(now_moves - placed)
    assert c.placements + c.movements == c.moves
    assert c.pieces_same <= c.pieces and c.movements_of_unchanged <= c.movements_same


def test_a_played_move_changes_the_observation():
    game = Game.from_string(MIDGAME)
    before = game.copy()
    before.undo(2)
    c = compare(position_parts(game), position_parts(before))
    assert 0 <= c.node_rows_same < c.node_rows
    assert c.slots_same < c.slots


def test_a_game_counts_each_position_from_its_third_ply_and_is_left_as_it_was():
    game = random_game("Base", seed=5, plies=20)
    board, moves = game.board.copy(), list(game.moves)
    total = game_reuse(game)
    assert total.positions == len(moves) - 2
    assert (game.board == board).all() and game.moves == moves
    by_hand = ReuseCounts()
    replay = game.copy()
    replay.undo(len(moves))
    for i, m in enumerate(moves):
        if i >= 2:
            earlier = replay.copy()
            earlier.undo(2)
            by_hand.add(compare(position_parts(replay), position_parts(earlier)))
        replay.play_trusted(m)
    assert by_hand == total


def test_empty_counts_have_no_share():
    assert all(math.isnan(v) for v in ReuseCounts().shares().values())
