"""Mzinga PGN (format ``pgn``), as MzingaViewer saves it: ``[Name "value"]`` tag lines, then one UHP
MoveString a line, numbered by ply (``12. wA1 bQ-``, ``13. pass``), ``{...}`` comments anywhere, and
an optional result line at the end (``WhiteWins``, ``Draw``, ``1-0``...). Every tag goes to
``meta``; a result line goes there as Result when no tag gives one. The game type is the GameType
tag; without one the game is Base, as in Mzinga (a tile of an expansion then stops it at that ply);
an unknown GameType is refused, and so is a move number that is not its ply. A file may hold several
games, each starting at its tags."""

from __future__ import annotations

import re

from .. import uhp
from ..errors import HiveError
from .common import Chunk, Format, GameRecord, RecordError, new_game, play_move, record_lines

_TAG = re.compile(r'^\[\s*([A-Za-z0-9_]+)\s+"((?:[^"\\]|\\.)*)"\s*\]$')
_MOVE_LINE = re.compile(r"^(\d+)\s*\.+\s*(.*)$")
_PGN_RESULTS = {"1-0": "WhiteWins", "0-1": "BlackWins", "1/2-1/2": "Draw", "*": "InProgress"}


def detect(first: str) -> bool:
    return first.startswith("[") or bool(_MOVE_LINE.match(first))


def split(name: str, text: str) -> list[Chunk]:
    """Games start at a tag line after moves, or at a tag already seen in the current game."""
    chunks: list[Chunk] = []
    keys: set[str] = set()
    moved = False
    for number, line in record_lines(_drop_comments(name, text)):
        if line.startswith("%"):  # a PGN escape line
            continue
        key = _tag_key(line)
        if not chunks or (key is not None and (moved or key in keys)):
            chunks.append(Chunk(number, []))
            keys, moved = set(), False
        chunks[-1].lines.append((number, line))
        if key is None:
            moved = True
        else:
            keys.add(key)
    return chunks


def _tag_key(line: str) -> str | None:
    if not line.startswith("["):
        return None
    m = _TAG.match(line)
    return m.group(1) if m else line


def _drop_comments(name: str, text: str) -> str:
    """The text without ``{...}`` comments; each comment leaves its newlines, so lines keep their numbers."""
    out = re.sub(r"\{[^{}]*\}", lambda m: "\n" * m.group(0).count("\n"), text)
    stray = re.search(r"[{}]", out)
    if stray:
        line = out[:stray.start()].count("\n") + 1
        raise RecordError(f"{name}:{line}: a PGN comment brace {stray.group(0)!r} without its pair")
    return out


def build(name: str, chunk: Chunk) -> GameRecord:
    meta: dict[str, str] = {}
    moves: list[tuple[int, str]] = []
    result = ""
    for number, line in chunk.lines:
        where = f"{name}:{number}"
        if line.startswith("["):
            m = _TAG.match(line)
            if not m:
                raise RecordError(f'{where}: not a PGN tag [Name "value"]: {line[:40]!r}')
            meta[m.group(1)] = re.sub(r"\\(.)", r"\1", m.group(2))
        elif result:
            raise RecordError(f"{where}: {line[:40]!r} after the result line {result!r}")
        elif _pgn_result(line):
            result = _pgn_result(line)
        else:
            moves.append((number, _pgn_move(line, len(moves) + 1, where)))
    if result:
        meta.setdefault("Result", result)
    game = new_game(meta.get("GameType", "Base"), f"{name}:{chunk.line}: GameType")
    for number, move in moves:
        play_move(game, move, f"{name}:{number}", move)
    return GameRecord(game, "pgn", f"{name}:{chunk.line}", meta)


def _pgn_result(line: str) -> str:
    """The game result a result line gives (a UHP GameState or 1-0, 0-1, 1/2-1/2, *), or ''."""
    if line in _PGN_RESULTS:
        return _PGN_RESULTS[line]
    try:
        return uhp.parse_state(line)
    except HiveError:
        return ""


def _pgn_move(line: str, ply: int, where: str) -> str:
    """The MoveString of a move line (``12. wA1 bQ-``; the number must be the ply)."""
    m = _MOVE_LINE.match(line)
    if not m:
        return line
    if int(m.group(1)) != ply:
        raise RecordError(f"{where}: move number {m.group(1)}, but this is ply {ply}")
    if not m.group(2).strip():
        raise RecordError(f"{where}: move number {m.group(1)} without a move")
    return m.group(2).strip()


FORMAT = Format("pgn", detect, split, build)
