"""Hand-built positions for each movement and placement rule, with exact expected moves.

Positions are set up in axial coordinates (q, r), pointy-top: the neighbours of (q, r) are
NE (q+1, r-1), E (q+1, r), SE (q, r+1), SW (q-1, r+1), W (q-1, r), NW (q, r-1). In the
diagrams each row r is shifted half a cell right of the row above it; ``..`` is empty.
Expected destinations were worked out by hand from docs/rules.md.
"""

from __future__ import annotations

import numpy as np
import pytest

from hive_env import DRAW, PASS, WHITE_WINS, Game, IllegalMoveError
from hive_env.board import HIST, PLY, POS, compute_status, new_board
from hive_env.grid import hex_of, qr_of
from hive_env.position import board_from_tiles
from hive_env.uhp import parse_piece


def setup(tiles, ply, game_type="Base", last=None) -> Game:
    return Game.from_board(*board_from_tiles(game_type, tiles, ply, last))


def qr(h: int) -> tuple[int, int]:
    q, r = qr_of(h)
    return ((q + 16) % 32 - 16, (r + 16) % 32 - 16)


def dests(game: Game, name: str) -> set[tuple[int, int]]:
    """Destinations (q, r) of every legal move of one tile."""
    piece = parse_piece(name, game.expansions)
    return {qr(int(m) & 1023) for m in game.legal_moves() if m != PASS and m >> 10 == piece}


# A "pocket": five tiles around the empty cell (0, 0), open only at NE (1, -1), which is a
# gate (both flanks (0, -1) and (1, 0) are occupied).
#
#          wG1  ..
#       bB1   ..   wQ   wA1      row 0: (-1,0) bB1, (0,0) empty, (1,0) wQ; wA1 at (2,-1)
#     wB1  bQ
POCKET = [("wQ", 1, 0), ("bQ", 0, 1), ("wB1", -1, 1), ("bB1", -1, 0), ("wG1", 0, -1)]


def test_ant_walks_the_outside_but_not_through_a_gate():
    game = setup([*POCKET, ("wA1", 2, -1)], ply=10)
    outside = {(2, 0), (1, 1), (1, -1), (0, 2), (-1, 2), (-2, 2), (-2, 1), (-2, 0), (-1, -1), (1, -2),
               (0, -2)}
    assert dests(game, "wA1") == outside
    assert (0, 0) not in dests(game, "wA1")


def test_pinned_tiles_cannot_move():
    game = setup([*POCKET, ("wA1", 2, -1)], ply=10)
    assert dests(game, "wQ") == set()  # the ant hangs off the queen
    assert dests(game, "wB1") == set()  # middle of the chain
    assert dests(game, "wG1") == {(-2, 1)}  # jumps over bB1 to the SW


def test_queen_slides_one_cell_keeping_contact():
    # wG2 hangs off wG1, so wG1 is pinned; the queen, now a chain end, may move.
    game = setup([*POCKET, ("wG2", 0, -2)], ply=10)
    # (1, 1): one flank occupied. (0, 0): with the queen lifted the pocket opens.
    # (2, -1), (2, 0) and (1, -1) would lose contact during the slide.
    assert dests(game, "wQ") == {(1, 1), (0, 0)}
    assert dests(game, "wG1") == set()


def test_grasshopper_jumps_into_a_surrounded_cell():
    game = setup([*POCKET, ("wG2", 0, -2)], ply=10)
    assert dests(game, "wG2") == {(0, 0)}


def test_spider_moves_exactly_three_without_backtracking():
    #   ..  ..  ..  ..
    # wS1  wQ  bQ  bA1      a line; the spider walks its 10-cell rim
    game = setup([("wS1", -1, 0), ("wQ", 0, 0), ("bQ", 1, 0), ("bA1", 2, 0)], ply=8)
    assert dests(game, "wS1") == {(2, -1), (1, 1)}


def test_beetle_slides_and_climbs():
    game = setup([("wB1", -1, 0), ("wQ", 0, 0), ("bQ", 1, 0)], ply=8)
    assert dests(game, "wB1") == {(0, 0), (0, -1), (-1, 1)}


# A ring of six tiles around the hole (0, 0); wB1 sits on bA1 at (1, 0).
#        wG1  wQ
#     bS1  ..  bA1+wB1
#       wS1  bQ
RING = [("wQ", 1, -1), ("bA1", 1, 0), ("wB1", 1, 0), ("bQ", 0, 1), ("wS1", -1, 1), ("bS1", -1, 0),
        ("wG1", 0, -1)]


def test_beetle_on_top_moves_anywhere_and_drops_into_a_hole():
    game = setup(RING, ply=10)
    assert dests(game, "wB1") == {(2, -1), (2, 0), (1, 1), (0, 1), (0, 0), (1, -1)}
    # The queen in the ring: the hole is gated, two outside slides remain.
    assert dests(game, "wQ") == {(2, -1), (1, -2)}


def test_beetle_gate_at_height_and_covered_tiles():
    # Beetles on bQ and wQ make both flanks of the drop into the hole two high.
    game = setup([*RING, ("bB1", 0, 1), ("wB2", 1, -1)], ply=10)
    assert dests(game, "wB1") == {(2, -1), (2, 0), (1, 1), (0, 1), (1, -1)}
    assert dests(game, "wQ") == set()  # covered by wB2


def test_placement_touches_own_colour_only_and_stack_tops_count():
    # bB1 sits on wQ, so (0, 0) counts as black. White's only own top is wS1 at (-1, 0).
    game = setup([("wQ", 0, 0), ("bQ", 1, 0), ("wS1", -1, 0), ("bB1", 0, 0)], ply=6)
    cells = {(-2, 1), (-2, 0), (-1, -1)}
    placements = {m for m in game.legal_moves() if game.board[POS + (m >> 10)] < 0}
    want = {parse_piece(n, 0) * 1024 + hex_of(q, r) for n in ("wS2", "wB1", "wG1", "wA1") for q, r in cells}
    assert placements == want


def test_queen_is_forced_on_the_fourth_turn_and_nothing_moves_before_it():
    tiles = [("wS1", 0, 0), ("bS1", 1, 0), ("wG1", -1, 0), ("bG1", 2, 0), ("wA1", -2, 0), ("bA1", 3, 0)]
    game = setup(tiles, ply=6)
    cells = {(-1, 1), (0, -1), (-2, 1), (-1, -1), (-3, 1), (-3, 0), (-2, -1)}
    assert {(m >> 10, qr(m & 1023)) for m in game.legal_moves()} == {(0, c) for c in cells}


def test_tournament_opening_and_placement_in_number_order():
    game = Game("Base")
    assert sorted(game.legal_move_strings()) == ["wA1", "wB1", "wG1", "wS1"]
    game.play("wS1")
    assert {s.split()[0] for s in game.legal_move_strings()} == {"bS1", "bB1", "bG1", "bA1"}
    assert len(game.legal_moves()) == 24
    game.play("bS1 wS1-")
    with pytest.raises(IllegalMoveError, match="number order"):
        game.play("wA2 -wS1")
    game.play("wS2 -wS1")


def test_pass_only_when_nothing_else_is_legal():
    game = Game("Base")
    with pytest.raises(IllegalMoveError, match="pass"):
        game.play("pass")
    # wQ's only empty neighbour (1, -1) is gated by bA2 and bQ, and every cell next to a
    # white tile touches a black one: White must pass.
    game = setup([("wQ", 0, 0), ("bQ", 1, 0), ("bA1", -1, 0), ("bA2", 0, -1),
                  ("bS1", -1, 1), ("bS2", 0, 1)], ply=10)
    assert game.state == "InProgress"
    assert list(game.legal_moves()) == [PASS]


def test_surrounding_a_queen_wins_and_ends_the_game():
    #        bA1  bA2  wG1  wA2
    #     bA3  wQ   bQ   ..        bQ's last free neighbour is (2, 0); wQ still has (-1, 1)
    #        ..   wS1  wA1
    tiles = [("bA1", 0, -1), ("bA2", 1, -1), ("bA3", -1, 0), ("wQ", 0, 0), ("bQ", 1, 0),
             ("wS1", 0, 1), ("wG1", 2, -1), ("wA1", 1, 1), ("wA2", 3, -1)]
    game = setup(tiles, ply=16)
    assert game.state == "InProgress"
    game.play(parse_piece("wA2", 0) * 1024 + hex_of(2, 0))
    assert game.status == WHITE_WINS and game.state == "WhiteWins"
    assert len(game.legal_moves()) == 0
    with pytest.raises(IllegalMoveError, match="over"):
        game.play("pass")


def test_one_move_surrounding_both_queens_is_a_draw():
    #        bA1  ..   bA2  wA1     wQ (0,0) and bQ (1,0) share their last free
    #     wS1  wQ   bQ   wS2          neighbour (1, -1); the white ant fills it
    #        bS1  bS2  wB1  wG1
    tiles = [("wQ", 0, 0), ("bQ", 1, 0), ("wS1", -1, 0), ("wS2", 2, 0), ("bA1", 0, -1), ("bA2", 2, -1),
             ("bS1", -1, 1), ("bS2", 0, 1), ("wB1", 1, 1), ("wG1", 2, 1), ("wA1", 3, -1)]
    game = setup(tiles, ply=16)
    move = parse_piece("wA1", 0) * 1024 + hex_of(1, -1)
    assert move in game.legal_moves()
    game.play(move)
    assert game.status == DRAW and game.state == "Draw"


def test_threefold_repetition_window_is_32_plies():
    board, hist = new_board()
    board[PLY] = 40
    hist[:] = np.arange(1, HIST + 1, dtype=np.uint64)  # all positions distinct
    hist[40 % HIST] = 7777
    hist[10 % HIST] = 7777  # 30 plies back: inside the window
    hist[6 % HIST] = 7777  # 34 plies back: outside
    assert compute_status(board, hist) != DRAW
    hist[8 % HIST] = 7777  # 32 plies back: inside
    assert compute_status(board, hist) == DRAW


def test_ply_cap_draws_only_when_set():
    capped, free = Game("Base", ply_cap=12), Game("Base")
    for _ in range(12):
        capped.play(int(capped.legal_moves()[0]))
        free.play(int(free.legal_moves()[0]))
    assert capped.state == "Draw" and free.state == "InProgress"


# ----- expansions -----------------------------------------------------------------------


def test_mosquito_next_to_a_pillbug_throws_even_when_pinned():
    # wQ  wM  bP  bQ    (a line): wM is pinned but borrows the pillbug's power.
    line = [("wQ", -1, 0), ("wM", 0, 0), ("bP", 1, 0), ("bQ", 2, 0)]
    game = setup(line, ply=8, game_type="Base+MP")
    assert dests(game, "wM") == set()
    # wQ: its own slides (0,-1), (-1,1), plus throws over wM; bP is pinned and not thrown.
    assert dests(game, "wQ") == {(1, -1), (0, 1), (-1, 1), (0, -1)}
    assert len([m for m in game.legal_moves() if m >> 10 == 0]) == 4  # de-duplicated
    assert dests(game, "bP") == set()
    # Without the pillbug there is nothing to borrow.
    game = setup([("wQ", -1, 0), ("wM", 0, 0), ("bA1", 1, 0), ("bQ", 2, 0)], ply=8, game_type="Base+MP")
    assert dests(game, "wQ") == {(0, -1), (-1, 1)}


def test_mosquito_touching_only_mosquitoes_cannot_move():
    game = setup([("wM", 0, 0), ("bM", 1, 0), ("bQ", 2, 0), ("wQ", 3, 0)], ply=8, game_type="Base+M")
    assert dests(game, "wM") == set()


def test_mosquito_on_top_moves_as_a_beetle_only():
    # wM on bQ at (0, 0), next to a grasshopper: on top it may not jump.
    tiles = [("wQ", -1, 0), ("bQ", 0, 0), ("wM", 0, 0), ("wG1", 1, 0)]
    game = setup(tiles, ply=8, game_type="Base+M")
    assert dests(game, "wM") == {(1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1)}


def test_ladybug_two_up_one_down_never_back_to_its_origin():
    game = setup([("wL", -1, 0), ("wQ", 0, 0), ("bQ", 1, 0)], ply=8, game_type="Base+L")
    assert dests(game, "wL") == {(2, -1), (2, 0), (1, 1), (0, 1), (1, -1)}
    game = setup([("wL", -1, 0), ("wQ", 0, 0), ("bQ", 0, -1)], ply=8, game_type="Base+L")
    assert dests(game, "wL") == {(1, -2), (1, -1), (-1, -1), (0, -2), (1, 0), (0, 1), (-1, 1)}


def test_ladybug_blocked_by_a_gate_at_height():
    # Crawling wQ -> bQ on top passes between two stacks of height 2: blocked, so (2, 0),
    # reachable only from bQ, is not a destination.
    tiles = [("wL", -1, 0), ("wQ", 0, 0), ("bQ", 1, 0), ("bA1", 1, -1), ("bB1", 1, -1),
             ("wA1", 0, 1), ("wB1", 0, 1)]
    game = setup(tiles, ply=10, game_type="Base+L")
    want = {(2, -2), (2, -1), (1, -2), (0, -1), (1, 1), (0, 2), (-1, 2), (-1, 1)}
    assert dests(game, "wL") == want


def test_pinned_pillbug_throws_an_opponent_tile():
    # bA1  wP  wQ  bQ : wP is pinned, throws the black ant (an end tile) over itself.
    game = setup([("bA1", -1, 0), ("wP", 0, 0), ("wQ", 1, 0), ("bQ", 2, 0)], ply=8, game_type="Base+P")
    assert dests(game, "bA1") == {(1, -1), (0, 1), (-1, 1), (0, -1)}
    assert dests(game, "wP") == set()
    game.play(parse_piece("bA1", 4) * 1024 + hex_of(0, -1))
    # The thrown ant moved last: Black may not move it now.
    assert dests(game, "bA1") == set()


def test_thrown_pillbug_cannot_use_its_power():
    tiles = [("wP", 0, 0), ("wQ", 1, 0), ("bQ", 2, 0), ("wG1", 1, -1), ("bP", 0, -1)]
    free = setup(tiles, ply=9, game_type="Base+P")
    assert dests(free, "wG1") == {(1, -2), (-1, 0), (-1, -1), (0, -2)}  # thrown by bP
    assert dests(free, "bP") != set()
    just_thrown = setup(tiles, ply=9, game_type="Base+P", last="bP")
    assert dests(just_thrown, "wG1") == set()
    assert dests(just_thrown, "bP") == set()
