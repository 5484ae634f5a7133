"""``Game.legal_moves()`` hands the caller an array of its own: shuffling or writing it is allowed
and never reaches the game (its cached moves, its copies, its legality checks)."""

from __future__ import annotations

import random

import numpy as np

from hive_env import Game

POSITION = "Base;InProgress;White[3];wS1;bS1 wS1-;wQ -wS1;bQ bS1-"


def test_random_shuffle_of_the_legal_moves_works_and_leaves_the_game_alone():
    game = Game.from_string(POSITION)
    before = game.legal_moves().tolist()
    copy = game.copy()
    moves = game.legal_moves()
    random.Random(0).shuffle(moves)  # a read-only array raised "assignment destination is read-only"
    np.random.default_rng(0).shuffle(moves)
    assert sorted(moves.tolist()) == sorted(before)
    moves[:] = -1
    assert game.legal_moves().tolist() == before and copy.legal_moves().tolist() == before
    assert game.legal_move_strings() == [game.move_string(m) for m in before]
    game.play(int(before[0]))  # the legality check still sees the real moves
    assert game.ply == 5


def test_each_call_is_a_fresh_writable_int32_array():
    game = Game("Base")
    a, b = game.legal_moves(), game.legal_moves()
    assert a is not b and a.flags.writeable and a.dtype == np.int32 and a.tolist() == b.tolist()
