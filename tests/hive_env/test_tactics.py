"""Exact one-move tactics (``hive_env.tactics``) against brute force, and the classical players' checks.

Brute force plays every legal move (and, for the threats, every reply) through ``Game``; the
checks play only the few moves that can end the game. Both must agree on every position of the
real games of all eight game types and of seeded random games.
"""

from __future__ import annotations

import numpy as np
import pytest

from hive_env import BLACK_WINS, DRAW, WHITE_WINS, Game
from hive_env.board import BLACK_QUEEN, POS, WHITE_QUEEN, is_surrounded
from hive_env.position import board_from_tiles
from hive_env.tactics import (
    PROVEN_DRAW,
    PROVEN_LOSS,
    PROVEN_WIN,
    UNPROVEN,
    move_proofs,
    prove,
    safe_moves,
)
from players.registry import make_player

from helpers import GAME_TYPES, REAL_GAMES, random_games, real_game_positions

# White to move; wA2 (3,-1) -> (2,0) surrounds bQ (the golden trees' position); swapped: must parry.
WIN_IN_ONE = [("bA1", 0, -1), ("bA2", 1, -1), ("bA3", -1, 0), ("wQ", 0, 0), ("bQ", 1, 0),
              ("wS1", 0, 1), ("wG1", 2, -1), ("wA1", 1, 1), ("wA2", 3, -1)]
MUST_PARRY = [(("b" if n[0] == "w" else "w") + n[1:], q, r) for n, q, r in WIN_IN_ONE]


def _code_after(game: Game, mover: int) -> int:
    """Proof code for ``mover`` of a finished game (UNPROVEN while in progress)."""
    if not game.is_over:
        return UNPROVEN
    if game.status == DRAW:
        return PROVEN_DRAW
    return PROVEN_WIN if {WHITE_WINS: 0, BLACK_WINS: 1}[game.status] == mover else PROVEN_LOSS


def _surrounded(game: Game) -> bool:
    """Whether a queen is surrounded (the game ended by the surround rule, not a repetition)."""
    board = game.board
    queens = (int(board[POS + q]) for q in (WHITE_QUEEN, BLACK_QUEEN))
    return any(h >= 0 and is_surrounded(board, h) for h in queens)


def brute_force(game: Game) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every legal move; its code when it ends the game; whether it ends by a surround; and
    whether the opponent then wins at once (every reply played)."""
    mover = game.side_to_move
    moves = game.legal_moves()
    codes, by_surround, threatened = [], [], []
    for move in moves:
        nxt = game.copy()
        nxt.play(int(move))
        codes.append(_code_after(nxt, mover))
        by_surround.append(nxt.is_over and _surrounded(nxt))
        lost = False
        if not nxt.is_over:
            for reply in nxt.legal_moves():
                after = nxt.copy()
                after.play(int(reply))
                if _code_after(after, 1 - mover) == PROVEN_WIN:
                    lost = True
                    break
        threatened.append(lost)
    return moves, np.array(codes, np.int8), np.array(by_surround, bool), np.array(threatened, bool)


def positions(game_type: str, thorough: bool) -> list[Game]:
    """Positions along the real games (every ply when ``thorough``, else every third) and,
    when thorough, along seeded random games."""
    if not thorough:
        return real_game_positions(game_type, every=3)
    return real_game_positions(game_type, every=1) + random_games(game_type, seed=11, n_games=2, every=3)


def _check_position(game: Game) -> tuple[int, int]:
    moves, codes, by_surround, threatened = brute_force(game)
    got_moves, got = move_proofs(game.board, game.hist)
    np.testing.assert_array_equal(got_moves, moves)
    for i in range(moves.size):
        if by_surround[i]:  # every surround is found, with its result
            assert got[i] == codes[i], (game.game_string(), i)
        elif codes[i] != UNPROVEN:  # a repetition draw: found or not, never misreported
            assert got[i] in (UNPROVEN, codes[i])
        elif threatened[i]:
            assert got[i] == PROVEN_LOSS, (game.game_string(), i)
        else:
            assert got[i] == UNPROVEN, (game.game_string(), i)
    return int((got == PROVEN_WIN).sum()), int(((got == PROVEN_LOSS) & ~by_surround).sum())


@pytest.mark.parametrize("thorough", [False, pytest.param(True, marks=pytest.mark.slow)])
@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_one_move_checks_equal_brute_force(game_type, thorough):
    found_wins = found_threats = 0
    for game in positions(game_type, thorough):
        if game.is_over:
            continue
        wins, threats = _check_position(game)
        found_wins += wins
        found_threats += threats
    assert found_wins > 0 and found_threats > 0  # the positions hold tactics: the test means something


def test_terminal_in_one_for_every_game_type():
    """Each real game ending by a surround: the position before its last move knows that move's result."""
    seen = set()
    for line in REAL_GAMES.read_text().splitlines():
        record = Game.from_string(line)
        if not record.is_over or not _surrounded(record):
            continue
        before = Game.from_string(record.game_type)
        for move in record.moves[:-1]:
            before.play(int(move))
        last = int(record.moves[-1])
        moves, codes = move_proofs(before.board, before.hist)
        assert codes[list(moves).index(last)] == _code_after(record, before.side_to_move)
        seen.add(record.game_type)
    assert len(seen) >= 6, seen  # most game types end by a surround in the records


def test_prove_is_the_solver_rule():
    u, lo, dr, w = UNPROVEN, PROVEN_LOSS, PROVEN_DRAW, PROVEN_WIN
    cases = [([u, w], w), ([lo, u], u), ([lo, lo], lo), ([lo, dr], dr), ([dr, dr, lo], dr), ([], u), ([u], u)]
    for codes, want in cases:
        assert prove(np.array(codes, np.int8), len(codes)) == want, codes


def test_safe_moves_leaves_only_defences():
    game = Game.from_board(*board_from_tiles("Base", MUST_PARRY, 16))
    moves = game.legal_moves()
    safe = safe_moves(game.board, game.hist, moves)
    _, codes, _, threatened = brute_force(game)
    np.testing.assert_array_equal(safe, ~threatened & (codes != PROVEN_LOSS))
    assert 0 < safe.sum() < moves.size


@pytest.mark.parametrize("spec", ["greedy", "alphabeta:depth=1", "alphabeta:time=0.05", "alphabeta:depth=2"])
def test_classical_players_win_in_one_and_parry(spec):
    win = Game.from_board(*board_from_tiles("Base", WIN_IN_ONE, 16))
    parry = Game.from_board(*board_from_tiles("Base", MUST_PARRY, 16))
    for seed in range(3):
        player = make_player(spec, seed=seed)
        move = player.choose(win)
        after = win.copy()
        after.play(move)
        assert after.status == WHITE_WINS
        move = player.choose(parry)
        _, codes, _, threatened = brute_force(parry)
        slot = list(parry.legal_moves()).index(move)
        assert not threatened[slot] and codes[slot] != PROVEN_LOSS
