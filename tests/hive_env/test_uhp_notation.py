"""UHP notation: MoveStrings, GameStrings and the errors bad input gets."""

from __future__ import annotations

import pytest

from hive_env import PASS, Game, GameStringError, HiveError, IllegalMoveError, NotationError
from hive_env.board import TOP, move_dest, move_piece
from hive_env.grid import NE, NEIGH, NW, SE, SW, E, W
from hive_env.pieces import GAME_TYPES, parse_game_type, piece_name

from helpers import random_games

OPENING = "Base;InProgress;White[3];wS1;bS1 wS1-;wQ -wS1;bQ bS1-"


def test_printing_follows_the_documented_reference_rule():
    # wS1 (0,0), bS1 (1,0), wQ (-1,0), bQ (2,0).
    game = Game.from_string(OPENING)
    # (-1,-1): its neighbours NE and E are empty, SE holds wQ, so wQ is the reference.
    assert game.move_string(game.parse_move("wA1 \\wQ")) == "wA1 \\wQ"
    # (-1,1) named from wQ (its SE) prints from wS1, the destination's NE neighbour.
    assert game.move_string(game.parse_move("wA1 wQ\\")) == "wA1 /wS1"
    game.play("wB1 \\wQ")
    game.play("bB1 bQ-")
    game.play("wB1 wQ")
    assert game.move_strings[-1] == "wB1 wQ"
    # Crawling onto another stack names that stack's top.
    game.play("bB1 bQ")
    game.play("wB1 wS1")
    assert game.move_strings[-1] == "wB1 wS1"
    # Stepping down from wS1 to (0,-1): the only neighbour is the mover's own stack, so the
    # reference is the tile under the mover.
    game.play("bB1 bS1")
    game.play("wB1 \\wS1")
    assert game.move_strings[-1] == "wB1 \\wS1"


def test_parsing_is_case_insensitive_and_accepts_any_reference():
    a = Game.from_string(OPENING)
    b = Game.from_string(OPENING.upper().replace("BASE", "base"))
    assert (a.board == b.board).all()
    # wS1 is at the origin, wQ to its west: the cell NW of wS1 is NE of wQ.
    assert a.parse_move("wa1 \\WS1") == a.parse_move("WA1 wQ/")


CLIMB = ("Base;InProgress;Black[7];wG1;bA1 wG1-;wQ /wG1;bA2 bA1/;wG2 wQ\\;bB1 bA2/;wG3 wG2-;bQ bB1-;"
         "wG3 /wQ;bS1 bQ\\;wS1 -wG3;bB2 /bS1;wB1 /wG2")
"""Black to move; bB2 can climb onto bS1, which lies south-east of bQ."""


def test_a_climb_names_the_stack_not_a_direction_into_it():
    game = Game.from_string(CLIMB)
    climb = game.parse_move("bB2 bS1")
    assert climb in game.legal_moves()
    before = game.game_string()
    with pytest.raises(IllegalMoveError, match=r"south-east of bQ holds bS1.*written 'bB2 bS1'"):
        game.parse_move("bB2 bQ\\")
    with pytest.raises(IllegalMoveError):
        game.play("bB2 bQ\\")
    assert game.game_string() == before
    game.play("bB2 bS1")
    assert game.game_string().endswith(";bB2 bS1")


def _directional(name: str, ref: str, direction: int) -> str:
    """``name`` moved to the cell in ``direction`` from ``ref``, in UHP's directional form."""
    return name + " " + {NE: f"{ref}/", E: f"{ref}-", SE: f"{ref}\\",
                         SW: f"/{ref}", W: f"-{ref}", NW: f"\\{ref}"}[direction]


def test_every_directional_form_into_an_occupied_cell_is_refused():
    checked = 0
    for game in random_games("Base+MLP", seed=3, n_games=6, max_plies=80, every=3):
        for move in map(int, game.legal_moves()):
            if move == PASS or game.board[TOP + move_dest(move)] < 0:
                continue
            dest = move_dest(move)
            assert game.parse_move(game.move_string(move)) == move  # the printed form parses
            for d in range(6):  # each tile next to dest names dest by a direction from it
                ref = int(game.board[TOP + NEIGH[dest, d]])
                if ref < 0 or ref == move_piece(move):
                    continue
                text = _directional(piece_name(move_piece(move)), piece_name(ref), (d + 3) % 6)
                with pytest.raises(IllegalMoveError, match="holds"):
                    game.parse_move(text)
                checked += 1
    assert checked > 20  # the test saw many climbs


@pytest.mark.parametrize(
    "text",
    ["", "w", "wX1", "wS3", "wQ1", "wS1 wS1--", "wS1 -wS1-", "wS1 wS1 wS1", "bS1 xS1-", "wS", "pass pass"],
)
def test_malformed_move_strings_raise_notation_errors(text):
    game = Game.from_string(OPENING)
    with pytest.raises(NotationError):
        game.parse_move(text)


def test_illegal_moves_raise_and_leave_the_game_untouched():
    game = Game.from_string(OPENING)
    before = game.board.copy(), game.game_string()
    for text in ("bA1 -wQ", "wA1 bQ-", "wS1 bQ-", "wG1 bS1-", "pass", "wB1 wQ"):
        with pytest.raises(IllegalMoveError):
            game.play(text)
        assert (game.board == before[0]).all() and game.game_string() == before[1]
    with pytest.raises(IllegalMoveError, match="not in play"):
        game.play("wA1 -wA2")
    with pytest.raises(IllegalMoveError):
        game.play(123456)


def test_tiles_outside_the_game_type_are_rejected():
    with pytest.raises(NotationError, match="not part of game type Base"):
        Game("Base").play("wM")
    with pytest.raises(GameStringError, match="not part of game type"):
        Game.from_string("Base+M;InProgress;Black[1];wL")
    Game("Base+MLP").play("wM")


def test_game_types_parse_in_any_letter_order_and_print_canonically():
    assert [Game(t).game_type for t in GAME_TYPES] == list(GAME_TYPES)
    assert parse_game_type("base+plm") == parse_game_type("Base+MLP") == 7
    for bad in ("Base+", "Base+X", "Base+MM", "Bas", "Base+M+L"):
        with pytest.raises(ValueError):
            parse_game_type(bad)


@pytest.mark.parametrize(
    "text,match",
    [
        ("Base;InProgress;White[3];wS1;bS1 wS1-", "Turn"),  # turn disagrees (White[2])
        ("Base;NotStarted;Black[1];wS1", "NotStarted"),
        ("Base;WhiteWins;White[2];wS1;bS1 wS1-", "WhiteWins"),
        ("Base;InProgress;White[1]", "NotStarted"),
        ("Base;InProgress;White[2];wS1;bQ wS1-", "move 2"),
        ("Base;InProgress", "GameString"),
        ("Base;Started;White[1]", "GameState"),
        ("Base;NotStarted;Red[1]", "Turn"),
        ("Base;NotStarted;White[0]", "Turn"),
        ("Chess;NotStarted;White[1]", "game type"),
    ],
)
def test_bad_game_strings_say_what_is_wrong(text, match):
    with pytest.raises(HiveError, match=match):
        Game.from_string(text)


def test_finished_games_load_and_refuse_more_moves():
    text = ("Base;WhiteWins;Black[8];wS1;bS1 wS1-;wQ -wS1;bQ bS1/;wG1 -wQ;bG1 \\bQ;wG1 bQ\\;bG2 bQ/;"
            "wA1 wQ\\;bA1 bG2/;wA1 bG2\\;bA1 \\bG2;wQ \\wS1;bA1 bG2/;wQ /bG1")
    game = Game.from_string(text)
    assert game.state == "WhiteWins" and len(game.legal_moves()) == 0
    with pytest.raises(GameStringError, match="over"):
        Game.from_string(text.replace("Black[8]", "White[9]") + ";bA1 -wS1")
    game.undo()
    assert game.state == "InProgress"


def test_undo_past_the_start_is_an_error():
    game = Game.from_string(OPENING)
    with pytest.raises(HiveError, match="only 4"):
        game.undo(5)
    game.undo(4)
    assert game.game_string() == "Base;NotStarted;White[1]"
