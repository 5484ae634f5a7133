"""One arena game: its task, the players built from their specs, the game played to a record.

A *game task* is everything one game needs: the two player specs, the opening, the ply cap,
each side's budget (or the game clock), the thread limit and the players' seeds.
:func:`play_game` builds both players from their specs in the process that plays (players are
never pickled), plays to the end and returns its record: the JSON object of the line
``arena.results`` stores in ``games.jsonl`` (``hive_env.records.arena_record``: its fields, its
one writer and reader). A side given as a Player object (``ArenaConfig.player_objects``) plays
as that object, in this process, and stays open.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hive_env import BLACK_WINS, WHITE_WINS, Game, IllegalMoveError
from hive_env.records.arena_record import RESULTS, ArenaRecord
from players import Budget, Player, PlayerSpecError, make_player, search_stats
from players.base import prepare_for
from players.clock import ClockControl, GameClock
from players.registry import spec_option
from players.uhp_client import UhpEngineError, UhpIllegalMoveError, UhpTimeoutError, clip

from .config import ArenaConfig, ArenaError
from .terminations import rules_termination

DETAIL_CHARS = 300
"""A record's ``detail`` (why a player lost by fault) is clipped to this many characters."""


@dataclass(frozen=True)
class GameTask:
    """One scheduled game. ``id`` is unique in its arena and stable across reruns. ``white`` and
    ``black`` are specs, or the labels of ``white_player`` / ``black_player``: Player objects
    played as they are (not picklable in general: such a task plays in the arena's process).
    ``budgets`` are White's and Black's budget a move (a spec's ``time=`` over the arena's
    ``--time``); ``clock`` a clock control (``"60+1"``: the budgets are then each move's share of
    the clock); ``threads`` the search threads each side is asked to use (None: its own)."""

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
    budgets: tuple[Budget | None, Budget | None] | None = None
    clock: str | None = None
    threads: int | None = None

    def side_budget(self, side: int) -> Budget | None:
        """Side ``side``'s budget a move (0 White, 1 Black) when there is no clock."""
        return self.budget if self.budgets is None else self.budgets[side]


def limit_threads(player: object, spec: str, threads: int | None) -> None:
    """Ask ``player`` for ``threads`` search threads when it can be asked (an external engine's
    ``limit_threads``) and its spec does not set them itself (``threads=``)."""
    limit = getattr(player, "limit_threads", None)
    if threads is not None and callable(limit) and spec_option(spec, "threads") is None:
        limit(threads)


def play_game(task: GameTask, clock: Callable[[], float] = time.perf_counter) -> dict[str, Any]:
    """Build both players from their specs (or take the task's Player objects), play the game,
    return its record.

    The game ends with the rules, at the ply cap, or with a loss for the side at fault; the
    record's ``termination`` says which (``arena.terminations``: the vocabulary) and a fault's
    ``detail`` says who and why. Every fault of a player is its loss and the arena goes on: an
    external engine's (it cannot start, dies, hangs, refuses a command, loses sync, answers
    garbage or an illegal move) as much as one of ours (an exception in ``choose``:
    ``player_error``). ``white_score`` is 1, 0.5 or 0.

    With a clock (``task.clock``) each move's budget is the time manager's share of the mover's
    clock (``players.clock``), the move's real time is charged to it, and a side whose clock runs
    out loses (``time_forfeit``); ``clock_left`` holds both clocks at the end.

    Time is measured with ``clock`` around ``choose`` alone. ``move_seconds`` holds one entry
    per move played after the opening, in play order (move ``k`` is ply ``plies -
    len(move_seconds) + k``, White's on even plies), and ``move_stats`` beside it the mover's
    ``players.base.search_stats`` (e.g. ``{"sims": 812}``), or null when it reports none.
    ``white_seconds`` and ``black_seconds`` are each side's whole time, a last failed ``choose``
    included. ``threads`` are each side's search threads as the player reports them (null:
    unknown), ``cpus`` the cores this process may run on (one: pinned), ``resyncs`` how often an
    external engine's game had to be sent again (null for other players).
    """
    start = clock()
    game = Game.from_string(task.opening)
    spent = [0.0, 0.0]
    move_seconds: list[float] = []
    move_stats: list[dict[str, int] | None] = []
    players: list[Player] = []
    built: list[Player] = []  # closed at the end; Player objects stay open (their owner's)
    termination, white_score, detail = "", 0.5, ""
    timer = GameClock(ClockControl.parse(task.clock)) if task.clock else None
    side = 0
    took = 0.0
    try:
        sides = ((task.white, task.white_player), (task.black, task.black_player))
        for side, (spec, given) in enumerate(sides):
            if given is None:
                built.append(make_player(spec, task.seeds[side]))
                limit_threads(built[-1], spec, task.threads)
            players.append(given if given is not None else built[-1])
        while not game.is_over and game.ply < task.ply_cap:
            side = game.side_to_move
            budget = Budget(time_s=timer.share(side), max_time_s=timer.allowance(side)) if timer \
                else task.side_budget(side)
            tick = clock()
            try:
                move = players[side].choose(game, budget)
            finally:
                took = clock() - tick
                spent[side] += took
            if timer is not None and timer.charge(side, took):
                had = timer.remaining[side] + took
                termination, detail = "time_forfeit", f"took {took:.3f} s with {had:.3f} s left"
                break
            stats = search_stats(players[side])
            try:
                game.play(int(move))
            except IllegalMoveError as e:
                termination, detail = "illegal_move", f"played {move}: {e}"
                break
            move_seconds.append(round(took, 4))
            move_stats.append(stats or None)
    except UhpEngineError as e:  # an external engine's fault: its loss, and the arena goes on
        termination, detail = _engine_fault(e), str(e)
        if timer is not None and len(players) == 2 and timer.charge(side, took):  # failed in a move
            termination = "time_forfeit"
    except Exception as e:  # one of our players failed: its loss, as an engine's fault is
        termination, detail = "player_error", f"{type(e).__name__}: {' '.join(str(e).split())}"
    finally:
        for p in built:
            p.close()
    if termination:
        white_score = float(side)
        detail = clip(f"{'white' if side == 0 else 'black'} {detail}", DETAIL_CHARS)
    elif game.is_over:
        termination = rules_termination(game)
        white_score = {WHITE_WINS: 1.0, BLACK_WINS: 0.0}.get(game.status, 0.5)
    else:
        termination = "ply_cap"
    return ArenaRecord(
        id=task.id, white=task.white, black=task.black, white_index=task.white_index,
        black_index=task.black_index, round=task.round, opening=task.opening_index,
        result=RESULTS[white_score], white_score=white_score, termination=termination, plies=game.ply,
        seconds=round(clock() - start, 4),
        white_seconds=round(spent[0], 4), black_seconds=round(spent[1], 4), move_seconds=move_seconds,
        move_stats=move_stats, seeds=list(task.seeds), game_string=game.game_string(),
        threads=_per_side(players, _threads), cpus=_cpus(),
        resyncs=_per_side(players, lambda p: getattr(p, "resyncs", None)),
        clock=task.clock if timer is not None else None,
        clock_left=[round(x, 4) for x in timer.remaining] if timer is not None else None,
        detail=detail or None).to_json()


def _engine_fault(error: UhpEngineError) -> str:
    if isinstance(error, UhpIllegalMoveError):
        return "illegal_move"
    return "engine_timeout" if isinstance(error, UhpTimeoutError) else "engine_crash"


def _per_side(players: list[Player], value: Callable[[Player], Any]) -> list[Any]:
    """``[white's, black's]`` value (None for a side whose player was never built)."""
    return [value(p) for p in players] + [None] * (2 - len(players))


def _threads(player: object) -> int | None:
    value = getattr(player, "threads", None)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _cpus() -> list[int] | None:
    try:
        return sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        return None


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
