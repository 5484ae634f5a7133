"""UHP notation: tile names, MoveStrings and GameString headers (plain Python, edges only).

Parsing (:func:`parse_move`) is case-insensitive and accepts any reference tile that is in play;
printing (:func:`format_move`) is deterministic, naming the one canonical reference. A GameString
(``GameType;GameState;Turn;move;move...``) is cut into its parts by :func:`split_game_string` (its
fields by :func:`game_string_fields`), the one rule every reader of GameStrings follows.

See docs/rules.md (notation).
"""

from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np

from .board import BELOW, PASS, POS, TOP, move_dest, move_of, move_piece
from .errors import GameStringError, IllegalMoveError, NotationError, quoted
from .grid import NE, NEIGH, NW, ORIGIN, SE, SW, E, W
from .pieces import (
    BUG_CHARS,
    BUG_COUNT,
    BUG_LETTER_CLASS,
    COLOUR_CHARS,
    N_PIECES,
    bug_in_game,
    game_type_name,
    piece_name,
    piece_of,
)

STATES = ("NotStarted", "InProgress", "Draw", "WhiteWins", "BlackWins")
_PIECE_RE = re.compile(rf"^([{COLOUR_CHARS}])({BUG_LETTER_CLASS})(\d*)$", re.IGNORECASE)
_TURN_RE = re.compile(r"^(white|black)\[(\d{1,9})\]$", re.IGNORECASE)  # 9 digits: int() stays cheap
_PREFIX_DIR = {"/": SW, "-": W, "\\": NW}
_SUFFIX_DIR = {"/": NE, "-": E, "\\": SE}
_DIR_WORDS = {NE: "north-east", E: "east", SE: "south-east", SW: "south-west", W: "west", NW: "north-west"}


def parse_piece(text: str, expansions: int) -> int:
    """Piece id of a UHP tile name such as ``wS1`` (case-insensitive).

    Raises:
        NotationError: not a tile name, or a tile that is not in this game type.
    """
    m = _PIECE_RE.match(text.strip())
    if not m:
        raise NotationError(f"{quoted(text)} is not a tile name (expected e.g. wQ, bS1, wA3)")
    colour = COLOUR_CHARS.index(m.group(1).lower())
    bug = BUG_CHARS.index(m.group(2).upper())
    digits = m.group(3)
    count = int(BUG_COUNT[bug])
    name = m.group(1).lower() + m.group(2).upper()
    if count == 1:
        if digits:
            raise NotationError(f"{quoted(text)} is not a tile name ({name} has no number)")
        number = 1
    else:
        if not digits or len(digits) > 2 or not 1 <= int(digits) <= count:
            raise NotationError(f"{quoted(text)} is not a tile name ({name} needs a number 1..{count})")
        number = int(digits)
    if not bug_in_game(bug, expansions):
        raise NotationError(f"tile {name} is not part of game type {game_type_name(expansions)}")
    return piece_of(colour, bug, number)


def parse_move(text: str, board: np.ndarray, expansions: int) -> int:
    """Encoded move of a MoveString in the position ``board`` (legality not checked). Case is
    ignored, and any reference tile in play is accepted (covered tiles too: a reference names
    its stack's hex).

    Raises:
        NotationError: malformed MoveString.
        IllegalMoveError: well formed, but its reference tile is not in play.
    """
    t = text.strip()
    if t.lower() == "pass":
        return PASS
    parts = t.split()
    if not parts or len(parts) > 2:
        raise NotationError(f"{quoted(text)} is not a MoveString (expected 'pass', 'wS1' or 'bS1 wS1-')")
    piece = parse_piece(parts[0], expansions)
    board_empty = not (board[POS : POS + N_PIECES] >= 0).any()
    if len(parts) == 1:
        if not board_empty:
            raise NotationError(f"{quoted(text)} needs a reference tile: only the first tile of a game "
                                "has none")
        return move_of(piece, ORIGIN)
    ref = parts[1]
    direction = -1
    if ref[0] in _PREFIX_DIR:
        direction = _PREFIX_DIR[ref[0]]
        ref = ref[1:]
    elif ref[-1] in _SUFFIX_DIR:
        direction = _SUFFIX_DIR[ref[-1]]
        ref = ref[:-1]
    if ref and (ref[0] in _PREFIX_DIR or ref[-1] in _SUFFIX_DIR):
        raise NotationError(f"{quoted(text)} has more than one direction mark")
    ref_piece = parse_piece(ref, expansions)
    ref_hex = int(board[POS + ref_piece])
    if ref_hex < 0:
        raise IllegalMoveError(f"reference tile {piece_name(ref_piece)} is not in play")
    if direction < 0:
        return move_of(piece, ref_hex)
    dest = int(NEIGH[ref_hex, direction])
    occupant = int(board[TOP + dest])
    if occupant >= 0 and occupant != piece:
        # UHP (as Mzinga): a move onto a stack names the stack's top tile alone.
        raise IllegalMoveError(f"{quoted(t)}: the cell {_DIR_WORDS[direction]} of {piece_name(ref_piece)} "
                               f"holds "
                               f"{piece_name(occupant)}; a move onto it is written "
                               f"'{piece_name(piece)} {piece_name(occupant)}'")
    return move_of(piece, dest)


def format_move(move: int, board: np.ndarray) -> str:
    r"""MoveString of ``move`` in the position ``board`` (before the move is played).

    Deterministic: a move onto a stack names the stack's top tile (``wB1 bQ``); otherwise the
    reference is the first occupied neighbour of the destination, looking in the order NE, E, SE,
    SW, W, NW from the destination, named by the top tile of that stack (or, when that top is the
    moving tile itself, the tile under it); the direction mark then says where the destination
    lies from the reference: ``ref/`` NE, ``ref-`` E, ``ref\`` SE, ``/ref`` SW, ``-ref`` W,
    ``ef`` NW. The first tile of the game has no reference; a pass is ``pass``.
    """
    if move == PASS:
        return "pass"
    piece, dest = move_piece(move), move_dest(move)
    name = piece_name(piece)
    top = int(board[TOP + dest])
    if top >= 0:
        return f"{name} {piece_name(top)}"
    for k in range(6):
        ref = int(board[TOP + NEIGH[dest, k]])
        if ref == piece:
            ref = int(board[BELOW + piece])
        if ref < 0:
            continue
        rname = piece_name(ref)
        d = (k + 3) % 6  # direction from the reference to the destination
        ref_text = {NE: f"{rname}/", E: f"{rname}-", SE: f"{rname}\\",
                    SW: f"/{rname}", W: f"-{rname}", NW: f"\\{rname}"}[d]
        return f"{name} {ref_text}"
    return name  # empty board: the first tile of the game


def turn_string(ply: int) -> str:
    """``White[n]`` / ``Black[n]`` for the side to move after ``ply`` plies."""
    return f"{'White' if ply % 2 == 0 else 'Black'}[{ply // 2 + 1}]"


def parse_state(text: str) -> str:
    """Canonical GameState name (case-insensitive)."""
    for s in STATES:
        if s.lower() == text.strip().lower():
            return s
    raise NotationError(f"{quoted(text)} is not a GameState (expected one of {', '.join(STATES)})")


def parse_turn(text: str) -> int:
    """Ply count implied by a Turn string such as ``Black[3]``."""
    m = _TURN_RE.match(text.strip())
    if not m or int(m.group(2)) < 1:
        raise NotationError(f"{quoted(text)} is not a Turn (expected White[n] or Black[n], n >= 1)")
    return (int(m.group(2)) - 1) * 2 + (m.group(1).lower() == "black")


class GameStringParts(NamedTuple):
    """A GameString cut at its ``;``, each part stripped and none parsed. A bare game type
    (``Base+MLP``: a game with no moves) has no state, turn or moves."""

    game_type: str
    state: str | None
    turn: str | None
    moves: tuple[str, ...]


def game_string_fields(text: str) -> list[str]:
    """The one rule that cuts a GameString: its ``;``-separated fields, each stripped of spaces,
    without the empty fields that trailing ``;`` leave after the Turn (``...;White[2];wS1;`` has
    one move). Never refuses: for counting moves (``len - 3``) or naming the game type (the first)
    of text that may not be a GameString."""
    fields = [f.strip() for f in text.strip().split(";")]
    while len(fields) > 3 and fields[-1] == "":
        fields.pop()
    return fields


def split_game_string(text: str) -> GameStringParts:
    """The parts of a GameString or a bare game type, cut by :func:`game_string_fields`.

    Raises:
        GameStringError: two fields (``Base;InProgress``), which is neither.
    """
    fields = game_string_fields(text)
    if len(fields) == 1:
        return GameStringParts(fields[0], None, None, ())
    if len(fields) == 2:
        raise GameStringError(
            f"{quoted(text)} is not a GameString (expected GameType;GameState;Turn[;Move]...)"
        )
    return GameStringParts(fields[0], fields[1], fields[2], tuple(fields[3:]))
