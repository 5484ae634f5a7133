"""One arena game: its task, the players built from their specs, the game played to a record.

A *game task* is everything one game needs: the two player specs, the opening, the ply cap,
the budget and the players' seeds. :func:`play_game` builds both players from their specs in the
process that plays (players are never pickled), plays to the end and returns a plain-dict record
(the line ``arena.results`` stores in ``games.jsonl``). A side given as a Player object
(``ArenaConfig.player_objects``) plays as that object, in this process, and stays open.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from hive_env import BLACK_WINS, WHITE_WINS, Game, IllegalMoveError
from players import Budget, Player, PlayerSpecError, make_player, search_stats
from players.base import prepare_for
from players.uhp_client import UhpEngineError, UhpIllegalMoveError, clip

from .config import ArenaConfig, ArenaError

DETAIL_CHARS = 300
"""A record's ``detail`` (why a player lost by fault) is clipped to this many characters."""


@dataclass(frozen=True)
class GameTask:
    """One scheduled game. ``id`` is unique in its arena and stable across reruns. ``white`` and
    ``black`` are specs, or the labels of ``white_player`` / ``black_player``: Player objects
    played as they are (not picklable in general: such a task plays in the arena's process)."""

    id: str
    white: str
    black: str
    white_index: int
    black_index: int
    round: int
    opening_index: int
    opening: str
    ply_cap: int
    seeds: tuple[int, int]
    budget: Budget | None = None
    white_player: Player | None = field(default=None, compare=False, repr=False)
    black_player: Player | None = field(default=None, compare=False, repr=False)


def play_game(task: GameTask) -> dict[str, Any]:
    """Build both players from their specs (or take the task's Player objects), play the game,
    return its record.

    The game ends with the rules (a surrounded Queen, repetition: ``termination`` is the UHP
    GameState), at the ply cap (a draw, ``PlyCap``; the GameString stays ``InProgress``), or with
    a loss for the player at fault: ``IllegalMove`` when it answers an illegal move (an external
    engine: also garbage, or no move), ``EngineError`` when an external engine fails (it cannot
    start, dies, times out, refuses a command or loses sync). Those records carry a short
    ``detail``. Other player errors propagate. ``white_score`` is 1, 0.5 or 0.

    Time is measured around ``choose`` alone. ``move_seconds`` holds one entry per move played
    after the opening, in play order (move ``k`` is ply ``plies - len(move_seconds) + k``, White's
    on even plies), and ``move_stats`` beside it the mover's ``players.base.search_stats`` (e.g.
    ``{"sims": 812}``), or null when it reports none. ``white_seconds`` and ``black_seconds`` are
    each side's whole time, a last failed ``choose`` (an illegal move, an engine error) included.
    """
    start = time.perf_counter()
    game = Game.from_string(task.opening)
    spent = [0.0, 0.0]
    move_seconds: list[float] = []
    move_stats: list[dict[str, int] | None] = []
    players: list[Player] = []
    built: list[Player] = []  # closed at the end; Player objects stay open (their owner's)
    termination, white_score, detail = "", 0.5, ""
    side = 0
    try:
        sides = ((task.white, task.white_player), (task.black, task.black_player))
        for side, (spec, given) in enumerate(sides):
            if given is None:
                built.append(make_player(spec, task.seeds[side]))
            players.append(given if given is not None else built[-1])
        while not game.is_over and game.ply < task.ply_cap:
            side = game.side_to_move
            tick = time.perf_counter()
            try:
                move = players[side].choose(game, task.budget)
            finally:
                took = time.perf_counter() - tick
                spent[side] += took
            stats = search_stats(players[side])
            try:
                game.play(int(move))
            except IllegalMoveError as e:
                termination, detail = "IllegalMove", f"played {move}: {e}"
                break
            move_seconds.append(round(took, 4))
            move_stats.append(stats or None)
    except UhpEngineError as e:  # an external engine's fault: its loss, and the arena goes on
        termination = "IllegalMove" if isinstance(e, UhpIllegalMoveError) else "EngineError"
        detail = str(e)
    finally:
        for p in built:
            p.close()
    if termination:
        white_score = float(side)
        detail = clip(f"{'white' if side == 0 else 'black'} {detail}", DETAIL_CHARS)
    elif game.is_over:
        termination = game.state
        white_score = {WHITE_WINS: 1.0, BLACK_WINS: 0.0}.get(game.status, 0.5)
    else:
        termination = "PlyCap"
    result = {1.0: "1-0", 0.0: "0-1"}.get(white_score, "1/2-1/2")
    record = {"id": task.id, "white": task.white, "black": task.black, "white_index": task.white_index,
              "black_index": task.black_index, "round": task.round, "opening": task.opening_index,
              "result": result, "white_score": white_score, "termination": termination,
              "plies": game.ply, "seconds": round(time.perf_counter() - start, 4),
              "white_seconds": round(spent[0], 4), "black_seconds": round(spent[1], 4),
              "move_seconds": move_seconds, "move_stats": move_stats,
              "seeds": list(task.seeds), "game_string": game.game_string()}
    if detail:
        record["detail"] = detail
    return record


def check_players(config: ArenaConfig) -> list[str]:
    """Build (and close) every player once, so a bad spec fails before any game starts; a Player
    object is prepared for the game type (``players.base.prepare_for``), not closed.

    Returns:
        the modules defining the players' classes, for worker processes to import (a kind
        registered outside ``players.registry`` is registered by importing its player's module).
    """
    modules = []
    needed = Game(config.game_type).expansions
    for spec in config.players:
        given = config.player_objects.get(spec)
        try:
            player = make_player(spec, seed=0) if given is None else given
            supported = getattr(player, "expansions", needed)  # external engines say what they play
            try:
                prepare_for(player, config.game_type)  # a network player: one for this type
            finally:
                if given is None:
                    player.close()
        except PlayerSpecError as e:
            raise ArenaError(str(e)) from None
        except Exception as e:  # an engine that does not start, a missing checkpoint...
            raise ArenaError(f"cannot build player {spec!r}: {' '.join(str(e).split())}") from None
        if needed & ~supported:
            raise ArenaError(f"player {spec!r} does not support game type {config.game_type}")
        if given is None:
            modules.append(type(player).__module__)
    return modules
