"""The ladder: one fixed, reproducible strength measurement of a player.

A ladder is a gauntlet of one player against fixed rungs (random, greedy, alphabeta depths 1-4,
any extra engines) with fixed settings (seed 0, openings random:4, ply cap 300, 100 games per
pairing), and one number as its result: the player's Elo relative to :data:`ANCHOR` with its 95%
interval, pooled with the rungs' shipped calibration where one holds (:func:`pooled_fit`), else
from the games against the anchor alone; printed as one line and stored in ``ladder.json``.

See docs/arena.md (``ladder``).
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hive_env.files import write_atomic
from hive_env.outcome import DEFAULT_PLY_CAP
from players import Player, PlayerSpecError, player_label

from .arena import run_arena
from .calibration import Calibration, calibration_of, select_calibration, shipped_calibrations
from .config import ArenaConfig, ArenaError
from .ratings import PRIOR_DRAWS, PairingStats, fit_elo, game_scores, tally
from .report import STAT_KEYS, ArenaReport

DEPTHS = (1, 2, 3, 4)
"""The alphabeta rungs' depths."""
EQUAL_TIME_DEPTHS = (2,)
"""The default depths of an equal-time ladder: a time budget overrides the depth, so one rung."""
ANCHOR = "alphabeta:depth=2"
"""The rung rated 0; ``random`` is the anchor when the rungs leave it out."""
GAMES_PER_PAIRING = 100
OPENINGS = "random:4"
LADDER_FILE = "ladder.json"
CALIBRATION_SEED = 1
"""The shipped calibration's seed: other openings than the ladders' (seed 0)."""


def ladder_opponents(depths: Sequence[int] = DEPTHS, extra: Sequence[str] = ()) -> tuple[str, ...]:
    """The rungs: ``random``, ``greedy``, ``alphabeta:depth=D`` for each depth, then ``extra``
    (those not on the ladder already)."""
    rungs = ("random", "greedy", *(f"alphabeta:depth={d}" for d in depths))
    return (*rungs, *(e for e in dict.fromkeys(extra) if e not in rungs))


def ladder_anchor(players: Sequence[str]) -> str:
    """:data:`ANCHOR` when it plays, else ``random``."""
    return ANCHOR if ANCHOR in players else "random"


def anchor_note(players: Sequence[str]) -> str | None:
    """One line when the ladder of ``players`` (the player first) is not rated against
    :data:`ANCHOR` as promised, or its Elo is 0 by definition; None otherwise."""
    anchor = ladder_anchor(players)
    if anchor == players[0]:
        return f"the player is the anchor {anchor}: its Elo vs {anchor} is 0 by definition"
    if anchor != ANCHOR:
        return f"{ANCHOR} is not among the rungs (add depth 2 to --depths): the Elo is relative to {anchor}"
    return None


def ladder_config(player: str | Player, depths: Sequence[int] | None = None, extra: Sequence[str] = (),
                  games_per_pairing: int = GAMES_PER_PAIRING, equal_time: float | None = None,
                  seed: int = 0, ply_cap: int = DEFAULT_PLY_CAP, game_type: str = "Base") -> ArenaConfig:
    """The gauntlet of ``player`` against the ladder (a rung equal to ``player`` is left out).

    Args:
        player: the player measured: a spec, or a Player object (``ArenaConfig``: played in
            this process, ``workers=1``).
        depths: the alphabeta rungs (None: :data:`DEPTHS`, or :data:`EQUAL_TIME_DEPTHS` with
            ``equal_time``).
        extra: more opponents (player specs).
        games_per_pairing: even.
        equal_time: seconds per move for every player (the arena's ``time_s``, which overrides
            the specs; docs/arena.md, ``--equal-time``), or None: each player's own budget.
        seed: seeds the openings and the players.
        ply_cap: a game reaching this ply is a draw.
        game_type: e.g. ``"Base"``.
    """
    if depths is None:
        depths = DEPTHS if equal_time is None else EQUAL_TIME_DEPTHS
    try:
        label = player_label(player)
    except PlayerSpecError as e:
        raise ArenaError(str(e)) from None
    opponents = tuple(o for o in ladder_opponents(depths, extra) if o != label)
    return ArenaConfig("gauntlet", (player, *opponents), games_per_pairing, game_type, OPENINGS, seed,
                       ply_cap, time_s=equal_time)


@dataclass(frozen=True)
class LadderResult:
    """The player's Elo relative to the anchor, and its score against each opponent.

    ``elo``, ``lo``, ``hi``: from the fit pooled with a calibration (``rating == "pooled"``,
    ``calibration`` the file's name, ``calibration_games`` its games between the ladder's rungs,
    ``pooled_elos`` every player's Elo in that fit) or from the games against the anchor alone
    (``rating == "anchor"``; ``rating_note`` says why when a calibration was sought): see
    :func:`ladder_result`. ``anchor_only`` holds the anchor-only numbers when pooled (None: they
    are ``elo``).
    ``scores`` maps each opponent spec to ``games``, ``wins``, ``draws``, ``losses``, ``score``
    and the pairing's 95% intervals (``score_lo``, ``score_hi``, ``elo``, ``elo_lo``, ``elo_hi``:
    ``arena.ratings.pairing_stats``, None where not finite). ``anchor_games`` are the games
    against the anchor (the interval rests on them); without any the player is unrated (NaN).
    ``per_move`` maps every player's spec to its mean ``seconds_per_move``, ``sims_per_move`` and
    ``nodes_per_move`` over all its games (None: unknown). ``prior_draws`` is the rating model's
    prior, ``note`` the :func:`anchor_note` of the ladder's players.
    """

    player: str
    anchor: str
    elo: float
    lo: float
    hi: float
    games: int
    anchor_games: int
    equal_time: float | None = None
    complete: bool = True
    scores: dict[str, dict[str, Any]] = field(default_factory=dict)
    per_move: dict[str, dict[str, float | None]] = field(default_factory=dict)
    prior_draws: float = PRIOR_DRAWS
    note: str | None = None
    rating: str = "anchor"
    calibration: str | None = None
    calibration_games: int = 0
    rating_note: str | None = None
    anchor_only: tuple[float, float, float] | None = None
    pooled_elos: dict[str, float | None] = field(default_factory=dict)

    @property
    def rated(self) -> bool:
        return math.isfinite(self.elo)

    @property
    def anchor_rating(self) -> tuple[float, float, float]:
        """The Elo and interval from the games against the anchor alone."""
        return self.anchor_only if self.anchor_only is not None else (self.elo, self.lo, self.hi)

    def line(self) -> str:
        """``ladder: PLAYER  Elo vs ANCHOR: +35 [-40, +110] (600 games, 100 vs ANCHOR)``; pooled:
        ``+35 [-20, +90] pooled (600 games, 100 vs ANCHOR, 1500 between the rungs)``; then (inside
        the brackets) the time a move with ``equal_time`` and what the player and the anchor spent
        per move when known: ``; per move: PLAYER 0.1930 s 812 sims, ANCHOR ...``."""
        tail = f"; {self.equal_time:g} s a move each" if self.equal_time is not None else ""
        spent = [f"{spec} {text}" for spec in (self.player, self.anchor)
                 if (text := _per_move_text(self.per_move.get(spec, {})))]
        if spent:
            tail += f"; per move: {', '.join(spent)}"
        rating = f"{_signed(self.elo)} [{_signed(self.lo)}, {_signed(self.hi)}]" if self.rated else "unrated"
        counts = f"{self.games} games, {self.anchor_games} vs {self.anchor}"
        if self.rating == "pooled":
            rating += " pooled"
            counts += f", {self.calibration_games} between the rungs"
        return f"ladder: {self.player}  Elo vs {self.anchor}: {rating} ({counts}{tail})"

    def to_json(self) -> dict[str, Any]:
        """The contents of ``ladder.json`` (non-finite numbers as null)."""
        anchor_elo, anchor_lo, anchor_hi = self.anchor_rating
        return {"summary": self.line(), "player": self.player, "anchor": self.anchor,
                "elo": _finite(self.elo), "lo": _finite(self.lo), "hi": _finite(self.hi),
                "rating": self.rating, "calibration": self.calibration,
                "calibration_games": self.calibration_games, "rating_note": self.rating_note,
                "anchor_elo": _finite(anchor_elo), "anchor_lo": _finite(anchor_lo),
                "anchor_hi": _finite(anchor_hi), "pooled_elos": self.pooled_elos,
                "rated": self.rated, "games": self.games, "anchor_games": self.anchor_games,
                "anchor_note": self.note, "equal_time": self.equal_time,
                "complete": self.complete, "prior_draws": self.prior_draws, "scores": self.scores,
                "per_move": self.per_move}


def _per_move_text(means: dict[str, float | None]) -> str:
    """``0.1930 s 812 sims`` (seconds, then the statistics known); ``""`` without seconds."""
    seconds = means.get("seconds_per_move")
    if seconds is None:
        return ""
    known = [f"{value:.0f} {key}" for key in STAT_KEYS if (value := means.get(f"{key}_per_move")) is not None]
    return " ".join([f"{seconds:.4f} s", *known])


def _signed(x: float) -> str:
    return f"{x:+.0f}" if math.isfinite(x) else str(x)


def _finite(x: float, digits: int = 2) -> float | None:
    return round(float(x), digits) if math.isfinite(x) else None


def _score_row(st: PairingStats) -> dict[str, Any]:
    """A pairing's counts, score and intervals for ``ladder.json`` (non-finite numbers as None)."""
    return {"games": st.games, "wins": st.wins, "draws": st.draws, "losses": st.losses,
            "score": _finite(st.score, 4), "score_lo": _finite(st.score_lo, 4),
            "score_hi": _finite(st.score_hi, 4), "elo": _finite(st.elo), "elo_lo": _finite(st.elo_lo),
            "elo_hi": _finite(st.elo_hi)}


@dataclass(frozen=True)
class PooledFit:
    """The player's Elo and interval from the ladder's games pooled with a calibration's."""

    elo: float
    lo: float
    hi: float
    calibration_games: int
    elos: dict[str, float | None]


def pooled_fit(report: ArenaReport, calibration: Calibration) -> PooledFit:
    """One fit (:func:`arena.ratings.fit_elo`, the report's prior) over the gauntlet's games of
    player 0 and ``calibration``'s games between its opponents, anchored on :func:`ladder_anchor`.

    A gauntlet's games form a star: alone they place each rung relative to the player but not the
    rungs relative to each other, so the player's Elo would rest on the games against the anchor
    only. Pooled with the rungs' round robin, the games against every rung count, through the
    rungs' measured distances to the anchor, and a player far from the anchor is placed by the
    rungs near it. Player 0 stays a player of its own even when its spec is a rung's (its games are
    the ladder's); rungs the calibration does not hold (``--extra`` engines) place only themselves.
    The rungs' ratings are free in the fit, so the interval (the profile likelihood) includes how
    well the calibration places them. The fit assumes the model holds across rungs (a score
    follows from the Elo difference alone); where it does not, the pooled Elo is a compromise of
    the rungs' views, and the anchor-only numbers beside it show how far it moved."""
    players = report.config.players
    n = len(players)
    results = [(i, j, s) for i, j, st in report.pairings for s in game_scores(st.wins, st.draws, st.losses)]
    added = 0
    for i in range(1, n):
        for j in range(i + 1, n):
            if (wdl := calibration.pairing(players[i], players[j])) is not None:
                results += [(i, j, s) for s in game_scores(*wdl)]
                added += sum(wdl)
    points, games = tally(n, results)
    fit = fit_elo(points, games, players.index(ladder_anchor(players)), report.prior_draws)
    return PooledFit(float(fit.elo[0]), float(fit.lo[0]), float(fit.hi[0]), added,
                     {spec: _finite(float(e)) for spec, e in zip(players, fit.elo, strict=True)})


def _pooling(report: ArenaReport,
             calibrations: Sequence[Calibration]) -> tuple[Calibration | None, str | None]:
    """The calibration to pool with and None, or None and why the Elo rests on the anchor alone
    (None when nothing was sought: the player is the anchor)."""
    players = report.config.players
    anchor = ladder_anchor(players)
    if anchor == players[0]:
        return None, None
    calibration, reason = select_calibration(calibrations, report.config)
    if calibration is None:
        return None, reason
    held = [p for p in players[1:] if p in calibration.rungs]
    if anchor not in held:
        return None, f"{calibration.name} does not hold the anchor {anchor}"
    if len(held) < 2:
        return None, f"{calibration.name} holds only the anchor of the ladder's rungs"
    return calibration, None


def ladder_result(report: ArenaReport, calibrations: Sequence[Calibration] | None = None) -> LadderResult:
    """The ladder's numbers from a gauntlet report of player 0, whatever its fit's anchor.

    The Elo and interval are pooled with the first of ``calibrations`` that holds (None: the
    shipped ones, ``arena.calibration.shipped_calibrations``; ``()``: none), else those of the
    player's pairing against :func:`ladder_anchor`; 0 [0, 0] when the player is the anchor.
    No calibration holds for another game type, other openings or ply cap, a per-move budget for
    every player (time, depth or simulations: equal-time ladders), or one that holds fewer than
    two of the ladder's rungs (the anchor among them): ``rating_note`` says which."""
    players = report.config.players
    anchor = ladder_anchor(players)
    stats = {players[j]: st for i, j, st in report.pairings if i == 0}
    scores = {spec: _score_row(st) for spec, st in stats.items()}
    if anchor == players[0]:
        elo = lo = hi = 0.0
    else:
        st = stats.get(anchor)
        elo, lo, hi = (st.elo, st.elo_lo, st.elo_hi) if st is not None else (math.nan,) * 3
    anchor_games = scores[anchor]["games"] if anchor in scores else 0
    per_move = {players[i]: {key: _finite(value, 4 if key == "seconds_per_move" else 1)
                             for key, value in means.items()}
                for i, means in enumerate(report.per_move)}
    result = LadderResult(players[0], anchor, elo, lo, hi, int(report.fit.games[0]), anchor_games,
                          report.config.time_s, report.complete, scores, per_move, report.prior_draws,
                          anchor_note(players))
    calibration, reason = _pooling(report, shipped_calibrations() if calibrations is None else calibrations)
    if calibration is None:
        return dataclasses.replace(result, rating_note=reason)
    pooled = pooled_fit(report, calibration)
    return dataclasses.replace(result, elo=pooled.elo, lo=pooled.lo, hi=pooled.hi, rating="pooled",
                               calibration=calibration.name, calibration_games=pooled.calibration_games,
                               anchor_only=(elo, lo, hi), pooled_elos=pooled.elos)


def write_ladder(result: LadderResult, out_dir: str | Path) -> Path:
    """``out_dir/ladder.json``, atomically."""
    return write_atomic(Path(out_dir) / LADDER_FILE, json.dumps(result.to_json(), indent=1) + "\n")


def run_ladder(config: ArenaConfig, out_dir: str | Path, workers: int = 1, progress: bool = True,
               prior_draws: float = PRIOR_DRAWS) -> tuple[ArenaReport, LadderResult]:
    """Play (or finish) a ladder (:func:`ladder_config`) in ``out_dir``, anchored on
    :func:`ladder_anchor`; writes the arena's results and ``ladder.json``.

    Raises:
        ArenaError: bad settings or spec, other settings in ``out_dir`` (as ``run_arena``).
    """
    report = run_arena(config, out_dir, workers=workers, anchor=ladder_anchor(config.players),
                       progress=progress, prior_draws=prior_draws)
    result = ladder_result(report)
    write_ladder(result, out_dir)
    return report, result


def calibration_config(games_per_pairing: int = GAMES_PER_PAIRING, seed: int = CALIBRATION_SEED,
                       game_type: str = "Base", depths: Sequence[int] = DEPTHS) -> ArenaConfig:
    """The rungs' round robin among themselves, with the ladder's openings and ply cap."""
    return ArenaConfig("roundrobin", ladder_opponents(depths), games_per_pairing, game_type, OPENINGS, seed)


def run_calibration(config: ArenaConfig, out_dir: str | Path, command: str, name: str, workers: int = 1,
                    progress: bool = True) -> tuple[ArenaReport, Calibration]:
    """Play (or finish) the rungs' round robin (:func:`calibration_config`) in ``out_dir``; the
    calibration it gives (``arena.calibration``), named ``name`` and made by ``command``."""
    report = run_arena(config, out_dir, workers=workers, anchor=ANCHOR if ANCHOR in config.players else None,
                       progress=progress)
    return report, calibration_of(report, command, name)


__all__ = [
    "ANCHOR",
    "CALIBRATION_SEED",
    "DEPTHS",
    "EQUAL_TIME_DEPTHS",
    "GAMES_PER_PAIRING",
    "LadderResult",
    "PooledFit",
    "anchor_note",
    "calibration_config",
    "ladder_anchor",
    "ladder_config",
    "ladder_opponents",
    "ladder_result",
    "pooled_fit",
    "run_calibration",
    "run_ladder",
    "write_ladder",
]
