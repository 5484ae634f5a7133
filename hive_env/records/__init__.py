"""Whole recorded games (GameStrings, arena JSONL, Mzinga PGN, boardspace SGF), read for review, and
hive-play's record files.

:func:`read_games` reads every game of a file, or of record text passed directly;
:func:`read_game` reads one of them (for ``hive-analyse GAME``). Each :class:`GameRecord` holds
the game replayed from the start with :meth:`Game.play`, so every move is checked by the rules.
The format is found from the content; the file name plays no part. What cannot be read is
refused with a :class:`RecordError`: one line naming the file and line, and for a move the ply
and the move. Nothing is guessed: no game comes back cut short or changed. In every record file,
blank lines and ``#`` lines are skipped (:func:`record_lines`, the one rule).

- ``common``: :class:`GameRecord`, :class:`RecordError`, a source loaded, the line rule, replaying
- ``reader``: :func:`read_games` and :func:`read_game`: the format found, the games cut apart
- ``gamestring``: UHP GameStrings, one a line (``GameRecord.format`` ``gamestring``)
- ``jsonl``: the arena's ``games.jsonl`` (``hive-zero-jsonl``), read for review
- ``arena_record``: :class:`~hive_env.records.arena_record.ArenaRecord`, one line of
  ``games.jsonl``: its one writer and one reader (the arena writes and reads it through them)
- ``pgn``: Mzinga PGN (``pgn``)
- ``sgf``: boardspace.net Hive SGF (``sgf``)
- ``writers``: a game written as a GameString, Mzinga PGN or boardspace SGF that these readers read
  back (:func:`~hive_env.records.writers.as_record`; hive-web's Save as)
- ``record_file``: hive-play's record files (:func:`read_record`, :func:`write_record`) and a
  game at a ply (:func:`at_ply`, :func:`last_move_hexes`)

Each format's module says exactly what of it is read.
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
