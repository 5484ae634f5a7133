"""The arena's game record: one line of ``games.jsonl``, named, written and read here alone.

:class:`ArenaRecord` holds every field of an arena game's record (``arena.game.play_game`` fills
it). :meth:`ArenaRecord.to_json` is the one writer of a line's object and
:meth:`ArenaRecord.from_json` the one reader, which checks each field's JSON type; every module
that reads ``games.jsonl`` goes through it, so a field is spelt in this file only. It lives in
``hive_env`` because ``hive_env.records.jsonl`` reads these lines too and may not import the arena.
"""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass, field
from typing import Any

RESULTS = {1.0: "1-0", 0.5: "1/2-1/2", 0.0: "0-1"}
"""A record's ``result`` for each ``white_score``."""
_MISSING = object()


def _required(kind: type | tuple[type, ...]) -> Any:
    """A field every record holds, of JSON type ``kind`` (a bool is never an int or a float)."""
    return field(metadata={"json": kind})


def _optional(written: bool = True) -> Any:
    """A field older records lack (None); ``written``: always in a new line (null when None),
    else only when set."""
    return field(default=None, metadata={"written": written})


class ArenaRecordError(ValueError):
    """What is wrong with a ``games.jsonl`` line's object (``str(error)``), and the bad value to
    quote after it (``value``; :data:`_MISSING` when there is none)."""

    def __init__(self, problem: str, value: Any = _MISSING):
        super().__init__(problem)
        self.value = value

    @property
    def has_value(self) -> bool:
        return self.value is not _MISSING


@dataclass(frozen=True, kw_only=True)
class ArenaRecord:
    """One finished arena game, in the order of its JSON line (``arena.game.play_game`` says
    what each field means; ``arena.terminations`` the ``termination`` words).

    ``white_score`` is 1, 0.5 or 0 and ``result`` the same as text. ``move_seconds`` and
    ``move_stats`` hold one entry per move played after the opening (move ``k`` is ply ``plies -
    len(move_seconds) + k``); ``threads``, ``cpus`` and ``resyncs`` say how each side ran;
    ``clock`` and ``clock_left`` are set under a game clock, ``detail`` for a loss by fault.
    The optional fields are None in records written before they existed.
    """

    id: str = _required(str)
    white: str = _required(str)
    black: str = _required(str)
    white_index: int = _required(int)
    black_index: int = _required(int)
    round: int = _required(int)
    opening: int = _required(int)
    result: str = _required(str)
    white_score: float = _required((int, float))
    termination: str = _required(str)
    plies: int = _required(int)
    seconds: float = _required((int, float))
    white_seconds: float = _required((int, float))
    black_seconds: float = _required((int, float))
    move_seconds: list[float] | None = _optional()
    move_stats: list[dict[str, int] | None] | None = _optional()
    seeds: list[int] = _required(list)
    game_string: str = _required(str)
    threads: list[int | None] | None = _optional()
    cpus: list[int] | None = _optional()
    resyncs: list[int | None] | None = _optional()
    clock: str | None = _optional(written=False)
    clock_left: list[float] | None = _optional(written=False)
    detail: str | None = _optional(written=False)

    def to_json(self) -> dict[str, Any]:
        """The line's object (``json.dumps`` of it is the line), fields in declaration order."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                if f.metadata.get("written", True) or getattr(self, f.name) is not None}

    @classmethod
    def from_json(cls, obj: object) -> ArenaRecord:
        """The record of a line's object (``json.loads`` of the line); other keys are ignored.

        Raises:
            ArenaRecordError: not an object, a field missing or of the wrong JSON type, or
                ``move_seconds`` / ``move_stats`` that do not fit the game (:meth:`moves_problem`).
        """
        if not isinstance(obj, dict):
            raise ArenaRecordError(f"not a game record (a JSON {type(obj).__name__})")
        for f in dataclasses.fields(cls):
            kind = f.metadata.get("json")
            if kind is None:
                continue
            if f.name not in obj:
                raise ArenaRecordError(f"game record without {f.name!r}")
            value = obj[f.name]
            if isinstance(value, bool) or not isinstance(value, kind):
                raise ArenaRecordError(f"game record with a bad {f.name!r}", value)
        if "detail" in obj and not isinstance(obj["detail"], str):
            raise ArenaRecordError("game record with a bad 'detail'")
        record = cls(**{f.name: obj[f.name] for f in dataclasses.fields(cls) if f.name in obj})
        problem = record.moves_problem()
        if problem:
            raise ArenaRecordError(problem)
        return record

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        """Every field's name, which is its key in the line."""
        return tuple(f.name for f in dataclasses.fields(cls))

    def moves_problem(self) -> str:
        """What is wrong with ``move_seconds`` / ``move_stats`` (``""``: fine, or both absent).

        Both or neither; lists of one length, at most ``plies``; seconds finite numbers >= 0;
        each stats entry null or an object of integers.
        """
        seconds, stats = self.move_seconds, self.move_stats
        if seconds is None and stats is None:
            return ""
        if not isinstance(seconds, list) or not isinstance(stats, list):
            return "game record with move_seconds or move_stats missing or not a list"
        if len(seconds) != len(stats) or len(seconds) > self.plies:
            return (f"game record with {len(seconds)} move_seconds, {len(stats)} move_stats "
                    f"and {self.plies} plies")
        if any(isinstance(x, bool) or not isinstance(x, (int, float)) or not 0 <= x < math.inf
               for x in seconds):
            return "game record with a bad 'move_seconds' entry"
        if any(x is not None and not (isinstance(x, dict) and all(
                isinstance(v, int) and not isinstance(v, bool) for v in x.values())) for x in stats):
            return "game record with a bad 'move_stats' entry"
        return ""

    def to_line(self) -> str:
        """The ``games.jsonl`` line, without its newline."""
        return json.dumps(self.to_json())
