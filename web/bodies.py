"""Request bodies of hive-web's JSON API, strictly typed (no ``"2"`` for 2, no ``true`` for 1,
no unknown field), and the checks on their text: MoveStrings and GameStrings are one line of
printable ASCII, record text is lines of printable text, a clock is ``BASE+INC`` seconds within
the caps. A refusal is a ValueError, which the app answers 422 in one line. A GameString's moves
are counted before it is parsed (:func:`moves_in`), so that one over ``MAX_PLIES`` is refused
(413) without replaying it."""

from __future__ import annotations

import unicodedata
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from hive_env.uhp import game_string_fields
from players.clock import ClockControl
from players.levels import DEFAULT_LEVEL, MAX_LEVEL, MIN_LEVEL

from .review import DEFAULT_REVIEW_SIMS, MAX_REVIEW_SIMS
from .sessions import MAX_PLIES

MAX_BODY = 64 * 1024
"""Largest request body accepted, in bytes (a GameString of a long game is a few KiB)."""


def one_line(text: str) -> str:
    """``text`` if it is one line of printable ASCII (all UHP notation is), else ValueError
    naming the first other character: a newline, U+2028 or a control character could smuggle a
    second command into a line-based protocol or a log."""
    for ch in text:
        if not " " <= ch <= "~":
            raise ValueError(f"only printable ASCII is allowed (found U+{ord(ch):04X})")
    return text


Line = Annotated[str, AfterValidator(one_line)]


def record_text(text: str) -> str:
    """``text`` if it is record text: lines of printable characters (tabs allowed; a record's
    names may be any language's), else ValueError naming the first other character. Line and
    paragraph separators (U+2028, U+2029) and control characters are refused: a reader that
    splits lines on them would see lines the client did not write."""
    for ch in text:
        if ch in "\n\r\t":
            continue
        if unicodedata.category(ch) in ("Cc", "Cs", "Zl", "Zp") or ch in "\ufeff":
            raise ValueError(f"a record is lines of printable text (found U+{ord(ch):04X})")
    return text


RecordText = Annotated[str, AfterValidator(record_text)]

def moves_in(game_string: str) -> int:
    """Moves a GameString lists (counted without parsing it: ``GameType;GameState;Turn;m1;m2...``)."""
    return max(len(game_string_fields(game_string)) - 3, 0)


MAX_CLOCK_BASE_S = 3 * 3600.0
"""Longest base time a clock may have, in seconds (3 hours)."""
MAX_CLOCK_INCREMENT_S = 600.0
"""Largest increment a clock may have, in seconds (10 minutes)."""


def clock_text(text: str) -> str:
    """``text`` as a normalised clock control (``"60 + 1"`` -> ``"60+1"``; ``""`` -> ``""``, no
    clock), else ValueError (``players.clock.ClockError``): not ``BASE+INC`` seconds, or over
    the caps."""
    if not text.strip():
        return ""
    control = ClockControl.parse(text)
    if control.base_s > MAX_CLOCK_BASE_S or control.increment_s > MAX_CLOCK_INCREMENT_S:
        raise ValueError(f"a clock may have at most {MAX_CLOCK_BASE_S:g} s base and "
                         f"{MAX_CLOCK_INCREMENT_S:g} s increment (got {control})")
    return str(control)


ClockText = Annotated[str, Field(max_length=32), AfterValidator(one_line), AfterValidator(clock_text)]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class NewGame(_Body):
    game_type: Line = Field("Base", max_length=16, description="Base, Base+M, ... Base+MLP")
    game_string: Line | None = Field(None, max_length=MAX_BODY,
                                     description=f"a UHP GameString to load instead of a new game "
                                                 f"(at most {MAX_PLIES} moves)")
    record: RecordText | None = Field(None, max_length=MAX_BODY,
                                      description="a game record to load: a GameString, games.jsonl, "
                                                  "Mzinga PGN or boardspace SGF text (hive_env.records)")
    record_game: int = Field(1, ge=1, le=100_000, description="which game of the record, from 1")
    white: Line = Field("human", max_length=64, description="player id from GET /api/players")
    black: Line = Field("random", max_length=64, description="player id from GET /api/players")
    ply_cap: int = Field(0, ge=0, le=MAX_PLIES, description="draw after this many plies; 0 = none")
    seed: int = Field(0, ge=0, le=2**31 - 1, description="seeds the engines' random choices")
    level: int = Field(DEFAULT_LEVEL, ge=MIN_LEVEL, le=MAX_LEVEL,
                       description=f"the level of the AlphaZero seats, {MIN_LEVEL} (near random) to "
                                   f"{MAX_LEVEL} (the full player, 1 s a move)")
    clock: ClockText | None = Field(None, description="a game clock, BASE+INC seconds (e.g. 60+1: "
                                                      "a minute each, a second added a move); "
                                                      "null or \"\": none")


class PlayMove(_Body):
    move: Line = Field(..., max_length=64, description="a UHP MoveString, e.g. 'bS1 wS1-' or 'pass'")


class Undo(_Body):
    plies: int | None = Field(None, ge=1, le=MAX_PLIES,
                              description="plies to take back; default: back to the person's last move")


class StartReview(_Body):
    sims: int = Field(DEFAULT_REVIEW_SIMS, ge=1, le=MAX_REVIEW_SIMS, description="simulations a position")
    model: Line | None = Field(None, max_length=64, description="an AlphaZero id from GET /api/players")
