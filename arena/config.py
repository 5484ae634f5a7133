"""What an arena plays: its settings, checked before anything runs, and where results go."""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from hive_env.outcome import DEFAULT_PLY_CAP
from hive_zero.checks import RangeError, bounded, check_ranges
from hive_zero.options import default_of
from players import Budget, Player, PlayerSpecError, player_label
from players.clock import ClockControl, ClockError
from players.registry import spec_option

from .sprt import Sprt

MODES = ("gauntlet", "roundrobin", "sprt")
CONFIG_VERSION = 1


class ArenaError(Exception):
    """A problem with the arena's settings or results directory (a one-line message)."""


STOPPING = (ArenaError, ValueError, OSError, KeyboardInterrupt)
"""What ends a command's matches without a traceback (:func:`say_stopped`): the games played are kept."""


def say_stopped(command: str, e: BaseException) -> int:
    """Say in one line why ``command``'s matches stopped (one of :data:`STOPPING`) and how to go
    on; the exit status: 130 for Ctrl-C, 2 for a bad setting, file or results directory."""
    if isinstance(e, KeyboardInterrupt):
        print(f"\n{command}: interrupted; rerun the same command to resume", file=sys.stderr)
        return 130
    print(f"{command}: error: {e}", file=sys.stderr)
    return 2


# ----- settings -----------------------------------------------------------------------------
@dataclass(frozen=True)
class ArenaConfig:
    """What an arena plays. Everything here must match for a resume, except that
    ``games_per_pairing`` may grow (the games played are kept; see ``arena.results``).

    Args:
        mode: ``gauntlet``, ``roundrobin`` or ``sprt``.
        players: player specs (``players.registry``) or :class:`~players.base.Player` objects;
            gauntlet: the first against the rest; sprt: ``(A, B)``, testing A against B. An
            object is stored by its label (``players.registry.player_label``: its ``name``, else
            its class name) in ``players``, and itself in ``player_objects``; it plays every game
            of its own in the arena's process (``workers=1``), keeping its own seed and state,
            and the arena never closes it (its owner does). Specs are built afresh for each game.
        games_per_pairing: even; for ``sprt`` the most games to play.
        game_type: e.g. ``"Base"``.
        openings: ``"random:PLIES"`` (random openings drawn from ``seed``) or a file of GameStrings.
        seed: seeds the random openings and every player.
        ply_cap: a game still going at this ply (counted from the empty board) is a draw.
        time_s, depth, sims: a budget for every move of every player; all None: each player's
            own default (from its spec). A spec's own ``time=`` overrides ``time_s`` for that
            player (time odds: ``alphazero:time=1`` against ``uhp:...,time=3``).
        clock: a game clock ``"BASE+INC"`` seconds (``players.clock``) instead of a budget a move:
            each side's moves share its clock, and a side whose clock runs out loses.
        threads: search threads asked of each side (external engines: UHP ``NumThreads``, unless
            the spec sets ``threads=``; our players search on one). None: 1 in a timed match
            (``time_s``, ``clock`` or a spec's ``time=``: one core a side, and each worker
            process pinned to a core of its own where the machine has one per worker), else each
            player's own.
        elo0, elo1, alpha, beta: the SPRT's hypotheses and error rates (``sprt`` only; by default
            :class:`~arena.sprt.Sprt`'s).
        pairs: a round robin's schedule, the player index pairs ``(i, j)`` with ``i < j`` that
            meet (None: every pair). A rating fit needs only a connected schedule, so a large
            field (``scripts/calibrate_levels.py``) plays each player against those near it.
    """

    mode: str
    players: tuple[str | Player, ...]
    games_per_pairing: int = bounded(10, ge=2, even=True, note="colours alternate in pairs",
                                     label="games per pairing")
    game_type: str = "Base"
    openings: str = "random:4"
    seed: int = bounded(0, ge=0)
    ply_cap: int = bounded(DEFAULT_PLY_CAP, ge=1, label="ply cap")
    time_s: float | None = bounded(None, gt=0.0, label="budget time")
    depth: int | None = bounded(None, gt=0, label="budget depth")
    sims: int | None = bounded(None, gt=0, label="budget sims")
    elo0: float = default_of(Sprt, "elo0")
    elo1: float = default_of(Sprt, "elo1")
    alpha: float = default_of(Sprt, "alpha")
    beta: float = default_of(Sprt, "beta")
    clock: str | None = None
    threads: int | None = bounded(None, ge=1)
    pairs: tuple[tuple[int, int], ...] | None = None
    player_objects: Mapping[str, Player] = field(default_factory=dict, compare=False, repr=False)
    """The :class:`Player` objects among the players, by label (filled from ``players``)."""

    def __post_init__(self) -> None:
        """Raise :class:`ArenaError` naming the first bad setting: an ArenaConfig that exists is valid."""
        labels, objects = [], dict(self.player_objects)
        for player in self.players:
            try:
                label = player_label(player)
            except PlayerSpecError as e:
                raise ArenaError(str(e)) from None
            if not isinstance(player, str):
                objects.setdefault(label, player)
            labels.append(label)
        object.__setattr__(self, "players", tuple(labels))
        object.__setattr__(self, "player_objects", {k: objects[k] for k in labels if k in objects})
        n = len(self.players)
        if self.mode not in MODES:
            raise ArenaError(f"unknown mode {self.mode!r} (one of {', '.join(MODES)})")
        if len(set(self.players)) != n:
            hint = " (a Player object is named by its name attribute, else its class)" if objects else ""
            raise ArenaError(f"a player is named twice: {', '.join(self.players)}{hint}")
        if n < 2 or (self.mode == "sprt" and n != 2):
            need = "exactly two players" if self.mode == "sprt" else "at least two players"
            raise ArenaError(f"{self.mode} needs {need} (got {n})")
        try:
            check_ranges(self)
        except RangeError as e:
            raise ArenaError(str(e)) from None
        if self.clock is not None:
            self._check_clock()
        if self.pairs is not None:
            self._check_pairs()
        if self.mode == "sprt":
            try:
                self.sprt()
            except ValueError as e:
                raise ArenaError(str(e)) from None

    def _check_clock(self) -> None:
        """A clock replaces every other budget: one control for both sides, no spec ``time=``."""
        try:
            control = ClockControl.parse(self.clock)
        except ClockError as e:
            raise ArenaError(str(e)) from None
        object.__setattr__(self, "clock", str(control))
        if any(v is not None for v in (self.time_s, self.depth, self.sims)):
            raise ArenaError("a clock replaces the budget a move: give --clock without --time, --depth "
                             "or --sims")
        timed = [p for p in self.players if p not in self.player_objects and spec_time(p) is not None]
        if timed:
            raise ArenaError(f"{timed[0]}: a spec's time= is a budget a move; with a clock every move's "
                             "time comes from the clock")

    def _check_pairs(self) -> None:
        """An explicit schedule: a round robin's, distinct pairs ``i < j`` of its players."""
        if self.mode != "roundrobin":
            raise ArenaError(f"a schedule of pairs is a round robin's, not a {self.mode}'s")
        n = len(self.players)
        try:
            pairs = tuple(sorted({(int(i), int(j)) for i, j in self.pairs}))
        except (TypeError, ValueError):
            raise ArenaError("pairs: a list of player index pairs (i, j)") from None
        bad = next((p for p in pairs if not 0 <= p[0] < p[1] < n), None)
        if bad is not None:
            raise ArenaError(f"pairs: {bad} is not two players i < j of the {n}")
        if not pairs:
            raise ArenaError("pairs: the schedule is empty")
        object.__setattr__(self, "pairs", pairs)

    def thread_limit(self) -> int | None:
        """The threads asked of each side: ``threads``, else 1 in a timed match (``time_s``, a
        clock, or a spec's own ``time=``), else None (each player's own)."""
        if self.threads is not None:
            return self.threads
        timed = self.time_s is not None or self.clock is not None or any(
            p not in self.player_objects and spec_time(p) is not None for p in self.players)
        return 1 if timed else None

    def side_budget(self, player: str) -> Budget | None:
        """The budget a move of ``player`` (a spec or label): the arena's, with the spec's own
        ``time=`` in place of its time."""
        own = None if player in self.player_objects else spec_time(player)
        budget = self.budget()
        if own is None:
            return budget
        return Budget(time_s=own, depth=self.depth, sims=self.sims)

    @property
    def rounds(self) -> int:
        """Colour-swapped game pairs per pairing."""
        return self.games_per_pairing // 2

    def budget(self) -> Budget | None:
        b = Budget(time_s=self.time_s, depth=self.depth, sims=self.sims)
        return None if b.is_empty() else b

    def pairings(self) -> list[tuple[int, int]]:
        """Player index pairs ``(i, j)``; results are reported from ``i``'s side."""
        n = len(self.players)
        if self.mode == "roundrobin":
            if self.pairs is not None:
                return list(self.pairs)
            return [(i, j) for i in range(n) for j in range(i + 1, n)]
        return [(0, j) for j in range(1, n)]

    def sprt(self) -> Sprt:
        return Sprt(self.elo0, self.elo1, self.alpha, self.beta)

    def settings(self) -> dict[str, Any]:
        """The settings as JSON-ready data (SPRT fields only for ``sprt``); a Player object is
        its label."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "player_objects"}
        out["players"] = list(self.players)
        del out["threads"]
        if self.thread_limit() is not None:  # absent in untimed arenas (older ones resume)
            out["threads"] = self.thread_limit()
        if self.clock is None:
            del out["clock"]
        if self.pairs is None:  # absent unless given (older arenas resume)
            del out["pairs"]
        else:
            out["pairs"] = [list(p) for p in self.pairs]
        if self.mode != "sprt":
            for key in ("elo0", "elo1", "alpha", "beta"):
                del out[key]
        return out


def spec_time(spec: str) -> float | None:
    """The ``time=`` of a spec (seconds), or None when it gives none or is no spec."""
    text = spec_option(spec, "time")
    try:
        return float(text) if text is not None else None
    except ValueError:
        return None


def default_out_dir(config: ArenaConfig, root: str | Path = "runs/arena") -> Path:
    """``root/MODE-HASH``, the hash of the settings: rerunning a command resumes it."""
    digest = hashlib.sha1(json.dumps(config.settings(), sort_keys=True).encode()).hexdigest()[:10]
    return Path(root) / f"{config.mode}-{digest}"
