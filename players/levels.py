"""Playing levels of the ``alphazero`` player: ``alphazero:level=N``, N from 1 (near random) to 10
(the full player), one table for every tool (hive-play, hive-uhp, hive-web, calibrate_levels).

A level is the network's search with three knobs (:class:`Level`): its budget, its softening (a
move drawn among the likeliest) and whether it keeps the exact tactics. This module imports no
torch and no search code, so the registry, hive-uhp and hive-web read the table without a network.

See docs/players.md (levels: the table, its calibration and the figures).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hive_zero.checks import RangeError, bounded, check_ranges

from .base import Budget

TOP_LEVEL_SECONDS = 1.0
"""The top level's time a move: the full player at its default time."""
TACTICS_FROM = 4
"""The lowest level that keeps the exact tactics (never misses a win in one, never lets one through)."""
SAMPLES = ("prior", "visits")


@dataclass(frozen=True)
class Level:
    """One level of the ``alphazero`` player.

    Attributes:
        number: 1..10.
        sims: simulations a move (None: ``time_s``).
        time_s: seconds a move (None: ``sims``).
        sample: what ranks and weighs the moves drawn from: ``"prior"`` (the network's policy at
            the root) or ``"visits"`` (the search's visit counts).
        top_k: moves drawn from (the ``top_k`` best by ``sample``); 1: the search's own choice.
        temperature: the draw's probabilities are ``weight ** (1 / temperature)``, normalised.
        tactics: keep the exact tactics (levels :data:`TACTICS_FROM`-10): a root the search
            proves won or lost is played as the search plays it (a win in one at once, the
            fastest proven win, the slowest loss), and a move proven lost (one after which the
            opponent wins at once) is never drawn while another exists.
    """

    number: int
    sims: int | None
    time_s: float | None
    sample: str = "visits"
    top_k: int = bounded(1, ge=1)
    temperature: float = bounded(0.0, ge=0)
    tactics: bool = True

    def __post_init__(self) -> None:
        try:
            check_ranges(self)
        except RangeError as e:
            raise ValueError(f"level {self.number}: {e}") from None
        if (self.sims is None) == (self.time_s is None):
            raise ValueError(f"level {self.number}: give sims or time_s, exactly one")
        if self.sample not in SAMPLES:
            raise ValueError(f"level {self.number}: sample must be one of {', '.join(SAMPLES)}, "
                             f"got {self.sample!r}")
        if self.softened and self.temperature == 0:
            raise ValueError(f"level {self.number}: a draw among {self.top_k} moves needs a temperature > 0")

    @property
    def softened(self) -> bool:
        """Whether the move is drawn (else: the search's own choice)."""
        return self.top_k > 1

    @property
    def budget(self) -> Budget:
        """What a move searches when nothing else is asked."""
        return Budget(time_s=self.time_s) if self.time_s is not None else Budget(sims=self.sims)

    def budget_text(self) -> str:
        """``"1 s a move"``, ``"64 simulations a move"``."""
        if self.time_s is not None:
            return f"{self.time_s:g} s a move"
        return f"{self.sims} simulation{'s' if self.sims != 1 else ''} a move"

    def describe(self) -> str:
        """One line: the level, its budget and its softening, as the tools show it."""
        text = f"level {self.number}: {self.budget_text()}"
        if self.softened:
            by = "policy" if self.sample == "prior" else "search"
            text += (f", a move drawn among the {by}'s {self.top_k} best "
                     f"(temperature {self.temperature:g})")
        if not self.tactics:
            text += ", may miss a win in one"
        return text

    def short(self) -> str:
        """``"level 10, 1 s a move"``: what a page or a prompt shows beside the player's name."""
        return f"level {self.number}, {self.budget_text()}"

    def limit(self, given: Budget) -> Budget:
        """The budget a move of this level searches when ``given`` is asked (a time or
        simulations: an arena's ``--time``, a ``bestmove time``, a game clock's share).

        Levels 1-9 are weakened on purpose: ``given`` can only make them search less (its time a
        cap on the level's simulations, its simulations at most the level's), and they take no
        extra time on hard moves. Level 10, the full player, searches what it is given, as the
        ``alphazero`` player without a level does.
        """
        if self.sims is None:
            return given
        sims = min(self.sims, given.sims) if given.sims else self.sims
        return Budget(time_s=given.time_s, sims=sims)


LEVELS: tuple[Level, ...] = (
    Level(1, sims=1, time_s=None, sample="prior", top_k=12, temperature=4.0, tactics=False),
    Level(2, sims=1, time_s=None, sample="prior", top_k=8, temperature=2.5, tactics=False),
    Level(3, sims=1, time_s=None, sample="prior", top_k=6, temperature=1.5, tactics=False),
    Level(4, sims=1, time_s=None, sample="prior", top_k=4, temperature=1.0),
    Level(5, sims=16, time_s=None),
    Level(6, sims=64, time_s=None),
    Level(7, sims=200, time_s=None),
    Level(8, sims=800, time_s=None),
    Level(9, sims=2400, time_s=None),
    Level(10, sims=None, time_s=TOP_LEVEL_SECONDS),
)
"""The levels, ``LEVELS[n - 1]`` is level n (docs/players.md, "Levels")."""
MIN_LEVEL, MAX_LEVEL = 1, len(LEVELS)
DEFAULT_LEVEL = MAX_LEVEL
"""The level of an ``alphazero`` spec without ``sims=``, ``time=`` or ``level=``: the full player,
the default everywhere a person plays (hive-play, hive-web, hive-uhp's bare ``bestmove``)."""
BUDGET_KEYS = ("sims", "time", "gumbel")
"""Spec keys a level replaces: ``level=`` with any of them is refused."""


def level(number: int) -> Level:
    """Level ``number`` (1..10).

    Raises:
        ValueError: out of range.
    """
    if not MIN_LEVEL <= number <= MAX_LEVEL:
        raise ValueError(f"a level is a whole number from {MIN_LEVEL} to {MAX_LEVEL}, not {number}")
    return LEVELS[number - 1]


def level_value(text: str) -> int:
    """The spec parser of ``level=``: a whole number 1..10 (ValueError otherwise)."""
    try:
        number = int(text)
    except ValueError:
        number = 0
    if not MIN_LEVEL <= number <= MAX_LEVEL:
        raise ValueError(f"must be a whole number from {MIN_LEVEL} to {MAX_LEVEL}")
    return number


def check_level_options(level_number: int | None, sims: int | None, time_s: float | None,
                        gumbel: bool) -> None:
    """``level=`` sets the budget and the move choice: with ``sims=``, ``time=`` or ``gumbel=1``
    it is refused (ValueError), so a spec never means two things."""
    if level_number is None:
        return
    given = [k for k, v in (("sims", sims), ("time", time_s), ("gumbel", gumbel or None)) if v is not None]
    if given:
        raise ValueError(f"level={level_number} sets the budget and the move choice: give level= or "
                         f"{'/'.join(f'{k}=' for k in given)}, not both")


def pick(lv: Level, visits: np.ndarray, prior: np.ndarray, lost: np.ndarray, proven: bool, chosen: int,
         rng: np.random.Generator) -> int:
    """The root slot a level plays, from one search's root statistics.

    Args:
        lv: the level.
        visits, prior: ``[n]`` the root moves' visits and the network's prior.
        lost: ``[n]`` bool, the moves the search proved lost (for the side to move).
        proven: the root is proven won or lost (the search's choice is then exact).
        chosen: the search's own choice (the most visited allowed move, or the proven one).
        rng: the draw's generator (seeded by the player).
    """
    if not lv.softened or (lv.tactics and proven):
        return chosen
    n = len(prior)
    allowed = ~lost if lv.tactics and lost.any() and not lost.all() else np.ones(n, bool)
    weight = np.asarray(prior if lv.sample == "prior" else visits, np.float64)
    prior = np.asarray(prior, np.float64)
    slots = np.flatnonzero(allowed)
    order = slots[np.lexsort((-prior[slots], -weight[slots]))][:lv.top_k]  # best weight, then prior
    w = weight[order]
    if not (w > 0).any():
        w = prior[order]  # nothing ranked by visits was visited: the policy decides
    if not (w > 0).any():
        return int(order[0])
    p = np.where(w > 0, w / w.max(), 0.0) ** (1.0 / lv.temperature)
    return int(order[rng.choice(len(order), p=p / p.sum())])
