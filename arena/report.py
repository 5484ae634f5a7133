"""Arena reports: running tallies, ratings tables, CSV/JSON files and the printed summary.

Split from :mod:`arena.arena` (which schedules and plays the games): everything here turns a
list of game records into :class:`ArenaReport` tables (``arena.ratings``: Wilson score
intervals with draws, maximum-likelihood Elo) and writes or prints them.

Players appear under their short names (``players.registry.short_names``: ``name=`` from the
spec, or e.g. ``az@1200`` for a checkpoint) in tables, CSVs and progress text; ``ratings.csv``
and ``summary.json`` also give each player's full spec (``spec``), and ``config.json`` and
``games.jsonl`` keep only specs, so a resumed arena is exactly the same one.
"""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from hive_env.files import write_atomic
from players.registry import short_names

from .config import ArenaConfig
from .ratings import EloFit, PairingStats, fit_elo, pairing_stats, tally


# ----- tallies and report -------------------------------------------------------------------
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
    games_total: int
    complete: bool
    pairings: list[tuple[int, int, PairingStats]] = field(default_factory=list)
    fit: EloFit | None = None
    llr: float = 0.0
    decision: str | None = None
    decided_after: int = 0

    @property
    def games_done(self) -> int:
        return len(self.records)

    @property
    def names(self) -> list[str]:
        """The players' short names, in ``config.players`` order."""
        return short_names(self.config.players)


class Tally:
    """Running counts of an arena's records, kept up to date one record at a time.

    ``wdl[i, j]``: wins, draws, losses of player ``i`` against ``j`` (``[P, P, 3] int64``). For
    ``sprt`` (A = player 0) the test is checked whenever both games of a round are in: the
    decision is the first bound crossed at such a point (``decided_after`` games); records that
    come later (games that were running) still count in :attr:`llr`.
    """

    def __init__(self, config: ArenaConfig, records: list[dict[str, Any]] = ()):
        n = len(config.players)
        self.wdl = np.zeros((n, n, 3), dtype=np.int64)
        self.sprt = config.sprt() if config.mode == "sprt" else None
        self.decision: str | None = None
        self.decided_after = 0
        self.games = 0
        self._halves: dict[int, int] = {}
        for r in records:
            self.add(r)

    def add(self, record: dict[str, Any]) -> None:
        w, b, s = record["white_index"], record["black_index"], record["white_score"]
        k = 0 if s == 1.0 else 1 if s == 0.5 else 2
        self.wdl[w, b, k] += 1
        self.wdl[b, w, 2 - k] += 1
        self.games += 1
        r = record["round"]
        self._halves[r] = self._halves.get(r, 0) + 1
        if self.sprt is not None and self.decision is None and self._halves[r] == 2:
            self.decision = self.sprt.decision(*self.wdl[0, 1])
            self.decided_after = self.games if self.decision else 0

    @property
    def llr(self) -> float:
        return float(self.sprt.llr(*self.wdl[0, 1])) if self.sprt is not None else 0.0

    def postfix(self, players: tuple[str, ...], mode: str) -> str:
        """One line for the progress bar: the SPRT's LLR, else scores so far."""
        if self.sprt is not None:
            w, d, l_ = (int(x) for x in self.wdl[0, 1])
            return f"LLR {self.llr:+.2f} [{self.sprt.lower:+.2f}, {self.sprt.upper:+.2f}] +{w} ={d} -{l_}"
        parts, names = [], short_names(players)
        for i in range(1 if mode == "gauntlet" else min(4, len(players))):
            w, d, l_ = (int(x) for x in self.wdl[i].sum(axis=0))
            n = w + d + l_
            score = f"{100 * (w + 0.5 * d) / n:.0f}%" if n else "-"
            parts.append(f"{names[i][:24]} +{w} ={d} -{l_} {score}")
        return "; ".join(parts)


def build_report(config: ArenaConfig, out_dir: Path, anchor: int, records: list[dict[str, Any]],
                 games_total: int, prior_draws: float = 1.0) -> ArenaReport:
    """Tables and ratings from the records so far."""
    n = len(config.players)
    counts = Tally(config, records)
    report = ArenaReport(config, out_dir, anchor, records, games_total, complete=False)
    report.pairings = [(i, j, pairing_stats(*(int(x) for x in counts.wdl[i, j])))
                       for i, j in config.pairings()]
    points, games = tally(n, [(r["white_index"], r["black_index"], r["white_score"]) for r in records])
    report.fit = fit_elo(points, games, anchor=anchor, prior_draws=prior_draws)
    report.llr, report.decision, report.decided_after = counts.llr, counts.decision, counts.decided_after
    report.complete = report.decision is not None or len(records) >= games_total
    return report


def _num(x: float, fmt: str) -> str:
    return format(x, fmt) if math.isfinite(x) else ("" if math.isnan(x) else ("inf" if x > 0 else "-inf"))


def _json_num(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def rating_rows(report: ArenaReport) -> list[dict[str, Any]]:
    """One row per player, best first (unrated players last); ``player`` is the short name."""
    fit, players, names = report.fit, report.config.players, report.names
    order = sorted(range(len(players)), key=lambda i: (math.isnan(fit.elo[i]), -np.nan_to_num(fit.elo[i])))
    rows = []
    for rank, i in enumerate(order, start=1):
        g = int(fit.games[i])
        rows.append({"rank": rank, "player": names[i], "elo": fit.elo[i], "elo_lo": fit.lo[i],
                     "elo_hi": fit.hi[i], "se": fit.se[i], "games": g, "points": float(fit.points[i]),
                     "score": fit.points[i] / g if g else math.nan, "anchor": i == report.anchor,
                     "spec": players[i]})
    return rows


def pairing_rows(report: ArenaReport) -> list[dict[str, Any]]:
    """One row per pairing, from the first player's side, by short names."""
    players = report.names
    return [{"player": players[i], "opponent": players[j], "games": st.games, "wins": st.wins,
             "draws": st.draws, "losses": st.losses, "score": st.score, "score_lo": st.score_lo,
             "score_hi": st.score_hi, "elo": st.elo, "elo_lo": st.elo_lo, "elo_hi": st.elo_hi}
            for i, j, st in report.pairings]


def _csv(rows: list[dict[str, Any]], formats: dict[str, str]) -> str:
    buf = io.StringIO()
    if rows:
        writer = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: _num(v, formats[k]) if k in formats else v for k, v in row.items()})
    return buf.getvalue()


_FLOATS = {"elo": ".2f", "elo_lo": ".2f", "elo_hi": ".2f", "se": ".2f", "score": ".4f", "score_lo": ".4f",
           "score_hi": ".4f", "points": "g"}
RATING_MODEL = ("Bradley-Terry (logistic Elo) by maximum likelihood, a draw counted as half a win and "
                "half a loss, {prior} virtual draw(s) per played pairing as a prior; 95% intervals from "
                "the observed information, relative to the anchor")
SCORE_INTERVAL = "Wilson score interval extended to draws (95%)"


def write_report(report: ArenaReport, prior_draws: float = 1.0) -> None:
    """``pairings.csv``, ``ratings.csv`` and ``summary.json`` in the results directory, atomically."""
    out = report.out_dir
    ratings, pairings = rating_rows(report), pairing_rows(report)
    write_atomic(out / "pairings.csv", _csv(pairings, _FLOATS))
    write_atomic(out / "ratings.csv", _csv(ratings, _FLOATS))
    def clean(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{k: _json_num(v) if isinstance(v, float) else v for k, v in row.items()} for row in rows]

    summary: dict[str, Any] = {
        "settings": report.config.settings(), "anchor": report.config.players[report.anchor],
        "anchor_name": report.names[report.anchor],
        "games_done": report.games_done, "games_total": report.games_total, "complete": report.complete,
        "rating_model": RATING_MODEL.format(prior=_num(prior_draws, "g")), "score_interval": SCORE_INTERVAL,
        "ratings": clean(ratings), "pairings": clean(pairings),
    }
    if report.config.mode == "sprt":
        sprt = report.config.sprt()
        summary["sprt"] = {"elo0": sprt.elo0, "elo1": sprt.elo1, "alpha": sprt.alpha, "beta": sprt.beta,
                           "llr": report.llr, "lower": sprt.lower, "upper": sprt.upper,
                           "decision": report.decision, "decided_after_games": report.decided_after or None}
    write_atomic(out / "summary.json", json.dumps(summary, indent=1) + "\n")


def _table(headers: list[str], rows: list[list[str]], left: int = 2) -> str:
    """Columns padded to width; the first ``left`` columns left-aligned, the rest right-aligned."""
    widths = [max(len(h), *(len(r[c]) for r in rows)) if rows else len(h) for c, h in enumerate(headers)]

    def line(cells: list[str]) -> str:
        return "  ".join(x.ljust(w) if c < left else x.rjust(w)
                         for c, (x, w) in enumerate(zip(cells, widths, strict=True))).rstrip()

    return "\n".join([line(headers), *(line(r) for r in rows)])


def _interval(lo: float, hi: float, fmt: str) -> str:
    return "" if math.isnan(lo) else f"[{_num(lo, fmt)}, {_num(hi, fmt)}]"


def sprt_verdict(report: ArenaReport) -> str:
    sprt, (a, b) = report.config.sprt(), report.names
    head = f"SPRT elo0={sprt.elo0:g} elo1={sprt.elo1:g} alpha={sprt.alpha:g} beta={sprt.beta:g}: " \
           f"LLR {report.llr:+.3f}, bounds [{sprt.lower:+.3f}, {sprt.upper:+.3f}]"
    if report.decision == "H1":
        return f"{head}\nH1 accepted after {report.decided_after} games: {a} is stronger than {b} " \
               f"(Elo difference >= {sprt.elo1:g} favoured)"
    if report.decision == "H0":
        return f"{head}\nH0 accepted after {report.decided_after} games: {a} is not stronger than {b} " \
               f"(Elo difference <= {sprt.elo0:g} favoured)"
    state = "inconclusive: max games reached" if report.complete else "undecided so far"
    return f"{head}\n{state} after {report.games_done} games"


def format_report(report: ArenaReport) -> str:
    """The tables as text, for the terminal."""
    c, names = report.config, report.names
    out = [f"{c.mode}: {report.games_done}/{report.games_total} games ({c.game_type}, openings {c.openings}, "
           f"ply cap {c.ply_cap}); results in {report.out_dir}", ""]
    named = [f"  {n} = {spec}" for n, spec in zip(names, c.players, strict=True) if n != spec]
    if named:
        out += ["Players", *named, ""]
    out.append(f"Elo (maximum likelihood, 95% interval), anchor {names[report.anchor]} = 0")
    rows = [[str(r["rank"]), r["player"], _num(r["elo"], "+.0f"),
             "anchor" if r["anchor"] else _interval(r["elo_lo"], r["elo_hi"], "+.0f"),
             str(r["games"]), _num(100 * r["score"], ".1f") + ("%" if r["games"] else "")]
            for r in rating_rows(report)]
    out += [_table(["rank", "player", "Elo", "95% interval", "games", "score"], rows), ""]
    out.append("Pairings (from the first player's side; score 95% interval: Wilson with draws)")
    rows = [[r["player"], r["opponent"], str(r["games"]), str(r["wins"]), str(r["draws"]), str(r["losses"]),
             _num(100 * r["score"], ".1f") + ("%" if r["games"] else ""),
             _interval(100 * r["score_lo"], 100 * r["score_hi"], ".1f"), _num(r["elo"], "+.0f"),
             _interval(r["elo_lo"], r["elo_hi"], "+.0f")] for r in pairing_rows(report)]
    out.append(_table(["player", "opponent", "games", "W", "D", "L", "score", "95% interval", "Elo",
                       "95% interval"], rows))
    if c.mode == "sprt":
        out += ["", sprt_verdict(report)]
    return "\n".join(out)


# ----- the runner -----------------------------------------------------------------------------
