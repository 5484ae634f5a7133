"""The action space: sizes, canonical references, and round trips with UHP MoveStrings."""

from __future__ import annotations

import numpy as np
import pytest

from hive_env import GAME_TYPES, Game, HiveError
from hive_env.actions import (
    IllegalActionError,
    action_space_size,
    action_to_move,
    action_to_string,
    decode_action,
    encode_move,
    move_to_action,
    num_actions,
    pass_action,
    split_action,
    string_to_action,
    transform_actions,
)
from hive_env.board import BELOW, PASS, POS, TOP
from hive_env.grid import NEIGH, hex_of, qr_of
from hive_env.pieces import parse_game_type, piece_name
from hive_env.position import board_from_tiles

from helpers import random_games


@pytest.mark.parametrize(("game_type", "size"), [
    ("Base", 3389), ("Base+M", 4033), ("Base+L", 4033), ("Base+P", 4033),
    ("Base+ML", 4733), ("Base+MP", 4733), ("Base+LP", 4733), ("Base+MLP", 5489),
])
def test_action_space_sizes(game_type, size):
    assert action_space_size(game_type) == size
    assert action_space_size(parse_game_type(game_type)) == size
    assert num_actions(parse_game_type(game_type)) == size
    assert pass_action(game_type) == size - 1


def test_worked_example_of_the_docstring():
    game = Game("Base")
    assert string_to_action(game.board, "wS1") == 167
    assert split_action(167, "Base") == (1, 1, 6)
    game.play("wS1")
    assert string_to_action(game.board, "bS1 wS1-") == 239
    game.play("bS1 wS1-")
    assert string_to_action(game.board, "wQ -wS1") == 11
    assert action_to_string(game.board, 11) == "wQ -wS1"
    assert move_to_action(game.board, PASS) == 3388
    assert action_to_move(game.board, 3388) == PASS


@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_mask_counts_and_round_trips(game_type):
    """Every legal move has one action; action -> move -> MoveString -> action round-trips."""
    for game in random_games(game_type, seed=GAME_TYPES.index(game_type)):
        board = game.board
        moves = [int(m) for m in game.legal_moves()]
        strings = game.legal_move_strings()
        actions = [move_to_action(board, m) for m in moves]
        assert len(set(actions)) == len(moves) == len(set(strings))
        for a, move, text in zip(actions, moves, strings, strict=True):
            assert action_to_move(board, a) == move
            assert action_to_string(board, a) == text
            assert string_to_action(board, text) == a
            assert 0 <= a < action_space_size(game_type)


@pytest.mark.parametrize("game_type", ["Base", "Base+MLP", "Base+P"])
def test_only_canonical_actions_decode(game_type):
    """Scanning the whole action space finds exactly one legal action per legal move."""
    n_actions = action_space_size(game_type)
    for game in random_games(game_type, seed=5, n_games=2, max_plies=70)[::2]:
        board = game.board
        legal = {int(m) for m in game.legal_moves()}
        found = []
        for a in range(n_actions):
            move = decode_action(board, a)
            if move >= 0:
                assert encode_move(board, move) == a  # decode only accepts canonical ids
                if move in legal:
                    found.append(move)
        assert sorted(found) == sorted(legal)
        assert decode_action(board, -1) == -1
        assert decode_action(board, n_actions) == -1


@pytest.mark.parametrize("game_type", ["Base", "Base+MLP"])
def test_any_reference_parses_to_the_canonical_action(game_type):
    """MoveStrings naming other reference tiles (UHP allows any) give the same action."""
    marks = {0: "{}/", 1: "{}-", 2: "{}\\", 3: "/{}", 4: "-{}", 5: "\\{}"}
    for game in random_games(game_type, seed=11, n_games=2)[1:]:
        board = game.board
        for move in game.legal_moves():
            move = int(move)
            if move == PASS or board[TOP + (move & 1023)] >= 0:
                continue
            want = move_to_action(board, move)
            piece, dest = move >> 10, move & 1023
            for k in range(6):
                ref = int(board[TOP + NEIGH[dest, k]])
                if ref == piece:
                    ref = int(board[BELOW + piece])
                if ref < 0:
                    continue
                text = f"{piece_name(piece)} " + marks[(k + 3) % 6].format(piece_name(ref))
                assert string_to_action(board, text) == want


def test_actions_are_relative_to_the_side_to_move():
    """Tiles are numbered from the mover's side: own tiles 0..n/2-1, the opponent's after."""
    white = Game("Base")
    white.play("wS1")
    black = Game("Base")
    black.play("wG1")  # Black then plays the mirror image of White's next move
    a_black = string_to_action(black.board, "bS1 wG1-")
    # src own S1 (1), ref opponent G1 (11 + 5), east (1)
    assert split_action(a_black, "Base") == (1, 16, 1)
    white2 = Game.from_string("Base;InProgress;White[2];wS1;bG1 wS1-")
    a_white = string_to_action(white2.board, "wS2 bG1-")
    assert split_action(a_white, "Base") == (2, 16, 1)


def _translated(board: np.ndarray, dq: int, dr: int) -> np.ndarray:
    out = board.copy()
    out[TOP:TOP + 1024] = -1
    for h in range(1024):
        q, r = qr_of(h)
        out[TOP + hex_of(q + dq, r + dr)] = board[TOP + h]
    for p in range(28):
        if board[POS + p] >= 0:
            q, r = qr_of(int(board[POS + p]))
            out[POS + p] = hex_of(q + dq, r + dr)
    return out


@pytest.mark.parametrize("game_type", ["Base", "Base+MLP"])
def test_translation_invariance(game_type):
    """Shifting the whole hive changes no action id."""
    for game in random_games(game_type, seed=3, n_games=2)[1:]:
        moved = _translated(game.board, 7, -11)
        for move in game.legal_moves():
            move = int(move)
            shifted = move if move == PASS else (move >> 10) * 1024 + hex_of(
                qr_of(move & 1023)[0] + 7, qr_of(move & 1023)[1] - 11)
            assert move_to_action(moved, shifted) == move_to_action(game.board, move)


def test_transform_actions_maps_legal_sets():
    from hive_env.symmetry import transform_board, transform_move

    for game in random_games("Base+MLP", seed=8, n_games=2)[1:]:
        moves = [int(m) for m in game.legal_moves()]
        actions = np.array([move_to_action(game.board, m) for m in moves] + [-1])
        for sym in range(12):
            image, _ = transform_board(game.board, game.hist, sym)
            got = transform_actions(game.board, actions, sym)
            want = [move_to_action(image, transform_move(m, sym)) for m in moves] + [-1]
            assert got.tolist() == want


def test_bad_actions_raise():
    game = Game("Base")
    game.play("wS1")
    with pytest.raises(IllegalActionError, match="not a canonical action"):
        action_to_move(game.board, 0)  # own Q next to own Q: the queen is not in play
    with pytest.raises(IllegalActionError):
        action_to_move(game.board, 10**6)
    with pytest.raises(IllegalActionError):
        transform_actions(game.board, np.array([0]), 1)
    assert issubclass(IllegalActionError, HiveError)
    with pytest.raises(HiveError):
        move_to_action(game.board.astype(np.int32), PASS)


def test_reference_under_the_mover():
    """A beetle stepping off a stack onto a cell next only to its old stack names the tile under it."""
    board, _ = board_from_tiles("Base", [("wQ", 0, 0), ("bQ", 1, 0), ("wB1", 1, 0)], ply=6)
    move = 3 * 1024 + hex_of(2, -1)  # wB1 to the NE of bQ
    assert action_to_string(board, move_to_action(board, move)) == "wB1 bQ/"
