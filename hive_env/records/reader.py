"""Reading a record: the source loaded, its format found from its first line that is not blank or
``#``, its games cut apart, and the ones asked for replayed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from . import gamestring, jsonl, pgn, sgf
from .common import FORMATS_READ, Format, GameRecord, RecordError, load_source, record_lines

FORMATS: tuple[Format, ...] = (sgf.FORMAT, jsonl.FORMAT, pgn.FORMAT, gamestring.FORMAT)
"""The formats in the order their ``detect`` is asked: the first that claims a record reads it."""


def read_games(source: str | Path) -> list[GameRecord]:
    """Every game of the file ``source`` names, or of ``source`` itself when it is record text.

    Raises:
        RecordError: no such file, not a record, or a game that cannot be read.
    """
    name, text = load_source(source)
    fmt, chunks = _split(name, text)
    return [fmt.build(name, chunk) for chunk in chunks]


def read_game(source: str | Path, index: int = 0, first: int = 0) -> GameRecord:
    """The ``index``-th game (from 0) of a file or of record text; the others are not replayed.
    ``first``: the number messages give the first game (1 for a command line counting from 1).

    Raises:
        RecordError: as :func:`read_games`, or there is no game ``index`` (it says how many there are).
    """
    name, text = load_source(source)
    fmt, chunks = _split(name, text)
    n = len(chunks)
    if not 0 <= index < n:
        games = f"{n} game{'s' if n != 1 else ''}"
        raise RecordError(f"{name}: there is no game {index + first}: it holds {games} "
                          f"({first}..{n - 1 + first})")
    return fmt.build(name, chunks[index])


def _split(name: str, text: str) -> tuple[Format, list[Any]]:
    """The format of the text (from its first line that is not blank or ``#``) and its games."""
    lines = record_lines(text)
    if not lines:
        raise RecordError(f"{name}: empty: it holds no game record")
    number, first = lines[0]
    fmt = next((f for f in FORMATS if f.detect(first)), None)
    if fmt is None:
        what = "neither a file nor a game record" if name == "<text>" and "\n" not in text else \
            f"not a game record ({first[:30]!r})"
        where = name if name == "<text>" and "\n" not in text else f"{name}:{number}"
        raise RecordError(f"{where}: {what}; formats read: {FORMATS_READ}")
    return fmt, fmt.split(name, text)
