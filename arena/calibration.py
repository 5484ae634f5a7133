"""The ladder's calibration: the rungs' round robin among themselves, shipped as data.

A ladder (``arena.ladder``) is a star: each rung plays only the player, so its games cannot place
the rungs relative to each other. A calibration adds what the star lacks: the rungs' games against
each other (``hive-arena calibrate``), with how they were played, in ``arena/data/`` (one file a
game type, :func:`calibration_path`); the ladder pools them with its own games in one rating fit,
when the rungs played under the same conditions (:meth:`Calibration.mismatch`).

See docs/arena.md (``ladder``: one rating from all the games).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from hive_env.files import write_atomic
from hive_env.records.arena_record import ArenaRecord

from .config import ArenaConfig
from .report import ArenaReport

DATA_DIR = Path(__file__).resolve().parent / "data"
"""Where the shipped calibrations live (package data)."""
FILE_STEM = "ladder_rungs"


def calibration_path(game_type: str, data_dir: Path = DATA_DIR) -> Path:
    """``ladder_rungs.json`` for Base, ``ladder_rungs_base_mlp.json`` for ``Base+MLP``."""
    if game_type == "Base":
        return data_dir / f"{FILE_STEM}.json"
    return data_dir / f"{FILE_STEM}_{re.sub(r'[^a-z0-9]+', '_', game_type.lower())}.json"


@dataclass(frozen=True)
class Calibration:
    """The rungs' pairwise results and the conditions they were played under.

    ``wdl`` maps ``(a, b)`` (``a`` before ``b`` in ``rungs``) to ``a``'s wins, draws and losses
    against ``b``. ``name`` is the file's name, ``play_seconds`` the games' summed time.
    """

    name: str
    command: str
    game_type: str
    openings: str
    ply_cap: int
    seed: int
    games_per_pairing: int
    rungs: tuple[str, ...]
    wdl: dict[tuple[str, str], tuple[int, int, int]]
    play_seconds: float | None = None

    @property
    def games(self) -> int:
        return sum(sum(c) for c in self.wdl.values())

    def pairing(self, a: str, b: str) -> tuple[int, int, int] | None:
        """``a``'s wins, draws and losses against ``b``; None when they did not play."""
        if (a, b) in self.wdl:
            return self.wdl[a, b]
        if (b, a) in self.wdl:
            w, d, lost = self.wdl[b, a]
            return lost, d, w
        return None

    def mismatch(self, config: ArenaConfig) -> str | None:
        """Why this calibration does not hold for the rungs of ``config`` (one line), or None: it
        holds for the same game type, openings and ply cap, and no budget for every move (a time
        budget, as in equal-time ladders, or a depth or simulations override changes what the
        rungs are). Rungs it does not hold (an external engine given with ``--extra``) stay in the
        ladder's fit as they were: they play only the player, so they place only themselves."""
        if config.game_type != self.game_type:
            return f"no calibration of the rungs for game type {config.game_type}"
        if config.time_s is not None or config.clock is not None:
            return "a time budget changes the rungs' strength: no calibration applies"
        if config.depth is not None or config.sims is not None:
            return "a depth or simulations budget for every player changes the rungs: no calibration applies"
        for key in ("openings", "ply_cap"):
            if (ours := getattr(config, key)) != (theirs := getattr(self, key)):
                return f"{key.replace('_', ' ')} {ours}, not the calibration's {theirs} ({self.name})"
        return None

    def to_json(self) -> dict[str, Any]:
        return {"what": "the ladder rungs' round robin among themselves (arena.calibration): "
                        "wins, draws and losses of a against b",
                "command": self.command, "game_type": self.game_type, "openings": self.openings,
                "ply_cap": self.ply_cap, "seed": self.seed, "games_per_pairing": self.games_per_pairing,
                "games": self.games, "play_seconds": self.play_seconds, "rungs": list(self.rungs),
                "pairings": [{"a": a, "b": b, "wins": w, "draws": d, "losses": lost}
                             for (a, b), (w, d, lost) in self.wdl.items()]}

    @classmethod
    def from_json(cls, data: dict[str, Any], name: str) -> Calibration:
        """Raises KeyError, TypeError or ValueError on a file that is not a calibration."""
        wdl = {(p["a"], p["b"]): (int(p["wins"]), int(p["draws"]), int(p["losses"]))
               for p in data["pairings"]}
        return cls(name, str(data["command"]), str(data["game_type"]), str(data["openings"]),
                   int(data["ply_cap"]), int(data["seed"]), int(data["games_per_pairing"]),
                   tuple(data["rungs"]), wdl, data.get("play_seconds"))


def calibration_of(report: ArenaReport, command: str, name: str) -> Calibration:
    """The calibration a finished round robin of the rungs gives."""
    config = report.config
    players = config.players
    wdl = {(players[i], players[j]): (st.wins, st.draws, st.losses) for i, j, st in report.pairings}
    seconds = round(sum(float(ArenaRecord.from_json(r).seconds) for r in report.records), 1)
    return Calibration(name, command, config.game_type, config.openings, config.ply_cap, config.seed,
                       config.games_per_pairing, players, wdl, seconds)


def write_calibration(calibration: Calibration, path: str | Path) -> Path:
    """The calibration's JSON at ``path``, atomically."""
    return write_atomic(path, json.dumps(calibration.to_json(), indent=1) + "\n")


def read_calibration(path: str | Path) -> Calibration:
    """Raises ValueError (one line naming the file) when it is not a calibration."""
    path = Path(path)
    try:
        return Calibration.from_json(json.loads(path.read_text()), path.name)
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ValueError(f"{path}: not a calibration of the ladder's rungs ({type(e).__name__}: {e})") \
            from None


@cache
def shipped_calibrations(data_dir: Path = DATA_DIR) -> tuple[Calibration, ...]:
    """The calibrations in ``data_dir`` (``ladder_rungs*.json``), by file name."""
    return tuple(read_calibration(p) for p in sorted(data_dir.glob(f"{FILE_STEM}*.json")))


def select_calibration(calibrations: Sequence[Calibration],
                       config: ArenaConfig) -> tuple[Calibration | None, str | None]:
    """The first calibration that holds for ``config`` and None, or None and why none does (the
    reason of one of its game type when there is one)."""
    reasons = []
    for calibration in calibrations:
        reason = calibration.mismatch(config)
        if reason is None:
            return calibration, None
        reasons.append((calibration.game_type != config.game_type, reason))
    if not reasons:
        return None, "no calibration of the rungs"
    return None, min(reasons)[1]


__all__ = [
    "DATA_DIR",
    "Calibration",
    "calibration_of",
    "calibration_path",
    "read_calibration",
    "select_calibration",
    "shipped_calibrations",
    "write_calibration",
]
