"""The bug table (``hive_env.pieces.BUGS``): everything about a bug derives from one row, and a bug
added to the table without its movement, rule text or letter is named here."""

from __future__ import annotations

import re

import numpy as np
import pytest

from hive_env import uhp
from hive_env.board import BELOW, LEVEL, PASS, POS, TOP, move_piece
from hive_env.grid import N_HEX, NEIGH
from hive_env.movegen import gen_bug
from hive_env.pieces import (
    BUG_CHARS,
    BUG_COUNT,
    BUG_FIRST_SLOT,
    BUG_LETTER_CLASS,
    BUG_NAMES,
    BUG_RULES,
    BUGS,
    EXPANSION_OF_BUG,
    GAME_TYPES,
    MOSQUITO,
    N_BUGS,
    PIECE_BUG,
    PIECES_PER_COLOUR,
    PILLBUG,
    bug_in_game,
    game_type_name,
    parse_game_type,
    piece_name,
)
from hive_env.rules import MAX_MOVES

from helpers import random_games


def test_every_bug_has_one_letter_a_name_a_rule_and_tiles():
    letters = [bug.letter for bug in BUGS]
    assert all(len(ch) == 1 and ch.isalpha() and ch.isupper() for ch in letters), letters
    assert len(set(letters)) == N_BUGS, f"two bugs share a letter: {letters}"
    for bug in BUGS:
        assert bug.name and bug.rule, f"bug {bug.letter} lacks a name or a rule text"
        assert bug.count >= 1
    assert "".join(letters) == BUG_CHARS
    assert tuple(bug.name for bug in BUGS) == BUG_NAMES
    assert tuple(bug.rule for bug in BUGS) == BUG_RULES


def test_slots_and_counts_derive_from_the_table():
    assert sum(bug.count for bug in BUGS) == PIECES_PER_COLOUR
    for b, bug in enumerate(BUGS):
        first = int(BUG_FIRST_SLOT[b])
        assert int(BUG_COUNT[b]) == bug.count
        assert [int(PIECE_BUG[first + i]) for i in range(bug.count)] == [b] * bug.count


def test_expansion_bits_are_distinct_powers_of_two_and_name_every_game_type():
    bits = list(EXPANSION_OF_BUG.values())
    assert all(bit & (bit - 1) == 0 for bit in bits) and len(set(bits)) == len(bits)
    every = sum(bits)
    assert {game_type_name(e) for e in range(every + 1)} == set(GAME_TYPES)
    for e in range(every + 1):
        assert parse_game_type(game_type_name(e)) == e
        assert parse_game_type(game_type_name(e).lower()) == e
        for b in range(N_BUGS):
            assert bug_in_game(b, e) == (not BUGS[b].expansion or bool(e & BUGS[b].expansion))


def test_the_letter_class_matches_every_letter_in_either_case_and_nothing_else():
    pattern = re.compile(f"^{BUG_LETTER_CLASS}$")
    for ch in BUG_CHARS:
        assert pattern.match(ch) and pattern.match(ch.lower())
    assert not any(pattern.match(ch) for ch in "XYZxyz1-")


def test_every_piece_name_reads_back_through_the_notation():
    full = sum(EXPANSION_OF_BUG.values())
    for piece in range(2 * PIECES_PER_COLOUR):
        name = piece_name(piece)
        assert uhp.parse_piece(name, full) == piece
        assert uhp.parse_piece(name.lower(), full) == piece


@pytest.mark.parametrize("bug", range(N_BUGS), ids=lambda b: BUGS[b].name)
def test_every_bug_has_a_move_generator(bug):
    """A bug the compiled generator does not know never moves: in positions of random games of the
    full game type, some tile of every kind (but the mosquito, which borrows its neighbours' kinds)
    gets moves from ``movegen.gen_bug``, and some mosquito moves with no pillbug near to throw it."""
    for game in random_games("Base+MLP", seed=bug, n_games=8, max_plies=120, every=3):
        board = game.board.copy()
        for piece in np.flatnonzero(PIECE_BUG[: 2 * PIECES_PER_COLOUR] == bug):
            src = int(board[POS + piece])
            if src < 0 or board[TOP + src] != piece or board[LEVEL + piece] > 0:
                continue
            if bug == MOSQUITO:
                if any(move_piece(int(m)) == piece for m in game.legal_moves() if m != PASS) and not any(
                        PIECE_BUG[board[TOP + NEIGH[src, d]]] == PILLBUG for d in range(6)
                        if board[TOP + NEIGH[src, d]] >= 0):
                    return
                continue
            if _generated(board, bug, int(piece), src):
                return
    pytest.fail(f"no {BUGS[bug].name} ever got a move: does movegen.gen_bug generate its moves?")


def _generated(board: np.ndarray, bug: int, piece: int, src: int) -> int:
    """Moves ``movegen.gen_bug`` gives ``piece`` (of kind ``bug``, lifted off ``src``)."""
    marks = np.zeros(N_HEX, dtype=np.int32)
    seen = np.zeros(N_HEX, dtype=np.int32)
    queue = np.empty(N_HEX, dtype=np.int64)
    out = np.empty(MAX_MOVES, dtype=np.int32)
    lifted = board.copy()
    lifted[TOP + src] = board[BELOW + piece]
    return gen_bug(lifted, bug, piece, src, marks, 1, out, 0, seen, 1, queue)
