"""What every record format shares: the record and its error, a source loaded, the one rule for a
record file's lines, and moves replayed with messages that name the place."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import HiveError
from ..game import Game

FORMATS_READ = "UHP GameString lines, hive-zero games.jsonl, Mzinga PGN, boardspace SGF"
"""The formats :func:`~hive_env.records.read_games` reads, as its refusals name them."""


class RecordError(HiveError):
    """A game record that cannot be read. The message is one line: ``file:line: what``, and for a
    move ``file:line: ply N 'move': why``."""


@dataclass(frozen=True)
class GameRecord:
    """One recorded game."""

    game: Game
    """The whole game, replayed move by move from the start."""
    format: str
    """``gamestring``, ``hive-zero-jsonl``, ``pgn`` or ``sgf``."""
    source: str
    """``path:line`` where the game starts (``<text>:line`` for text passed directly)."""
    meta: dict[str, str] = field(default_factory=dict)
    """What the record says besides the moves: White, Black, Result, Date, Event..."""


@dataclass
class Chunk:
    """The lines of one game: ``(line number, stripped text)``, from its first line ``line``."""

    line: int
    lines: list[tuple[int, str]]


@dataclass(frozen=True)
class Format:
    """One format: whether a record's first line is its own (``detect``), the record cut into its
    games (``split``: name, text), and one game built (``build``: name, a game's part)."""

    name: str
    detect: Callable[[str], bool]
    split: Callable[[str, str], list[Any]]
    build: Callable[[str, Any], GameRecord]


# ----- loading ---------------------------------------------------------------------------


def load_source(source: str | Path) -> tuple[str, str]:
    """(name for messages, text) of a file, or of text given directly (named ``<text>``)."""
    if not isinstance(source, Path) and not is_file(source):
        return "<text>", source
    path = Path(source)
    try:
        return str(path), path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise RecordError(f"{path}: no such file") from None
    except UnicodeDecodeError:
        raise RecordError(f"{path}: not a text file (not UTF-8); formats read: {FORMATS_READ}") from None
    except OSError as e:
        raise RecordError(f"{path}: cannot read it: {e.strerror or e}") from None


def is_file(text: str) -> bool:
    """Whether ``text`` names a file (never for text with a newline or too long to be a path)."""
    if "\n" in text or len(text) > 4096:
        return False
    try:
        return Path(text).is_file()
    except (OSError, ValueError):
        return False


def record_lines(text: str) -> list[tuple[int, str]]:
    """Numbered stripped lines, without blank lines and ``#`` comment lines: the one rule of every
    record file (lines end at ``\\n``; numbers count from 1)."""
    out = []
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip()
        if line and not line.startswith("#"):
            out.append((number, line))
    return out


def line_chunks(name: str, text: str) -> list[Chunk]:
    """One game a line (GameStrings, games.jsonl)."""
    return [Chunk(number, [(number, line)]) for number, line in record_lines(text)]


# ----- replaying -------------------------------------------------------------------------


def new_game(game_type: str, where: str) -> Game:
    """A new game of ``game_type``; an unknown one is refused naming the place."""
    try:
        return Game(game_type)
    except HiveError as e:
        raise RecordError(f"{where}: {e}") from None


def play_move(game: Game, move: str | int, where: str, shown: str) -> None:
    """Play one move; a refusal names the place, the ply and the move as the record writes it."""
    try:
        game.play(move)
    except HiveError as e:
        reason = str(e)
        for prefix in (f"{shown}: ", f"{move}: "):
            reason = reason.removeprefix(prefix)
        raise RecordError(f"{where}: ply {game.ply + 1} {shown!r}: {reason}") from None
