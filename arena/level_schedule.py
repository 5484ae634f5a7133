"""Who meets whom in a calibration of many players (``scripts/calibrate_levels.py``): a rating fit
needs a connected schedule, not every pair, and a game between players a thousand Elo apart tells
nothing. Each player meets those within :data:`WINDOW` Elo of it by a rough prior
(:data:`PRIOR_ELO`, which only chooses who meets whom: the fit rates them from their games), its
neighbours in that order whatever the gap, and a player that searches a time (level 10, nokamute:
a game of theirs costs a minute, and its result depends on the machine's load) only its
:data:`TIMED_OPPONENTS` nearest. The timed games are a part of their own, to play on an otherwise
idle machine; the rest may run beside other work.
"""

from __future__ import annotations

from players.levels import MAX_LEVEL
from players.registry import spec_option

PRIOR_ELO: dict[str, float] = {
    "random": -950, "greedy": -120, "alphabeta:depth=1": -100, "alphabeta:depth=2": 0,
    "alphabeta:depth=3": 350, "alphabeta:depth=4": 480, "nokamute": 900,
    "level-1": -370, "level-2": -150, "level-3": 110, "level-4": 280, "level-5": 470,
    "level-6": 620, "level-7": 810, "level-8": 1090, "level-9": 1300, "level-10": 1450,
}
"""A rough guess of each player's Elo relative to depth 2 (the first calibration of the Base
levels, docs/players.md; the matches against nokamute): it only chooses who meets whom
(:func:`schedule`); the fit rates them from their games."""
WINDOW = 500.0
"""Players whose prior Elo differ by at most this meet (besides neighbours in the prior's order)."""
TIMED_OPPONENTS = 3
"""The players a time-searching player (level 10, nokamute) meets: its nearest by the prior."""
PARTS = ("untimed", "timed")
"""The two parts of a schedule (:func:`part_pairs`)."""


def player_name(spec: str) -> str:
    """The name a spec goes by in the tables: its ``name=`` (``level-3``, ``nokamute``), else
    the spec itself (``greedy``, ``alphabeta:depth=2``)."""
    return spec_option(spec, "name") or spec


def is_timed(spec: str) -> bool:
    """Whether the player searches a time (a spec's ``time=``, or the top level, whose budget is
    a time), so that its games' results depend on the machine's load."""
    return spec_option(spec, "time") is not None or spec_option(spec, "level") == str(MAX_LEVEL)


def schedule(specs: list[str], prior: dict[str, float] | None = None, window: float = WINDOW,
             timed_opponents: int = TIMED_OPPONENTS) -> list[tuple[int, int]]:
    """The pairs ``(i, j)``, ``i < j``, that meet (module docstring): untimed players within
    ``window`` of each other by ``prior`` or next to each other in its order (so the schedule is
    connected), each timed player with its ``timed_opponents`` nearest."""
    prior = PRIOR_ELO if prior is None else prior
    elo = [prior.get(player_name(s), 0.0) for s in specs]
    timed = [is_timed(s) for s in specs]
    pairs: set[tuple[int, int]] = set()
    untimed = sorted((i for i in range(len(specs)) if not timed[i]), key=lambda i: elo[i])
    for a, i in enumerate(untimed):
        for b, j in enumerate(untimed[a + 1:], start=a + 1):
            if b == a + 1 or abs(elo[i] - elo[j]) <= window:
                pairs.add((min(i, j), max(i, j)))
    for i in (i for i in range(len(specs)) if timed[i]):
        nearest = sorted((j for j in range(len(specs)) if j != i), key=lambda j: (abs(elo[i] - elo[j]), j))
        pairs.update((min(i, j), max(i, j)) for j in nearest[:timed_opponents])
    return sorted(pairs)


def part_pairs(specs: list[str], pairs: list[tuple[int, int]], part: str) -> list[tuple[int, int]]:
    """The pairs of one part: ``timed`` those with a timed player, ``untimed`` the rest."""
    return [p for p in pairs if (is_timed(specs[p[0]]) or is_timed(specs[p[1]])) == (part == "timed")]
