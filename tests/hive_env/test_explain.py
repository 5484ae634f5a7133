"""An illegal movement is refused with the rule it breaks (``hive_env.explain``).

Positions are built from tiles at axial ``(q, r)`` (``hive_env.position``; E is ``q+1``, SE is
``r+1``, pointy-top rows shifted half a cell), drawn in a comment above each. Placements have
their reasons tested in tests/hive_env/test_show.py; hive-play's use in tests/e2e/test_play_cli.py.
"""

from __future__ import annotations

import pytest

from hive_env import Game, HiveError
from hive_env.board import POS, move_of
from hive_env.explain import BUG_RULES, GATE, GATE_HIGH, why_illegal
from hive_env.grid import NEIGH
from hive_env.pieces import BEETLE, GRASSHOPPER, LADYBUG, QUEEN, SPIDER
from hive_env.position import board_from_tiles

from helpers import random_games

#   wQ  wS1  bS1  bQ        (White to move: wS1 holds the line together)
LINE = Game.from_string("Base;InProgress;White[3];wS1;bS1 wS1-;wQ -wS1;bQ bS1-")


def tiles(game_type: str, placed: list[tuple[str, int, int]], ply: int = 12, last: str | None = None) -> Game:
    return Game.from_board(*board_from_tiles(game_type, placed, ply, last))


#      bQ   bA1             (1,-1) (2,-1)
#   wQ   .   bA2       (0,0) (1,0) (2,0)
#  wA2 wS1  wA1     (-1,1) (0,1) (1,1)
# (1,0) is a hole: wQ and wA1 would have to slide through a gap, wA2 is shut out on all six sides
RING = tiles("Base", [("wQ", 0, 0), ("bQ", 1, -1), ("bA1", 2, -1), ("bA2", 2, 0), ("wA1", 1, 1),
                      ("wS1", 0, 1), ("wA2", -1, 1)])
#        bS1  bQ  bA1     (-1,-1) (0,-2) (1,-2), with (0,-1) empty: wQ going NE to (1,-1) loses touch
#   wS1  wQ
LOOSE = tiles("Base", [("wQ", 0, 0), ("wS1", -1, 0), ("bS1", -1, -1), ("bQ", 0, -2), ("bA1", 1, -2)])
# wB1 on bQ at (0,0); stacks of two on both sides of the step east (NE (1,-1), SE (0,1))
HIGH = tiles("Base", [("bQ", 0, 0), ("wB1", 0, 0), ("wQ", 1, -1), ("bB1", 1, -1), ("wS1", 0, 1),
                      ("bB2", 0, 1)])
#   wG1  wQ  bQ  bS1
HOPPER = tiles("Base", [("wQ", 0, 0), ("wG1", -1, 0), ("bQ", 1, 0), ("bS1", 2, 0)])
#   wL  wQ  bQ  bA1        (two steps on top reach only bQ: down from there, not beside wQ alone)
LADY = tiles("Base+L", [("wL", 0, 0), ("wQ", 1, 0), ("bQ", 2, 0), ("bA1", 3, 0)])
#   wM  bM  bQ
#         wQ
LONELY_MOSQUITO = tiles("Base+M", [("wM", 0, 0), ("bM", 1, 0), ("wQ", 1, 1), ("bQ", 2, 0)])
#      bG1  bQ
#   wM   wQ
MOSQUITO = tiles("Base+M", [("wM", 0, 0), ("wQ", 1, 0), ("bG1", 1, -1), ("bQ", 2, -1)])
#   wG1 wQ  wP  bA1 bQ     (bA1 moved last; bA1 is Black's, beside White's pillbug)
PILLBUG_LINE = tiles("Base+P", [("wQ", 0, 0), ("wP", 1, 0), ("bA1", 2, 0), ("bQ", 3, 0), ("wG1", -1, 0)],
                     last="bA1")
#              bA1          (2,-1)
#   wS1  wQ  wP  bQ         (wP moved last: it cannot throw)
PILLBUG_MOVED = tiles("Base+P", [("wQ", 0, 0), ("wP", 1, 0), ("bA1", 2, -1), ("bQ", 2, 0), ("wS1", -1, 0)],
                      last="wP")
THROWN = tiles("Base+P", [("wQ", 0, 0), ("wP", 1, 0), ("bA1", 2, 0), ("bQ", 3, 0), ("wG1", -1, 0)], last="wQ")


@pytest.mark.parametrize(("game", "move", "reason"), [
    # whose tile, the Queen, stacks, the pillbug's last-turn rule, staying put
    (LINE, "bQ -wQ", "bQ is Black's: it is White's turn"),
    (Game.from_string("Base;InProgress;White[2];wS1;bS1 wS1-"), "wS1 bS1/",
     "White's Queen is not in play yet: no tile moves before its side's Queen is placed"),
    (tiles("Base", [("wQ", 0, 0), ("bQ", 1, 0), ("bB1", 1, 0), ("wS1", -1, 0)], ply=7), "bQ wS1/",
     "bQ is covered by bB1 and cannot move"),
    (THROWN, "wQ wP/", "wQ was moved by a pillbug on the previous turn and cannot move this turn"),
    (LINE, "wQ wQ", "wQ is already there: a move goes to another cell"),
    # one hive
    (LINE, "wS1 /wQ", "moving wS1 would split the hive (one-hive rule)"),
    (tiles("Base", [("wQ", 0, 0), ("wA1", 1, 0)], ply=2), "wA1 wA1-",
     "wA1 would end apart from the hive (one-hive rule)"),
    (LOOSE, "wQ bA1\\",
     "a tile slides along the hive and may not lose touch with it on the way (one-hive rule)"),
    # freedom to move
    (RING, "wQ wS1/", GATE),
    (RING, "wA1 bQ\\", GATE),
    (RING, "wA2 bQ\\", "freedom to move: tiles close that cell in on all six sides, so nothing slides in"),
    (HIGH, "wB1 bB1\\", GATE_HIGH),
    # each bug's own rule
    (LOOSE, "wQ bA1-", BUG_RULES[QUEEN]),
    (RING, "wS1 bA1/", BUG_RULES[SPIDER]),
    (HIGH, "wB1 bB1-", BUG_RULES[BEETLE]),
    (HOPPER, "wG1 \\wQ", BUG_RULES[GRASSHOPPER]),
    (LINE, "wQ bQ", "the cell is taken: only a beetle (or a mosquito touching one) climbs onto the hive"),
    (LADY, "wL \\wQ", BUG_RULES[LADYBUG]),
    (LADY, "wL bA1", "the cell is taken: a ladybug ends its move on an empty cell"),
    # mosquitoes
    (LONELY_MOSQUITO, "wM -wQ",
     "wM touches only mosquitoes, so it has no move (a mosquito moves as a bug it touches)"),
    (MOSQUITO, "wM bQ-", f"a mosquito moves as a bug it touches: as a Queen, {BUG_RULES[QUEEN]}; "
                         f"as a grasshopper, {BUG_RULES[GRASSHOPPER]}"),
    (MOSQUITO, "wM wQ",
     "the cell is taken: a mosquito climbs onto the hive only as a beetle, when it touches one"),
    # pillbug throws
    (PILLBUG_LINE, "bA1 wP/", "bA1 is Black's: it is White's turn, and wP cannot throw it there: "
                              "bA1 moved on the previous turn, so it cannot be thrown"),
    (PILLBUG_LINE, "bA1 \\wQ", "bA1 is Black's: it is White's turn, and wP cannot throw it there: "
                               "a pillbug puts the tile down on an empty cell beside itself"),
    (PILLBUG_MOVED, "bA1 wP\\", "bA1 is Black's: it is White's turn, and wP cannot throw it there: "
                                "wP was moved on the previous turn, so it cannot use its power"),
])
def test_an_illegal_movement_names_the_rule(game, move, reason):
    assert game.why_illegal(move) == f"{move}: {reason}"
    with pytest.raises(HiveError) as refused:
        game.play(move)
    assert str(refused.value) == f"{move}: {reason}"


def test_a_legal_move_has_no_reason_and_bad_notation_gives_its_error():
    assert LINE.why_illegal("wQ \\wS1") is None
    unmoved = tiles("Base+P", [("wQ", 0, 0), ("wP", 1, 0), ("bA1", 2, -1), ("bQ", 2, 0), ("wS1", -1, 0)])
    assert unmoved.why_illegal("bA1 wP\\") is None  # the throw PILLBUG_MOVED refuses
    assert LINE.why_illegal("wZ9") == "'wZ9' is not a tile name (expected e.g. wQ, bS1, wA3)"


def test_every_illegal_move_of_random_positions_has_a_one_line_reason():
    # every tile to every cell on or beside the hive: the legal ones have no reason, the
    # others one line that is never the fallback of a throw with every rule holding
    seen = set()
    games = [*random_games("Base+MLP", 7, n_games=2, every=11), *random_games("Base", 8, n_games=1, every=11)]
    for game in games:
        if game.is_over:
            continue
        legal = set(game.legal_moves().tolist())
        placed = [p for p in range(28) if game.board[POS + p] >= 0]
        cells = {int(NEIGH[int(game.board[POS + p]), d]) for p in placed for d in range(6)}
        for piece in placed:
            for cell in cells | {int(game.board[POS + p]) for p in placed}:
                move = move_of(piece, cell)
                if move in legal:
                    continue
                reason = why_illegal(game.board, move)
                assert reason and "\n" not in reason and not reason.endswith("it cannot"), reason
                seen.add(reason.split(": ")[0])
    assert len(seen) > 10  # the sweep met many kinds of refusal
