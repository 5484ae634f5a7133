"""An arena's standings: its records turned into rating and pairing tables.

:func:`build_report` reads the records so far (``hive_env.records.arena_record``) into an
:class:`ArenaReport`: the tally (``arena.tally``), one rating model's estimates and
likelihood-ratio intervals for every pairing and player (``arena.ratings``), the time per move
(``arena.move_times``) and the conditions (``arena.conditions``). :func:`rating_rows` and
:func:`pairing_rows` are its tables, which ``arena.report_files`` writes and
``arena.report_text`` prints.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from hive_env.records.arena_record import ArenaRecord
from players.registry import short_names

from .conditions import pinning, player_threads, termination_counts
from .config import ArenaConfig
from .move_times import MEAN_KEYS, per_move_means
from .ratings import PRIOR_DRAWS, EloFit, PairingStats, fit_elo, pairing_stats, tally
from .tally import Tally, game_results


@dataclass
class ArenaReport:
    """The state of an arena: counts, tables and, for ``sprt``, the test.

    ``pairings`` hold ``(i, j, stats)`` from player ``i``'s side. ``decision`` is ``"H1"``,
    ``"H0"`` or None (still open, or max games reached when ``complete``).
    """

    config: ArenaConfig
    out_dir: Path
    anchor: int
    records: list[dict[str, Any]]
    """The records so far: the JSON objects of ``games.jsonl``'s lines (``ArenaRecord.from_json``)."""
    games_total: int
    complete: bool
    pairings: list[tuple[int, int, PairingStats]] = field(default_factory=list)
    fit: EloFit | None = None
    per_move: list[dict[str, float]] = field(default_factory=list)
    """Per player (``config.players`` order): ``arena.move_times.MoveTotals.means`` over all its games."""
    pair_per_move: dict[tuple[int, int], dict[str, float]] = field(default_factory=dict)
    """``(i, j)``: player ``i``'s means in its games against ``j``."""
    llr: float = 0.0
    decision: str | None = None
    decided_after: int = 0
    prior_draws: float = PRIOR_DRAWS
    """The rating model's virtual draws per pairing, in the pairings and the fit alike."""
    terminations: dict[tuple[int, int], dict[str, int]] = field(default_factory=dict)
    """``(i, j)`` of :meth:`ArenaConfig.pairings`: how its games ended, by termination."""
    threads: list[str] = field(default_factory=list)
    """Per player: its search threads over its games (``"1"``, ``"1-2"``, ``"?"`` unknown)."""
    pinned: str = ""
    """How the games' processes ran: ``"pinned"`` (one core each), ``"not pinned"``, ``"mixed"``
    or ``""`` (records from before it was recorded)."""

    @property
    def games_done(self) -> int:
        return len(self.records)

    @property
    def names(self) -> list[str]:
        """The players' short names, in ``config.players`` order."""
        return short_names(self.config.players)


def build_report(config: ArenaConfig, out_dir: Path, anchor: int, records: list[dict[str, Any]],
                 games_total: int, prior_draws: float = PRIOR_DRAWS) -> ArenaReport:
    """Tables and ratings from the records so far, pairings and ratings with one prior."""
    n = len(config.players)
    played = [ArenaRecord.from_json(r) for r in records]  # the one reader: typed fields from here on
    counts = Tally(config, played)
    report = ArenaReport(config, out_dir, anchor, records, games_total, complete=False,
                         prior_draws=prior_draws)
    report.pairings = [(i, j, pairing_stats(*(int(x) for x in counts.wdl[i, j]), prior_draws=prior_draws))
                       for i, j in config.pairings()]
    points, games = tally(n, game_results(played))
    report.fit = fit_elo(points, games, anchor=anchor, prior_draws=prior_draws)
    report.llr, report.decision, report.decided_after = counts.llr, counts.decision, counts.decided_after
    report.per_move, report.pair_per_move = per_move_means(n, played)
    report.terminations = termination_counts(config, played)
    report.threads = player_threads(n, played)
    report.pinned = pinning(played)
    report.complete = report.decision is not None or len(records) >= games_total
    return report


def number_text(x: float, fmt: str) -> str:
    """``x`` in ``fmt``; NaN as ``""`` (unknown), infinities as ``inf`` / ``-inf``."""
    return format(x, fmt) if math.isfinite(x) else ("" if math.isnan(x) else ("inf" if x > 0 else "-inf"))


def rating_rows(report: ArenaReport) -> list[dict[str, Any]]:
    """One row per player, best first; unrated players last, without a rank (None) or an Elo
    (NaN). ``player`` is the short name."""
    fit, players, names = report.fit, report.config.players, report.names
    rated = [bool(fit.rated[i]) for i in range(len(players))]
    order = sorted(range(len(players)), key=lambda i: (not rated[i], -np.nan_to_num(fit.elo[i])))
    rows = []
    for rank, i in enumerate(order, start=1):
        g = int(fit.games[i])
        rows.append({"rank": rank if rated[i] else None, "player": names[i], "elo": fit.elo[i],
                     "elo_lo": fit.lo[i], "elo_hi": fit.hi[i], "se": fit.se[i], "games": g,
                     "points": float(fit.points[i]), "score": fit.points[i] / g if g else math.nan,
                     "anchor": i == report.anchor, "rated": rated[i], "spec": players[i],
                     **_means(report.per_move, i),
                     "threads": report.threads[i] if i < len(report.threads) else ""})
    return rows


def _means(per_move: list[dict[str, float]], i: int) -> dict[str, float]:
    """Player ``i``'s means per move, all NaN when unknown (a report built without them)."""
    known = per_move[i] if i < len(per_move) else {}
    return {key: known.get(key, math.nan) for key in MEAN_KEYS}


def pairing_rows(report: ArenaReport) -> list[dict[str, Any]]:
    """One row per pairing, from the first player's side, by short names."""
    players, pairs = report.names, report.pair_per_move
    unknown = dict.fromkeys(MEAN_KEYS, math.nan)
    return [{"player": players[i], "opponent": players[j], "games": st.games, "wins": st.wins,
             "draws": st.draws, "losses": st.losses, "score": st.score, "score_lo": st.score_lo,
             "score_hi": st.score_hi, "elo": st.elo, "elo_lo": st.elo_lo, "elo_hi": st.elo_hi,
             **pairs.get((i, j), unknown),
             **{f"opponent_{k}": v for k, v in pairs.get((j, i), unknown).items()},
             "terminations": report.terminations.get((i, j), {})}
            for i, j, st in report.pairings]
