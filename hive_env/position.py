"""Set up a position directly from tiles and axial coordinates (puzzles, tests).

Coordinates are axial ``(q, r)`` about ORIGIN in the pointy-top layout of ``grid``:
E is ``(q+1, r)``, SE is ``(q, r+1)``, NE is ``(q+1, r-1)``. Tiles listed on the same
cell stack up in the order given (first on the ground).
"""

from __future__ import annotations

import numpy as np

from .board import BELOW, HIST, LAST, LEVEL, PLY, POS, STATUS, TOP, compute_status, full_hash, new_board
from .errors import HiveError
from .grid import hex_of
from .pieces import parse_game_type
from .uhp import parse_piece


def board_from_tiles(
    game_type: str,
    tiles: list[tuple[str, int, int]],
    ply: int,
    last: str | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """A board holding ``tiles`` with ``ply`` plies played (``ply & 1`` = side to move).

    Args:
        game_type: e.g. ``"Base+MLP"``.
        tiles: ``(name, q, r)`` per tile, bottom of each stack first.
        ply: plies played so far; fixes the side to move and turn numbers.
        last: the tile moved on the previous ply (pillbug rule), if any.

    Returns:
        (board, hist) with the result recomputed; hist knows only the current hash.
    """
    expansions = parse_game_type(game_type)
    board, hist = new_board(expansions)
    for name, q, r in tiles:
        p = parse_piece(name, expansions)
        if board[POS + p] >= 0:
            raise HiveError(f"tile {name} listed twice")
        h = hex_of(q, r)
        below = int(board[TOP + h])
        board[POS + p] = h
        board[BELOW + p] = below
        board[LEVEL + p] = 0 if below < 0 else board[LEVEL + below] + 1
        board[TOP + h] = p
    board[PLY] = ply
    board[LAST] = -1 if last is None else parse_piece(last, expansions)
    hist[:] = 0
    hist[ply % HIST] = full_hash(board)
    board[STATUS] = compute_status(board, hist)
    return board, hist


def random_positions(n: int, game_type: str, seed: int, min_plies: int = 0, max_plies: int = 40) -> list:
    """``n`` positions still in progress, each after a random number of uniformly random plies
    in ``[min_plies, max_plies)`` (fewer when the next ply would end the game); seeded.

    Returns:
        list of :class:`hive_env.game.Game` (tests, benchmarks).
    """
    from .game import Game

    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        game = Game(game_type)
        for _ in range(int(rng.integers(min_plies, max_plies))):
            moves = game.legal_moves()
            child = game.copy()
            child.play(int(moves[rng.integers(len(moves))]))
            if child.is_over:
                break
            game = child
        out.append(game)
    return out
