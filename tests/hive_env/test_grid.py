"""The wrapping 32x32 grid is never exhausted: a straight line of all 28 tiles works."""

from __future__ import annotations

import numpy as np
import pytest

from hive_env import PASS, Game
from hive_env.grid import DIR_DQ, DIR_DR, NEIGH, hex_of, unwrap
from hive_env.pinned import articulation_hexes
from hive_env.position import board_from_tiles

KINDS = ("Q", "S1", "S2", "B1", "B2", "G1", "G2", "G3", "A1", "A2", "A3", "M", "L", "P")
NAMES = [c + t for c in "wb" for t in KINDS if c + t != "wA3"]  # 27 tiles; wA3 is the ant


@pytest.mark.parametrize("direction", [0, 1, 2])
@pytest.mark.parametrize("start", [(0, 0), (20, 13), (-9, 30)])
def test_line_of_all_tiles_along_each_axis(direction, start):
    """27 tiles in a line plus an ant at one end: the ant walks the whole rim (2*27+4-1 cells)."""
    dq, dr = int(DIR_DQ[direction]), int(DIR_DR[direction])
    q0, r0 = start
    tiles = [(name, q0 + i * dq, r0 + i * dr) for i, name in enumerate(NAMES)]
    assert len(tiles) == 27
    tiles.append(("wA3", q0 - dq, r0 - dr))
    board, hist = board_from_tiles("Base+MLP", tiles, ply=30)
    game = Game.from_board(board, hist)
    ant = [m for m in game.legal_moves() if m != PASS and m >> 10 == 10]
    assert len(ant) == 2 * 27 + 4 - 1
    pinned = np.zeros(1024, dtype=np.bool_)
    articulation_hexes(game.board, pinned)
    line = [hex_of(q, r) for _, q, r in tiles[:-1]]
    assert pinned[line[:-1]].all() and not pinned[line[-1]]  # every tile but the far end


def test_neighbour_table_is_symmetric_and_unwrap_is_exact():
    for h in range(1024):
        for d in range(6):
            assert NEIGH[NEIGH[h, d], (d + 3) % 6] == h
    hexes = [hex_of(30 + i, 5) for i in range(28)]  # crosses the q wrap
    coords = unwrap(hexes)
    assert [coords[h] for h in hexes] == [(i, 0) for i in range(28)]
