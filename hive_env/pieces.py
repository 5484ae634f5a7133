"""Tile identities: colours, bug kinds, piece ids and game types.

A *piece* is an int 0..27: ``colour * 14 + slot``. Slots per colour, in UHP order::

    0 Q   1 S1  2 S2  3 B1  4 B2  5 G1  6 G2  7 G3  8 A1  9 A2  10 A3  11 M  12 L  13 P

A *bug* is the kind 0..7 (Q S B G A M L P). A *game type* is a bit set over the
expansions (M = 1, L = 2, P = 4); ``Base`` is 0 and ``Base+MLP`` is 7.
"""

from __future__ import annotations

import numpy as np

from .errors import quoted

WHITE, BLACK = 0, 1
COLOUR_CHARS = "wb"
COLOUR_NAMES = ("White", "Black")

QUEEN, SPIDER, BEETLE, GRASSHOPPER, ANT, MOSQUITO, LADYBUG, PILLBUG = range(8)
N_BUGS = 8
BUG_CHARS = "QSBGAMLP"

PIECES_PER_COLOUR = 14
N_PIECES = 2 * PIECES_PER_COLOUR

# Per bug: first slot and number of copies per colour.
BUG_FIRST_SLOT = np.array([0, 1, 3, 5, 8, 11, 12, 13], dtype=np.int64)
BUG_COUNT = np.array([1, 2, 2, 3, 3, 1, 1, 1], dtype=np.int64)

PIECE_COLOUR = np.array([p // PIECES_PER_COLOUR for p in range(N_PIECES)], dtype=np.int64)
PIECE_BUG = np.empty(N_PIECES, dtype=np.int64)
PIECE_NUMBER = np.empty(N_PIECES, dtype=np.int64)  # 1-based copy number within its bug
for _c in range(2):
    for _b in range(N_BUGS):
        for _i in range(BUG_COUNT[_b]):
            _p = _c * PIECES_PER_COLOUR + BUG_FIRST_SLOT[_b] + _i
            PIECE_BUG[_p] = _b
            PIECE_NUMBER[_p] = _i + 1

EXP_MOSQUITO, EXP_LADYBUG, EXP_PILLBUG = 1, 2, 4
EXPANSION_OF_BUG = {MOSQUITO: EXP_MOSQUITO, LADYBUG: EXP_LADYBUG, PILLBUG: EXP_PILLBUG}
GAME_TYPES = ("Base", "Base+M", "Base+L", "Base+P", "Base+ML", "Base+MP", "Base+LP", "Base+MLP")


def piece_of(colour: int, bug: int, number: int = 1) -> int:
    """Piece id of a colour, bug and 1-based copy number."""
    return colour * PIECES_PER_COLOUR + int(BUG_FIRST_SLOT[bug]) + number - 1


def piece_name(piece: int) -> str:
    """UHP name of a piece, e.g. ``wS1`` or ``bQ``."""
    bug = int(PIECE_BUG[piece])
    name = COLOUR_CHARS[int(PIECE_COLOUR[piece])] + BUG_CHARS[bug]
    if BUG_COUNT[bug] > 1:
        name += str(int(PIECE_NUMBER[piece]))
    return name


def bug_in_game(bug: int, expansions: int) -> bool:
    """Whether a bug kind is part of the game type with these expansion bits."""
    return bug < MOSQUITO or bool(expansions & EXPANSION_OF_BUG[bug])


def game_type_name(expansions: int) -> str:
    """Canonical game type string, letters in the order M, L, P."""
    letters = "".join(ch for ch, bit in zip("MLP", (1, 2, 4), strict=True) if expansions & bit)
    return "Base+" + letters if letters else "Base"


def parse_game_type(text: str) -> int:
    """Expansion bits of a game type string (case-insensitive, letters in any order).

    Raises:
        ValueError: the string is not a game type.
    """
    t = text.strip()
    head, _, tail = t.partition("+")
    if head.lower() != "base" or ("+" in t and not tail):
        raise ValueError(f"unknown game type {quoted(text)} (expected Base or Base+[M][L][P])")
    bits = 0
    for ch in tail.upper():
        bit = {"M": 1, "L": 2, "P": 4}.get(ch)
        if bit is None or bits & bit:
            raise ValueError(f"unknown game type {quoted(text)} (expected Base or Base+[M][L][P])")
        bits |= bit
    return bits
