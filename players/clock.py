"""Game clocks: base time plus an increment a move, and the time manager that shares them out.

A clock control ``BASE+INC`` (seconds: ``60+1``, ``300``, ``0.5+0.1``) gives each side ``BASE``
seconds for the whole game and adds ``INC`` after each of its moves. :class:`GameClock` keeps both
sides' time; :func:`move_share` is the time manager (how many of the seconds left one move may
take) and :func:`move_allowance` the most a hard move may take. The arena and hive-web give each
move that share as its budget and charge the side what its move really took.

See docs/arena.md (clocks).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from hive_zero.checks import RangeError, bounded, check_ranges

MOVES_TO_GO = 25
"""Moves a side is assumed still to play (Hive games last about 30 moves a side)."""
RESERVE_S = 0.05
"""Seconds of the clock never planned for: the process and protocol overhead of a move."""
MAX_FRACTION = 0.5
"""The most of the usable time left that one move's share may be."""
HARD_FACTOR = 3.0
"""The allowance of a hard move, in shares (:func:`move_allowance`)."""
MIN_SHARE_S = 0.01
"""The least share a move gets while any time is left (capped at half of what is left)."""

_CONTROL = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*(?:\+\s*(\d+(?:\.\d*)?|\.\d+)\s*)?$")


class ClockError(ValueError):
    """A clock control that is not ``BASE+INC`` seconds (a one-line message)."""


@dataclass(frozen=True)
class ClockControl:
    """``base_s`` seconds for the game, ``increment_s`` added after each move."""

    base_s: float = bounded(gt=0, lt=math.inf, label="base")
    increment_s: float = bounded(0.0, ge=0, lt=math.inf, label="increment")

    def __post_init__(self) -> None:
        try:
            check_ranges(self)
        except RangeError as e:
            raise ClockError(f"bad clock {self.base_s:g}+{self.increment_s:g}: {e} seconds") from None

    @classmethod
    def parse(cls, text: str) -> ClockControl:
        """``"60+1"`` -> ``ClockControl(60, 1)``; ``"300"`` has no increment.

        Raises:
            ClockError: not ``BASE[+INC]`` in seconds, or a base of 0.
        """
        m = _CONTROL.match(text) if isinstance(text, str) else None
        if m is None:
            raise ClockError(f"bad clock {text!r}: expected BASE+INC in seconds, e.g. 60+1 or 300")
        return cls(float(m.group(1)), float(m.group(2) or 0.0))

    def __str__(self) -> str:
        return f"{self.base_s:g}+{self.increment_s:g}"


def move_share(remaining_s: float, increment_s: float = 0.0) -> float:
    """The seconds one move may take with ``remaining_s`` on the clock: 0 when the clock has run
    out. The time left (less :data:`RESERVE_S`) over :data:`MOVES_TO_GO`, plus the increment,
    never more than :data:`MAX_FRACTION` of what is left, so a player that spends its whole share
    (ours spend ``TIME_SHARE`` of it) never runs its clock out: after each move at least
    ``1 - MAX_FRACTION`` of the usable time stays. With ``60+1``: 3.4 s for the first move,
    settling near the increment in long games."""
    if remaining_s <= 0:
        return 0.0
    usable = max(remaining_s - RESERVE_S, 0.0)
    share = min(usable / MOVES_TO_GO + increment_s, MAX_FRACTION * usable)
    return max(share, min(MIN_SHARE_S, 0.5 * remaining_s))


def move_allowance(remaining_s: float, increment_s: float = 0.0) -> float:
    """The most seconds one move the player finds hard may take: :data:`HARD_FACTOR` times the
    share, never more than :data:`MAX_FRACTION` of the usable time left (nor less than the share).
    The arena gives it beside the share (``Budget.max_time_s``). A player that spends it on hard
    moves spends less on the later ones (each share is computed from the time then left), the
    time of easy moves going to hard ones."""
    share = move_share(remaining_s, increment_s)
    usable = max(remaining_s - RESERVE_S, 0.0)
    return max(share, min(HARD_FACTOR * share, MAX_FRACTION * usable))


@dataclass
class GameClock:
    """Both sides' clocks in one game (index 0 White, 1 Black).

    ``remaining`` is each side's time left, in seconds; :meth:`charge` takes a move's time off
    the mover's clock and adds the increment, unless the clock ran out (a flag fall: the caller
    ends the game as a loss on time for that side).
    """

    control: ClockControl
    remaining: list[float] = field(default_factory=list)
    flagged: int | None = None
    """The side whose clock ran out, or None."""

    def __post_init__(self) -> None:
        if not self.remaining:
            self.remaining = [self.control.base_s, self.control.base_s]

    def share(self, side: int) -> float:
        """The time manager's seconds for ``side``'s next move (:func:`move_share`)."""
        return move_share(self.remaining[side], self.control.increment_s)

    def allowance(self, side: int) -> float:
        """The most ``side``'s next move may take if hard (:func:`move_allowance`)."""
        return move_allowance(self.remaining[side], self.control.increment_s)

    def charge(self, side: int, seconds: float, increment: bool = True) -> bool:
        """Take ``seconds`` off ``side``'s clock; True (and :attr:`flagged` set) when that ran
        it out, else the increment is added (``increment=False``: time spent without a move
        played, e.g. a search abandoned at a deadline)."""
        self.remaining[side] -= seconds
        if self.remaining[side] < 0:
            self.flagged = side
            return True
        if increment:
            self.remaining[side] += self.control.increment_s
        return False
