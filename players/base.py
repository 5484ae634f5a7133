"""The player interface: what every player offers, and how much thought a move may take."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Protocol, runtime_checkable

from hive_env import Game


@dataclass(frozen=True)
class Budget:
    """How much thought one move may take; ``None`` = no limit on that axis.

    Which fields a player honours: ``alphabeta`` depth and time (both: whichever comes
    first), ``uhp`` depth or else time, ``alphazero`` sims and time (both: time caps the
    sims; time alone: search until it is up); ``random`` and ``greedy`` none.
    """

    time_s: float | None = None
    depth: int | None = None
    sims: int | None = None

    def is_empty(self) -> bool:
        return all(getattr(self, f.name) is None for f in fields(self))


def resolve_budget(budget: Budget | None, default: Budget) -> Budget:
    """The budget to use: the one given, or the player's default when none (or an empty one) is."""
    return default if budget is None or budget.is_empty() else budget


@runtime_checkable
class Player(Protocol):
    """Chooses moves. ``choose`` never changes the game it is given."""

    name: str

    def choose(self, game: Game, budget: Budget | None = None) -> int:
        """An encoded legal move of ``game`` (which must be in progress)."""
        ...

    def close(self) -> None:
        """Release what the player holds (processes, memory)."""
        ...


class PlayerSpecError(ValueError):
    """A player spec string that names an unknown kind, key or a bad value."""


def check_in_progress(game: Game) -> None:
    """Raise ``ValueError`` when ``game`` is over: there is no move to choose."""
    if game.is_over:
        raise ValueError(f"the game is over ({game.state}): there is no move to choose")
