"""Classical players and the UHP protocol (no torch).

- ``base``: the :class:`Player` interface, :class:`Budget`, :class:`PlayerSpecError`, ``search_stats``
- ``registry``: spec strings (``kind:key=value,...``) -> players; kinds imported lazily by name
- ``simple``: ``random`` and ``greedy``
- ``heuristic``: the compiled Hive evaluation (queen pressure, mobility, pins)
- ``alphabeta``: compiled iterative-deepening alpha-beta and its player
- ``clock``: game clocks (base + increment) and the time manager that shares them out
- ``levels``: the ``alphazero`` player's levels 1-10 (``alphazero:level=N``), one table for every tool
- ``uhp_client``: an external UHP engine as a player
- ``uhp_server``: this project as a UHP engine (the ``hive-uhp`` state machine)
- ``terminal``: a person typing moves against a player (the ``hive-play`` game)
"""

from hive_zero.layout import check as _check_layout

_check_layout()  # another 'players' (a user's folder, another package) is one line, not a bad import

from .base import Budget, Player, PlayerSpecError, player_name, resolve_budget, search_stats  # noqa: E402 - the interface
from .registry import make_player, parse_spec, player_kinds, player_label, register_player  # noqa: E402 - specs -> players

__all__ = [
    "Budget",
    "Player",
    "PlayerSpecError",
    "make_player",
    "parse_spec",
    "player_kinds",
    "player_label",
    "player_name",
    "register_player",
    "resolve_budget",
    "search_stats",
]
