"""Constants with one home: the feature indices come from the encoder's ordered tables, and every
move is packed and unpacked by ``hive_env.board`` (a copy elsewhere is found here)."""

from __future__ import annotations

import io
import re
import tokenize

import pytest

from hive_env import encode
from hive_env.board import PASS, move_dest, move_of, move_piece
from hive_env.encode import GLOBAL_FEATURE_TABLE, NODE_FEATURE_TABLE, feature_offsets
from hive_env.grid import N_HEX
from hive_env.pieces import N_PIECES

from helpers import ROOT

TABLES = [(NODE_FEATURE_TABLE, "F_", encode.N_NODE_FEATURES),
          (GLOBAL_FEATURE_TABLE, "GF_", encode.N_GLOBAL_FEATURES)]


@pytest.mark.parametrize(("table", "prefix", "size"), TABLES)
def test_each_feature_constant_is_the_first_index_of_its_row(table, prefix, size):
    constants = {name.removeprefix(prefix): value for name, value in vars(encode).items()
                 if name.startswith(prefix)}
    assert constants == feature_offsets(table)[0]
    assert all(type(v) is int for v in constants.values())  # numba compiles them in as constants
    assert size == sum(width for _, width in table)


def test_a_row_added_renumbers_the_rows_after_it():
    offsets, total = feature_offsets((("A", 3), ("B", 1), ("C", 2)))
    assert (offsets, total) == ({"A": 0, "B": 3, "C": 4}, 6)
    offsets, total = feature_offsets((("A", 3), ("NEW", 2), ("B", 1), ("C", 2)))
    assert (offsets, total) == ({"A": 0, "NEW": 3, "B": 5, "C": 6}, 8)


def test_a_move_unpacks_to_what_packed_it():
    assert N_HEX & (N_HEX - 1) == 0  # the unpacking is a shift and a mask
    for piece in range(N_PIECES):
        for h in (0, 1, 31, 32, 517, N_HEX - 1):
            move = move_of(piece, h)
            assert (move_piece(move), move_dest(move)) == (piece, h)
    assert move_of(N_PIECES, 0) == PASS


PACKING = re.compile(r"\* N_HEX \+|\* 1024 \+|>> 10\b|& 1023\b|// N_HEX\b|% N_HEX\b")
"""Packing or unpacking a move by hand, in code with one space between tokens."""
PACKING_HOMES = {
    "hive_env/board.py": "move_of, move_piece and move_dest (and zobrist_key's index)",
}
"""Files that may: each must still do it (so an entry goes when its file stops)."""


def code_lines(source: str) -> list[tuple[int, str]]:
    """(line, its code tokens joined by one space) of ``source``, strings and comments left out."""
    lines: dict[int, list[str]] = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type not in (tokenize.STRING, tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
                            tokenize.DEDENT, tokenize.ENDMARKER):
            lines.setdefault(tok.start[0], []).append(tok.string)
    return [(n, " ".join(tokens)) for n, tokens in sorted(lines.items())]


def test_the_scan_sees_code_not_prose():
    source = 'x = p * N_HEX + h  # p * N_HEX + h\ny = "m >> 10"\nz = m>>10\nw = m & 1023\n'
    assert [n for n, line in code_lines(source) if PACKING.search(line)] == [1, 3, 4]


def test_moves_are_packed_only_by_their_helpers():
    packages = ["hive_env", "search", "players", "training", "arena", "web", "models", "scripts"]
    found: dict[str, list[int]] = {}
    for path in sorted(p for package in packages for p in (ROOT / package).rglob("*.py")):
        hits = [n for n, line in code_lines(path.read_text(encoding="utf-8")) if PACKING.search(line)]
        if hits:
            found[str(path.relative_to(ROOT))] = hits
    strays = {name: hits for name, hits in found.items() if name not in PACKING_HOMES}
    assert strays == {}, "pack and unpack moves with hive_env.board.move_of / move_piece / move_dest"
    assert set(found) == set(PACKING_HOMES), "a file of PACKING_HOMES no longer packs moves: drop its entry"
