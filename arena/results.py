"""An arena's results directory: its settings, its game records, and resuming from them.

``config.json`` holds the settings and the openings (a resume with other settings is refused,
except more games per pairing, which grows the arena); ``games.jsonl`` one record per finished
game (``arena.game.play_game``), appended, flushed and fsynced as each game ends, so a rerun skips
the games it holds and plays the rest (:class:`ResultsDir`); ``pairings.csv``, ``ratings.csv`` and
``summary.json`` the tables (``arena.report``), written atomically.

See docs/arena.md (resuming; files in the results directory).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hive_env.files import naming, write_atomic
from hive_env.records.arena_record import RESULTS, ArenaRecord, ArenaRecordError
from players.uhp_client import clip

from .config import CONFIG_VERSION, ArenaConfig, ArenaError
from .game import GameTask

CONFIG_FILE = "config.json"
GAMES_FILE = "games.jsonl"
PAIRINGS_FILE = "pairings.csv"
RATINGS_FILE = "ratings.csv"
SUMMARY_FILE = "summary.json"
"""The files of a results directory (docs/arena.md)."""


class ResultsDir:
    """``config.json`` + ``games.jsonl`` of one arena.

    A rerun reads ``games.jsonl``, skips the games it holds (by game id) and plays the rest; a
    truncated last line (a crash mid-write: not JSON) is dropped, any other bad record (a field
    missing or of the wrong type, a game not in the schedule) is an
    :class:`~arena.config.ArenaError` naming file and line. Records without the per-move fields
    (written before they existed) are valid. More ``games_per_pairing`` than ``config.json``
    holds grows a finished arena (its games are kept, the new rounds played, ``config.json``
    updated); fewer is refused."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.games = self.path / GAMES_FILE
        self.dropped_partial_line = False

    def open(self, config: ArenaConfig, openings: list[str], tasks: list[GameTask]) -> list[dict[str, Any]]:
        """Create or check the directory; the records already in it (in file order).

        Raises:
            ArenaError: other settings, or records that are corrupt or not in the schedule.
        """
        self.path.mkdir(parents=True, exist_ok=True)
        wanted = {"version": CONFIG_VERSION, "settings": config.settings(), "openings": openings}
        wanted = json.loads(json.dumps(wanted))
        config_path = self.path / CONFIG_FILE
        if config_path.exists():
            try:
                found = json.loads(config_path.read_text())
            except (OSError, json.JSONDecodeError) as e:
                raise ArenaError(f"cannot read {config_path}: {e}") from None
            if found != wanted:
                if _is_shrink(found, wanted):
                    had = found["settings"]["games_per_pairing"]
                    raise ArenaError(f"{self.path} holds an arena of {had} games per pairing: "
                                     f"it can grow but not shrink to "
                                     f"{config.games_per_pairing}; choose another --out")
                if not _is_growth(found, wanted):
                    raise ArenaError(f"{self.path} holds an arena with other settings "
                                     f"({_differences(found, wanted)}); rerun with the same settings to "
                                     "resume, or choose another --out")
                write_atomic(config_path, json.dumps(wanted, indent=1) + "\n")  # grown: more games
        elif self.games.exists():
            raise ArenaError(f"{self.games} exists without config.json: not an arena directory")
        else:
            write_atomic(config_path, json.dumps(wanted, indent=1) + "\n")
        return self._read(tasks)

    def _read(self, tasks: list[GameTask]) -> list[dict[str, Any]]:
        if not self.games.exists():
            return []
        by_id = {t.id: t for t in tasks}
        data = self.games.read_bytes()
        lines = data.split(b"\n")  # the last item is what follows the last newline: b"" normally
        records, seen, offset = [], set(), 0
        for number, line in enumerate(lines, start=1):
            last = number == len(lines)
            if line.strip():
                obj, record, problem = _parse_record(line, by_id)
                if obj is _TORN and last:  # a crash mid-write: drop the partial line
                    with open(self.games, "r+b") as f:
                        f.truncate(offset)
                    self.dropped_partial_line = True
                    break
                if record is None:
                    raise ArenaError(f"{self.games} line {number}: {problem}")
                if record.id in seen:
                    raise ArenaError(f"{self.games} line {number}: game {record.id} is recorded twice")
                seen.add(record.id)
                records.append(obj)
                if last:  # a whole record without its newline: end the line before appending
                    with open(self.games, "ab") as f:
                        f.write(b"\n")
            offset += len(line) + 1
        return records

    def append(self, record: dict[str, Any]) -> None:
        """Add one record durably (flush + fsync), before anything else sees it. A full disk
        raises an OSError naming the file (``hive_env.files.naming``); the torn line it may
        leave is dropped when the directory is read again."""
        line = ArenaRecord.from_json(record).to_line()  # the one writer: a bad record never lands
        with naming(self.games), open(self.games, "a") as f:
            f.write(line + "\n")
            f.flush()
            os.fsync(f.fileno())


@dataclass(frozen=True)
class FinishedArena:
    """What a results directory holds, as written: ``config.json``'s settings, the records of
    ``games.jsonl`` and ``summary.json``."""

    settings: dict[str, Any]
    records: list[ArenaRecord]
    summary: dict[str, Any]


def read_finished(path: Path) -> FinishedArena:
    """The settings, records and summary of the results directory ``path``, with no schedule to
    check the records against (for readers of a finished arena: ``arena.head_to_head``).

    Raises:
        OSError: a file missing or unreadable.
        ValueError: a file that is not JSON, or a bad record (``ArenaRecordError``).
        KeyError: a ``config.json`` without settings.
    """
    settings = json.loads((path / CONFIG_FILE).read_text())["settings"]
    summary = json.loads((path / SUMMARY_FILE).read_text())
    lines = (path / GAMES_FILE).read_text().splitlines()
    records = [ArenaRecord.from_json(json.loads(line)) for line in lines if line.strip()]
    return FinishedArena(settings, records, summary)


def _parse_record(line: bytes, by_id: dict[str, GameTask]) -> tuple[Any, ArenaRecord | None, str]:
    """The line's object, its record and ``""``; the object, None and what is wrong with it; or
    :data:`_TORN`, None and why for a line that is not JSON at all (as a crash mid-write leaves it)."""
    try:
        obj = json.loads(line)
    except ValueError as e:
        return _TORN, None, f"not a game record ({type(e).__name__})"
    try:
        record = ArenaRecord.from_json(obj)
    except ArenaRecordError as e:
        return obj, None, f"{e}: {clip(repr(e.value), 60)}" if e.has_value else str(e)
    task = by_id.get(record.id)
    if task is None:
        return obj, None, f"game {clip(record.id, 60)!r} is not in this arena's schedule"
    if (record.white, record.black) != (task.white, task.black):
        return obj, None, f"game {record.id!r} has other players than scheduled"
    if (record.white_index, record.black_index, record.round) != (
            task.white_index, task.black_index, task.round):
        return obj, None, f"game {record.id!r} has other player indices or round than scheduled"
    if RESULTS.get(record.white_score) != record.result:
        return obj, None, (f"game {record.id!r} has white_score {clip(repr(record.white_score), 20)} "
                           f"and result {clip(record.result, 20)!r}")
    return obj, record, ""


_TORN = object()
"""What :func:`_parse_record` gives for a line that is not JSON."""


def _is_growth(found: dict[str, Any], wanted: dict[str, Any]) -> bool:
    """Whether ``wanted`` is ``found`` with more games per pairing and nothing else changed.

    The schedule's game ids, seeds and openings do not depend on the number of rounds (random
    openings with a larger count extend the list), so every game played stays in the larger
    arena with the same id. Shrinking is not growth: it would orphan games already played.
    """
    old, new = found.get("settings", {}), wanted["settings"]
    if found.get("version") != wanted["version"] or not isinstance(old, dict):
        return False
    before, after = old.get("games_per_pairing"), new["games_per_pairing"]
    if not isinstance(before, int) or before >= after:
        return False
    if {**old, "games_per_pairing": after} != new:
        return False
    openings = found.get("openings")
    return isinstance(openings, list) and openings == wanted["openings"][:len(openings)]


def _is_shrink(found: dict[str, Any], wanted: dict[str, Any]) -> bool:
    """Whether ``wanted`` is ``found`` with fewer games per pairing and nothing else changed."""
    return isinstance(found.get("settings"), dict) and _is_growth(wanted, found)


def _differences(found: dict[str, Any], wanted: dict[str, Any]) -> str:
    old, new = found.get("settings", {}), wanted["settings"]
    diffs = [f"{k}: {old.get(k)!r} -> {new.get(k)!r}"
             for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k)]
    if found.get("openings") != wanted["openings"]:
        diffs.append("the openings differ")
    if found.get("version") != wanted["version"]:
        diffs.append(f"version {found.get('version')!r} -> {wanted['version']!r}")
    return "; ".join(diffs) or "unreadable settings"
