"""A position as the JSON the page draws: tiles, reserves, legal moves, last move, result.

Cells are plane axial coordinates ``[q, r]`` (pointy-top, ``hive_env.grid``). The engine's
grid wraps (32x32), so the plane coordinates are unwrapped from the occupied cell nearest the
origin, which keeps them steady from one position to the next while the hive stays within 16
cells of where it started (it always fits: a hive spans at most 29 cells). Every cell of one
answer (tiles, legal destinations, last move, analysis) comes from one :func:`Frame`, so they
agree with each other.
"""

from __future__ import annotations

import numpy as np

from hive_env import BLACK_WINS, DRAW, PASS, WHITE_WINS, Game
from hive_env.board import LEVEL, POS, is_surrounded, move_dest, move_piece
from hive_env.display.text import stack_at
from hive_env.grid import ORIGIN, qr_of, unwrap
from hive_env.outcome import is_real_draw
from hive_env.pieces import (
    BUG_CHARS,
    COLOUR_NAMES,
    N_PIECES,
    PIECE_BUG,
    PIECE_COLOUR,
    PIECE_NUMBER,
    PIECES_PER_COLOUR,
    bug_in_game,
    piece_name,
)

COLOURS = ("white", "black")


def _signed(h: int) -> tuple[int, int]:
    """Wrapped coordinates of a hex as offsets -16..15 from the origin."""
    q, r = qr_of(h)
    oq, orr = qr_of(ORIGIN)
    return (q - oq + 16) % 32 - 16, (r - orr + 16) % 32 - 16


class Frame:
    """Plane coordinates for the cells of one position.

    Args:
        board: the position; its occupied cells fix the frame.
        extra: more hexes (legal destinations, the last move's origin), each next to the hive.
    """

    def __init__(self, board: np.ndarray, extra: list[int] = ()):
        occupied = sorted({int(board[POS + p]) for p in range(N_PIECES) if board[POS + p] >= 0})
        anchor = min(occupied, key=lambda h: (sum(map(abs, _signed(h))), h)) if occupied else ORIGIN
        hexes = [anchor, *occupied, *(int(h) for h in extra)]
        base = _signed(anchor)
        plane = unwrap(list(dict.fromkeys(hexes)))
        self._coords = {h: (q + base[0], r + base[1]) for h, (q, r) in plane.items()}

    def cell(self, h: int) -> list[int]:
        q, r = self._coords[int(h)]
        return [q, r]


def _tile(piece: int) -> dict:
    return {"piece": piece_name(piece), "colour": COLOURS[int(PIECE_COLOUR[piece])],
            "bug": BUG_CHARS[int(PIECE_BUG[piece])], "number": int(PIECE_NUMBER[piece])}


def move_cells(game: Game, move: int, frame: Frame) -> dict:
    """Piece, origin cell (None for a placement) and destination cell of an encoded move."""
    if move == PASS:
        return {"piece": None, "from": None, "to": None, "pass": True}
    piece, dest = move_piece(move), move_dest(move)
    where = int(game.board[POS + piece])
    return {"piece": piece_name(piece), "from": frame.cell(where) if where >= 0 else None,
            "to": frame.cell(dest), "pass": False}


def result_of(game: Game) -> dict | None:
    """Who won and how, or None while the game goes on."""
    status = game.status
    if status in (WHITE_WINS, BLACK_WINS):
        winner = 0 if status == WHITE_WINS else 1
        return {"state": game.state, "winner": COLOURS[winner], "reason": "surround",
                "text": f"{COLOUR_NAMES[winner]} wins: the {COLOUR_NAMES[1 - winner]} Queen is surrounded"}
    if status != DRAW:
        return None
    queens = [int(game.board[POS + c * PIECES_PER_COLOUR]) for c in (0, 1)]
    if all(h >= 0 and is_surrounded(game.board, h) for h in queens):
        reason, text = "double surround", "Draw: both Queens are surrounded"
    elif is_real_draw(game.board, game.hist):
        reason, text = "repetition", "Draw by threefold repetition"
    else:
        reason, text = "ply cap", f"Draw: the ply cap ({game.ply} plies) is reached"
    return {"state": game.state, "winner": None, "reason": reason, "text": text}


def forfeit_result(flagged: int) -> dict:
    """The result of a game lost on time by ``flagged`` (0 White, 1 Black): the board's state
    stays InProgress (a GameString cannot say it), the game is over all the same."""
    winner = 1 - flagged
    return {"state": "WhiteWins" if winner == 0 else "BlackWins", "winner": COLOURS[winner],
            "reason": "time forfeit", "flagged": COLOURS[flagged],
            "text": f"{COLOUR_NAMES[flagged]} loses on time: {COLOUR_NAMES[winner]} wins"}


def position_at(game: Game, ply: int) -> Game:
    """A copy of ``game`` taken back to ``ply`` plies (0 <= ply <= game.ply)."""
    view = game.copy()
    view.undo(game.ply - ply)
    return view


def describe(game: Game, live: bool = True) -> dict:
    """Everything the page draws for the current position of ``game``.

    Args:
        game: the position (a copy taken back in time when browsing).
        live: include the legal moves (a browsed position is read-only).
    """
    board = game.board
    legal = [int(m) for m in game.legal_moves()] if live else []
    extra = [move_dest(m) for m in legal if m != PASS]
    last = game.moves[-1] if game.moves else None
    before = None
    if last is not None:
        before = game.copy()
        before.undo(1)
        if last != PASS and before.board[POS + move_piece(last)] >= 0:
            extra.append(int(before.board[POS + move_piece(last)]))
    frame = Frame(board, extra)
    tiles = []
    for h in sorted({int(board[POS + p]) for p in range(N_PIECES) if board[POS + p] >= 0}):
        stack = stack_at(board, h)
        for piece in stack:
            tiles.append({**_tile(piece), "cell": frame.cell(h), "level": int(board[LEVEL + piece]),
                          "height": len(stack), "top": piece == stack[-1]})
    reserves = {c: [] for c in COLOURS}
    for piece in range(N_PIECES):
        if board[POS + piece] < 0 and bug_in_game(int(PIECE_BUG[piece]), game.expansions):
            reserves[COLOURS[int(PIECE_COLOUR[piece])]].append(_tile(piece))
    moves = []
    for m in legal:
        moves.append({"move": game.move_string(m), **move_cells(game, m, frame)})
    last_move = None
    if before is not None:
        last_move = {"move": before.move_string(last), **move_cells(before, last, frame)}
    return {
        "game_type": game.game_type,
        "ply": game.ply,
        "move_number": game.ply // 2 + 1,
        "turn": game.turn_string,
        "to_move": COLOURS[game.side_to_move],
        "state": game.state,
        "result": result_of(game),
        "tiles": tiles,
        "reserves": reserves,
        "last_move": last_move,
        "legal_moves": moves,
    }
