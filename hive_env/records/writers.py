"""A game written as a record the readers of this package read back: a UHP GameString
(:func:`write_gamestring`), Mzinga PGN (:func:`write_pgn`) and boardspace SGF (:func:`write_sgf`).

Each writer takes the game and ``meta``, the record's other facts by the names
:class:`~hive_env.records.GameRecord` gives them (White, Black, Date, Event, Site, Round, Result,
and any other name, such as ``Hints``); Result defaults to the game's state when it is over. A
game from a set-up position has no record at all (:class:`~hive_env.errors.HiveError`).

See docs/web.md (Save as).
"""

from __future__ import annotations

import re

from ..board import PASS, move_dest, move_piece
from ..game import Game
from ..grid import qr_of
from ..pieces import PIECE_COLOUR, game_type_name
from .common import RecordError

FORMATS_WRITTEN = ("gamestring", "pgn", "sgf")
"""The formats the writers write (:func:`as_record` takes these names)."""

_SGF_PROPS = {"Date": "DT", "Event": "EV", "Site": "PC", "Round": "RO", "GameName": "GN", "Result": "RE"}
_PGN_FIRST = ("GameType", "Date", "Event", "Site", "Round", "White", "Black", "Result")
_COLUMNS = 26


def write_gamestring(game: Game, meta: dict[str, str] | None = None) -> str:
    """The UHP GameString of the game (``meta`` is not written: a GameString has no place for it)."""
    return game.game_string()


def _meta(game: Game, meta: dict[str, str] | None) -> dict[str, str]:
    out = {k: str(v) for k, v in (meta or {}).items() if v is not None and str(v) != ""}
    if game.is_over:
        out.setdefault("Result", game.state)
    return out


def _replay(game: Game) -> Game:
    """A new game of the same type, for replaying; refuses a game from a set-up position."""
    game.game_string()  # raises HiveError for a set-up position
    return Game(game.game_type)


# ----- PGN ------------------------------------------------------------------------------------


def _pgn_value(text: str) -> str:
    text = " ".join(text.split())  # one line
    text = text.replace("{", "(").replace("}", ")")  # a brace would open a PGN comment
    return text.replace("\\", "\\\\").replace('"', '\\"')


def write_pgn(game: Game, meta: dict[str, str] | None = None) -> str:
    r"""Mzinga PGN of the game, as MzingaViewer saves it; ends with a newline: ``[Name "value"]``
    tags (GameType first; every meta item is a tag, ``"`` and ``\`` escaped, braces and line
    breaks replaced, since a tag is one line and ``{`` opens a comment), a blank line, then one
    MoveString a line numbered by ply (``3. wA1 bS1-``); a finished game ends with its result
    line (``WhiteWins``)."""
    replay = _replay(game)
    tags = {**_meta(game, meta), "GameType": game.game_type}
    names = [k for k in _PGN_FIRST if k in tags] + [k for k in tags if k not in _PGN_FIRST]
    lines = [f'[{name} "{_pgn_value(tags[name])}"]' for name in names if re.fullmatch(r"[A-Za-z0-9_]+", name)]
    lines.append("")
    for ply, move in enumerate(game.moves, start=1):
        lines.append(f"{ply}. {replay.move_string(move)}")
        replay.play(move)
    if game.is_over:
        lines.append(game.state)
    return "\n".join(lines) + "\n"


# ----- SGF ------------------------------------------------------------------------------------


def _sgf_value(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def _window(values: set[int], size: int, where: str) -> int:
    """The start ``s`` of a cyclic window (mod 32) of ``size`` residues holding every value: the
    value just after the widest gap between used residues."""
    if not values:
        return 0
    ordered = sorted(values)
    best_gap, start = -1, ordered[0]
    for i, v in enumerate(ordered):
        nxt = ordered[(i + 1) % len(ordered)] + (32 if i + 1 == len(ordered) else 0)
        if nxt - v > best_gap:
            best_gap, start = nxt - v, ordered[(i + 1) % len(ordered)]
    if 32 - best_gap + 1 > size:
        raise RecordError(f"the game spans {32 - best_gap + 1} {where}; a boardspace SGF has at most {size}")
    return start


def _sgf_variant(game: Game) -> str:
    name = game_type_name(game.expansions)
    return "hive" if name == "Base" else "hive-" + name.removeprefix("Base+").lower()


def write_sgf(game: Game, meta: dict[str, str] | None = None) -> str:
    """boardspace SGF of the game, in the dialect that :mod:`hive_env.records.sgf` reads; ends with
    a newline. One game tree with ``GM[27]``, ``SU`` the variant (``hive``, ``hive-m``,
    ``hive-lp``...), ``P0[id "White"]`` and ``P1[id "Black"]`` (P0 plays White), DT, EV, PC, RO,
    GN and RE from meta, the other meta items in one ``C[Name: value]`` comment, then each turn as
    the mover's ``move W|B TILE COL ROW REF`` (``pmove`` for a tile of the other side, thrown by a
    pillbug) or ``pass``, then ``done``. Cells are boardspace's letters and numbers: the next
    letter is east, the next number north-west; the first tile is put so that every cell of the
    game has a letter A..Z and a row from 1 (a game whose tiles cross more than 26 columns over
    its life has no boardspace SGF). REF is the MoveString's reference (``wA1-``, ``/bQ``, ``.``
    for the first tile).

    Raises:
        RecordError: the game's tiles cross more than 26 columns over its life.
    """
    replay = _replay(game)
    turns = []  # (mover, move string, piece colour or None, dest (q, r) or None)
    for move in game.moves:
        mover = replay.side_to_move
        if move == PASS:
            turns.append((mover, "pass", None, None))
        else:
            colour, dest = int(PIECE_COLOUR[move_piece(move)]), qr_of(int(move_dest(move)))
            turns.append((mover, replay.move_string(move), colour, dest))
        replay.play(move)
    cells = [t[3] for t in turns if t[3] is not None]
    q0, r0 = cells[0] if cells else (0, 0)
    s_col = _window({(q - q0) % 32 for q, _ in cells}, _COLUMNS, "columns")
    s_row = _window({(r0 - r) % 32 for _, r in cells}, 32, "rows")

    def cell(q: int, r: int) -> str:
        return f"{chr(ord('A') + (q - q0 - s_col) % 32)} {1 + (r0 - r - s_row) % 32}"

    info = _meta(game, meta)
    head = ["GM[27]", "VV[1]", f"SU[{_sgf_value(_sgf_variant(game))}]"]
    for p, colour in ((0, "White"), (1, "Black")):
        name = " ".join(info.get(colour, colour).split()).replace('"', "'")
        head.append(f'P{p}[id "{_sgf_value(name)}"]')
    head += [f"{prop}[{_sgf_value(info[key])}]" for key, prop in _SGF_PROPS.items() if key in info]
    rest = [f"{k}: {v}" for k, v in info.items() if k not in _SGF_PROPS and k not in ("White", "Black")]
    if rest:
        head.append(f"C[{_sgf_value(chr(10).join(rest))}]")
    lines = ["(;", "".join(head), "; P0[0 start P0]"]
    n = 1
    for mover, text, colour, dest in turns:
        if dest is None:
            action = "pass"
        else:
            tile, _, ref = text.partition(" ")
            verb = "move" if colour == mover else "pmove"
            action = f"{verb} {'WB'[colour]} {tile} {cell(*dest)} {ref or '.'}"
        lines.append(f"; P{mover}[{n} {_sgf_value(action)}]")
        lines.append(f"; P{mover}[{n + 1} done]")
        n += 2
    lines.append(")")
    return "\n".join(lines) + "\n"


def as_record(game: Game, fmt: str, meta: dict[str, str] | None = None) -> str:
    """The game as ``fmt`` (``gamestring``, ``pgn`` or ``sgf``; :data:`FORMATS_WRITTEN`).

    Raises:
        ValueError: another format.
        RecordError: the game cannot be written in it (:func:`write_sgf`).
    """
    writers = {"gamestring": write_gamestring, "pgn": write_pgn, "sgf": write_sgf}
    if fmt not in writers:
        raise ValueError(f"unknown record format {fmt!r} (one of {', '.join(FORMATS_WRITTEN)})")
    return writers[fmt](game, meta)


__all__ = ["FORMATS_WRITTEN", "as_record", "write_gamestring", "write_pgn", "write_sgf"]
