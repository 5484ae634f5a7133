"""hive-zero's arena ``games.jsonl`` (format ``hive-zero-jsonl``): one JSON object a line. Its
``game_string`` is read as a GameString line is (:mod:`.gamestring`); ``white``, ``black``,
``result``, ``termination`` and ``id`` go to ``meta`` (as White, Black, Result, Termination, Id). A
``plies`` that disagrees with the moves is refused.

A line needs only its ``game_string`` (one written by hand, or by an older arena, is read too), so
this reader takes the fields it finds; their names are :class:`.arena_record.ArenaRecord`'s (a
test holds every key read here to the record's fields)."""

from __future__ import annotations

import json

from .common import Chunk, Format, GameRecord, RecordError, line_chunks
from .gamestring import replay_gamestring

_JSONL_META = {"white": "White", "black": "Black", "result": "Result", "termination": "Termination",
               "id": "Id"}


def detect(first: str) -> bool:
    return first.startswith("{")


def build(name: str, chunk: Chunk) -> GameRecord:
    where = f"{name}:{chunk.line}"
    try:
        record = json.loads(chunk.lines[0][1])
    except json.JSONDecodeError as e:
        raise RecordError(f"{where}: not a JSON object ({e.msg}, column {e.colno})") from None
    if not isinstance(record, dict) or not isinstance(record.get("game_string"), str):
        raise RecordError(f'{where}: a games.jsonl line is an object with a "game_string" text')
    game = replay_gamestring(record["game_string"], where)
    plies = record.get("plies")
    if isinstance(plies, int) and plies != game.ply:
        raise RecordError(f"{where}: plies {plies} disagrees with the game_string, which has {game.ply}")
    meta = {key: str(record[k]) for k, key in _JSONL_META.items() if record.get(k) is not None}
    return GameRecord(game, "hive-zero-jsonl", where, meta)


FORMAT = Format("hive-zero-jsonl", detect, line_chunks, build)
