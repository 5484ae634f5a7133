"""Whole recorded games (GameStrings, arena JSONL, Mzinga PGN, boardspace SGF), read for review, and
hive-play's record files.

:func:`read_games` / :func:`read_game` read a file's games, each replayed move by move
(:class:`GameRecord`); the format is found from the content, and what cannot be read is refused in
one line naming file and line (:class:`RecordError`), nothing guessed. Blank and ``#`` lines are
skipped in every record file (:func:`record_lines`). Each format's module says what of it is read.

See docs/players.md (``hive-analyse``).
"""

from .common import FORMATS_READ, GameRecord, RecordError, record_lines  # records, refusals, lines
from .reader import read_game, read_games  # any record: a file or text
from .record_file import at_ply, last_move_hexes, read_record, write_record  # hive-play's files

__all__ = [
    "FORMATS_READ",
    "GameRecord",
    "RecordError",
    "at_ply",
    "last_move_hexes",
    "read_game",
    "read_games",
    "read_record",
    "record_lines",
    "write_record",
]
