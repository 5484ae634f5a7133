"""An arena's games in order: its openings and one :class:`~arena.game.GameTask` per game.

Schedules (:func:`schedule`), for each pairing and each round ``k``, play two games from opening
``k`` (cycled when there are fewer openings than rounds) with colours swapped:

- ``gauntlet``: the first player against each of the others;
- ``roundrobin``: every pair of players;
- ``sprt``: two players, rounds until the SPRT decides (``arena.sprt``) or ``max games``.

Each game's seeds derive from (arena seed, pairing, round, colour), so results do not depend on
the number of workers (apart from time-limited players).
"""

from __future__ import annotations

import numpy as np

from .config import ArenaConfig, ArenaError
from .game import GameTask
from .openings import OpeningsError, load_openings, random_openings


def resolve_openings(config: ArenaConfig) -> list[str]:
    """The openings of ``config.openings`` (``random:PLIES`` draws one per round)."""
    spec = config.openings
    try:
        if spec.startswith("random:"):
            try:
                plies = int(spec.removeprefix("random:"))
            except ValueError:
                raise OpeningsError(f"bad openings {spec!r}: expected random:PLIES or a file") from None
            return random_openings(config.game_type, config.rounds, plies, seed=config.seed)
        return load_openings(spec, config.game_type)
    except OpeningsError as e:
        raise ArenaError(str(e)) from None


def schedule(config: ArenaConfig, openings: list[str]) -> list[GameTask]:
    """Every game of the arena, round by round (all pairings of round 0, then round 1...).

    Game ``{i}v{j}-r{k}-a`` has player ``i`` White, ``...-b`` the same opening with colours
    swapped. Seeds come from ``SeedSequence([seed, i, j, k, swap])``.
    """
    budget = config.budget()
    threads = config.thread_limit()
    tasks = []
    for k in range(config.rounds):
        o = k % len(openings)
        for i, j in config.pairings():
            for swap in (0, 1):
                w, b = (i, j) if swap == 0 else (j, i)
                seeds = np.random.SeedSequence([config.seed, i, j, k, swap]).generate_state(2)
                white, black = config.players[w], config.players[b]
                tasks.append(GameTask(f"{i}v{j}-r{k}-{'ab'[swap]}", white, black, w, b, k, o, openings[o],
                                      config.ply_cap, (int(seeds[0]), int(seeds[1])), budget,
                                      config.player_objects.get(white), config.player_objects.get(black),
                                      (config.side_budget(white), config.side_budget(black)), config.clock,
                                      threads))
    return tasks
