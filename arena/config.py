"""What an arena plays: its settings, checked before anything runs, and where results go."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from hive_env.outcome import DEFAULT_PLY_CAP
from players import Budget, Player, PlayerSpecError, player_label

from .sprt import Sprt

MODES = ("gauntlet", "roundrobin", "sprt")
CONFIG_VERSION = 1


class ArenaError(Exception):
    """A problem with the arena's settings or results directory (a one-line message)."""


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
            own default (from its spec).
        elo0, elo1, alpha, beta: the SPRT's hypotheses and error rates (``sprt`` only).
    """

    mode: str
    players: tuple[str | Player, ...]
    games_per_pairing: int = 10
    game_type: str = "Base"
    openings: str = "random:4"
    seed: int = 0
    ply_cap: int = DEFAULT_PLY_CAP
    time_s: float | None = None
    depth: int | None = None
    sims: int | None = None
    elo0: float = 0.0
    elo1: float = 20.0
    alpha: float = 0.05
    beta: float = 0.05
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
        if self.games_per_pairing < 2 or self.games_per_pairing % 2:
            raise ArenaError(f"games per pairing must be even and >= 2 (colours alternate in pairs), "
                             f"got {self.games_per_pairing}")
        if self.seed < 0 or self.ply_cap < 1:
            raise ArenaError(f"seed must be >= 0 and ply cap >= 1 (got {self.seed}, {self.ply_cap})")
        if any(v is not None and not v > 0 for v in (self.time_s, self.depth, self.sims)):
            raise ArenaError("budget time, depth and sims must be > 0")
        if self.mode == "sprt":
            try:
                self.sprt()
            except ValueError as e:
                raise ArenaError(str(e)) from None

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
            return [(i, j) for i in range(n) for j in range(i + 1, n)]
        return [(0, j) for j in range(1, n)]

    def sprt(self) -> Sprt:
        return Sprt(self.elo0, self.elo1, self.alpha, self.beta)

    def settings(self) -> dict[str, Any]:
        """The settings as JSON-ready data (SPRT fields only for ``sprt``); a Player object is
        its label."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "player_objects"}
        out["players"] = list(self.players)
        if self.mode != "sprt":
            for key in ("elo0", "elo1", "alpha", "beta"):
                del out[key]
        return out


def default_out_dir(config: ArenaConfig, root: str | Path = "runs/arena") -> Path:
    """``root/MODE-HASH``, the hash of the settings: rerunning a command resumes it."""
    digest = hashlib.sha1(json.dumps(config.settings(), sort_keys=True).encode()).hexdigest()[:10]
    return Path(root) / f"{config.mode}-{digest}"
