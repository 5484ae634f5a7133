"""The player interface: what every player offers, and how much thought a move may take."""

from __future__ import annotations

from dataclasses import dataclass, fields
from numbers import Integral
from typing import Protocol, runtime_checkable

from hive_env import Game


@dataclass(frozen=True)
class Budget:
    """How much thought one move may take; ``None`` = no limit on that axis.

    Which fields a player honours: ``alphabeta`` depth and time (both: whichever comes
    first), ``uhp`` depth or else time, ``alphazero`` sims and time (both: time caps the
    sims; time alone: search until it is up, or with ``max_time_s`` longer on a hard
    position); ``random`` and ``greedy`` none.
    """

    time_s: float | None = None
    depth: int | None = None
    sims: int | None = None
    max_time_s: float | None = None
    """A game clock's allowance for a hard position (``players.clock.move_allowance``): a
    player may go on past ``time_s`` up to this when its search finds the move hard; players
    that do not judge hardness keep to ``time_s``."""

    def is_empty(self) -> bool:
        return all(getattr(self, f.name) is None for f in fields(self))


def resolve_budget(budget: Budget | None, default: Budget) -> Budget:
    """The budget to use: the one given, or the player's default when none (or an empty one) is."""
    return default if budget is None or budget.is_empty() else budget


@runtime_checkable
class Player(Protocol):
    """Chooses moves. ``choose`` never changes the game it is given.

    A player MAY also expose ``last_stats: dict[str, int]``, what its last ``choose`` searched:
    ``{"sims": 812, "value_milli": 140}`` (tree search simulations, the root's value for the
    mover in thousandths), ``{"nodes": 40213}`` (positions searched). It
    must then set it on *every* ``choose`` (``{}`` for a move it did not search), so it never
    describes an earlier move. The arena records it with each move's time (:func:`search_stats`
    reads it), so a match at equal time shows what each side did with that time. Players that
    cannot count honestly (external engines) have none. It is not a member of this protocol:
    players without it are players all the same.
    """

    name: str

    def choose(self, game: Game, budget: Budget | None = None) -> int:
        """An encoded legal move of ``game`` (which must be in progress)."""
        ...

    def close(self) -> None:
        """Release what the player holds (processes, memory)."""
        ...


def search_stats(player: object) -> dict[str, int]:
    """A copy of ``player.last_stats`` (the player's last ``choose``; see :class:`Player`), or
    ``{}`` when it has none. Only string keys with integer values are kept (JSON-ready ints)."""
    stats = getattr(player, "last_stats", None)
    if not isinstance(stats, dict):
        return {}
    return {k: int(v) for k, v in stats.items()
            if isinstance(k, str) and isinstance(v, Integral) and not isinstance(v, bool)}


class PlayerSpecError(ValueError):
    """A player spec string that names an unknown kind, key or a bad value (or a player that is
    neither a spec nor a :class:`Player` object)."""


def player_name(player: object) -> str:
    """A player object's name: its ``name`` attribute when that is a non-empty string, else its
    class name (``name`` is optional for a player written outside this project).

    Raises:
        PlayerSpecError: ``player`` has no callable ``choose``: it is no player.
    """
    if not callable(getattr(player, "choose", None)):
        shown = repr(player)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        raise PlayerSpecError(f"a player is a spec string (kind[:key=value,...]) or an object with "
                              f"choose(game, budget), not {shown}")
    name = getattr(player, "name", None)
    return name.strip() if isinstance(name, str) and name.strip() else type(player).__name__


def prepare_for(player: object, game_type: str) -> None:
    """Tell ``player`` the game type of its next game when it asks to know (an optional
    ``prepare(game_type)`` method: the ``alphazero`` player loads the network shipped for that
    type), so that a type it cannot play is refused before the game, not in it.

    Raises:
        PlayerSpecError: the player cannot play ``game_type``.
    """
    prepare = getattr(player, "prepare", None)
    if callable(prepare):
        prepare(game_type)


def check_in_progress(game: Game) -> None:
    """Raise ``ValueError`` when ``game`` is over: there is no move to choose."""
    if game.is_over:
        raise ValueError(f"the game is over ({game.state}): there is no move to choose")
