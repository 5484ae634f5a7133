"""Tile identities: colours, bug kinds, piece ids and game types.

A *piece* is an int 0..27: ``colour * 14 + slot``. Slots per colour, in UHP order::

    0 Q   1 S1  2 S2  3 B1  4 B2  5 G1  6 G2  7 G3  8 A1  9 A2  10 A3  11 M  12 L  13 P

A *bug* is the kind 0..7 (Q S B G A M L P). A *game type* is a bit set over the
expansions (M = 1, L = 2, P = 4); ``Base`` is 0 and ``Base+MLP`` is 7.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import quoted

WHITE, BLACK = 0, 1
COLOUR_CHARS = "wb"
COLOUR_NAMES = ("White", "Black")

QUEEN, SPIDER, BEETLE, GRASSHOPPER, ANT, MOSQUITO, LADYBUG, PILLBUG = range(8)
EXP_MOSQUITO, EXP_LADYBUG, EXP_PILLBUG = 1, 2, 4


@dataclass(frozen=True)
class Bug:
    """Every fact about one bug kind that is not movement code (movement: ``movegen``)."""

    letter: str
    """UHP letter (upper case), as in ``wQ`` or ``bS1``."""
    name: str
    """Name in messages and on the page: the Queen is capitalised, as players write it."""
    count: int
    """Tiles of this kind per colour."""
    expansion: int
    """Expansion bit that brings the bug into a game (0: in every game)."""
    rule: str
    """The bug's movement rule in one clause (``explain`` and the page quote it)."""


BUGS = (
    Bug("Q", "Queen", 1, 0, "the Queen slides one cell per move"),
    Bug("S", "spider", 2, 0, "a spider slides exactly three cells around the hive, never back over a cell"),
    Bug("B", "beetle", 2, 0, "a beetle moves one cell per move, onto the hive too"),
    Bug("G", "grasshopper", 3, 0,
        "a grasshopper jumps in a straight line over at least one tile to the first empty cell"),
    Bug("A", "ant", 3, 0, "an ant slides any number of cells around the hive"),
    Bug("M", "mosquito", 1, EXP_MOSQUITO, "a mosquito moves as a bug it touches"),
    Bug("L", "ladybug", 1, EXP_LADYBUG,
        "a ladybug moves exactly three cells: two over the top of the hive, then one down"),
    Bug("P", "pillbug", 1, EXP_PILLBUG, "a pillbug slides one cell per move"),
)
"""The bug table, in bug id order (``QUEEN`` .. ``PILLBUG``): every per-bug constant below, the
notation's letters and regexes, the expansions and the messages derive from it. Adding a bug is
a row here and its movement in ``movegen``; ``tests/hive_env/test_pieces.py`` names what else
is missing."""
N_BUGS = len(BUGS)
BUG_CHARS = "".join(bug.letter for bug in BUGS)
BUG_LETTER_CLASS = "[" + BUG_CHARS + BUG_CHARS.lower() + "]"
"""A regex character class matching one bug letter in either case (for the notation readers)."""
BUG_NAMES = tuple(bug.name for bug in BUGS)
BUG_RULES = tuple(bug.rule for bug in BUGS)

# Per bug: first slot and number of copies per colour.
BUG_COUNT = np.array([bug.count for bug in BUGS], dtype=np.int64)
BUG_FIRST_SLOT = np.concatenate(([0], np.cumsum(BUG_COUNT)[:-1])).astype(np.int64)
PIECES_PER_COLOUR = int(BUG_COUNT.sum())
N_PIECES = 2 * PIECES_PER_COLOUR

PIECE_COLOUR = np.array([p // PIECES_PER_COLOUR for p in range(N_PIECES)], dtype=np.int64)
PIECE_BUG = np.empty(N_PIECES, dtype=np.int64)
PIECE_NUMBER = np.empty(N_PIECES, dtype=np.int64)  # 1-based copy number within its bug
for _c in range(2):
    for _b in range(N_BUGS):
        for _i in range(BUG_COUNT[_b]):
            _p = _c * PIECES_PER_COLOUR + BUG_FIRST_SLOT[_b] + _i
            PIECE_BUG[_p] = _b
            PIECE_NUMBER[_p] = _i + 1

EXPANSION_OF_BUG = {b: bug.expansion for b, bug in enumerate(BUGS) if bug.expansion}
_EXPANSION_BITS = tuple(sorted(EXPANSION_OF_BUG.items(), key=lambda item: item[1]))
_BIT_OF_LETTER = {BUGS[b].letter: bit for b, bit in _EXPANSION_BITS}
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
    bit = BUGS[bug].expansion
    return not bit or bool(expansions & bit)


def game_type_name(expansions: int) -> str:
    """Canonical game type string, letters in the order M, L, P."""
    letters = "".join(BUGS[b].letter for b, bit in _EXPANSION_BITS if expansions & bit)
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
        bit = _BIT_OF_LETTER.get(ch)
        if bit is None or bits & bit:
            raise ValueError(f"unknown game type {quoted(text)} (expected Base or Base+[M][L][P])")
        bits |= bit
    return bits
