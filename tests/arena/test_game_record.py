"""The arena's game record (hive_env.records.arena_record): one writer, one reader, and no module
that reads a games.jsonl line by a key of its own."""

from __future__ import annotations

import ast
import dataclasses
import json

import pytest

from arena.config import ArenaConfig
from arena.game import play_game
from arena.report import build_report
from arena.schedule import resolve_openings, schedule
from hive_env.records.arena_record import RESULTS, ArenaRecord, ArenaRecordError

from helpers import ROOT, whole

ALWAYS_WRITTEN = [f.name for f in dataclasses.fields(ArenaRecord) if f.metadata.get("written", True)]


def test_play_game_writes_the_record_through_its_one_writer():
    config = ArenaConfig("gauntlet", ("greedy", "random"), 2)
    task = schedule(config, resolve_openings(config))[0]
    line = play_game(task)
    assert list(line) == ALWAYS_WRITTEN  # no clock, no fault: the optional fields stay out
    record = ArenaRecord.from_json(line)
    assert record.to_json() == line and record.to_line() == json.dumps(line)
    assert RESULTS[record.white_score] == record.result and record.id == task.id


def test_optional_fields_are_written_when_set_and_after_the_others():
    line = whole({"white_index": 0, "black_index": 1, "white_score": 0.0, "termination": "time_forfeit"})
    record = dataclasses.replace(ArenaRecord.from_json(line), clock="60+1", clock_left=[1.5, 0.0],
                                 detail="black took 2.000 s with 1.000 s left")
    written = record.to_json()
    assert list(written) == [*ALWAYS_WRITTEN, "clock", "clock_left", "detail"]
    assert ArenaRecord.from_json(json.loads(record.to_line())) == record


def test_the_reader_names_the_field_missing_or_bad():
    line = whole({"white_index": 0, "black_index": 1, "white_score": 1.0})
    with pytest.raises(ArenaRecordError, match="game record without 'plies'") as missing:
        ArenaRecord.from_json({k: v for k, v in line.items() if k != "plies"})
    assert not missing.value.has_value
    with pytest.raises(ArenaRecordError, match="a bad 'round'") as bad:
        ArenaRecord.from_json({**line, "round": True})
    assert bad.value.value is True
    with pytest.raises(ArenaRecordError, match="not a game record"):
        ArenaRecord.from_json([line])


def test_the_report_reads_every_record_through_the_typed_record(tmp_path):
    config = ArenaConfig("gauntlet", ("greedy", "random"), 2)
    line = whole({"white_index": 0, "black_index": 1, "white_score": 1.0})
    assert build_report(config, tmp_path, 1, [line], 2).pairings[0][2].wins == 1
    with pytest.raises(ArenaRecordError, match="without 'round'"):  # not a KeyError deep in a table
        build_report(config, tmp_path, 1, [{k: v for k, v in line.items() if k != "round"}], 2)


# ----- no module reads a line by a key of its own -----------------------------------------------------
SCANNED = [*sorted((ROOT / "arena").glob("*.py")), *sorted((ROOT / "hive_env" / "records").glob("*.py"))]
"""The modules that handle game records: every arena module (the levels' calibration among them),
hive_env's record readers."""
OTHER_DICTS = {("arena/config.py", "threads"), ("arena/config.py", "clock"),
               ("arena/report_text.py", "threads")}
"""Keys that are a record field's name but index another dict (the settings, a table's rows)."""



def string_keys(source: str) -> set[str]:
    """The string constants ``source`` indexes with (``x["k"]``) or passes to ``.get`` / ``.pop`` /
    ``.setdefault``."""
    keys = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Subscript):
            key = node.slice
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in ("get", "pop", "setdefault") and node.args):
            key = node.args[0]
        else:
            continue
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            keys.add(key.value)
    return keys


def test_no_module_reads_a_record_by_key_but_the_records_own():
    """A reader that spells a field as a key (``record["white_score"]``) is a copy of the record's
    names: renaming the field would miss it. Readers go through ArenaRecord's attributes instead,
    where a field the record does not define is an AttributeError."""
    fields = set(ArenaRecord.field_names())
    own = {"hive_env/records/arena_record.py", "hive_env/records/jsonl.py"}  # the record; a lenient reader
    found = {(name, key) for path in SCANNED if (name := path.relative_to(ROOT).as_posix()) not in own
             for key in string_keys(path.read_text()) & fields}
    assert found <= OTHER_DICTS


def test_the_lenient_jsonl_reader_reads_only_the_records_fields():
    """hive_env's reader of games.jsonl files takes what a line holds (a hand-written line may hold
    only its game_string), by the record's field names."""
    import hive_env.records.jsonl as jsonl

    read = string_keys((ROOT / "hive_env" / "records" / "jsonl.py").read_text()) | set(jsonl._JSONL_META)
    assert {"game_string", "plies", "white"} <= read <= set(ArenaRecord.field_names())
