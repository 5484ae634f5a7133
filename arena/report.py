"""Arena reports: running tallies, ratings tables, CSV/JSON files and the printed summary.

Split from the playing of games (``arena.arena`` and the modules it calls): everything here turns a
list of game records into :class:`ArenaReport` tables (``arena.ratings``: one rating model, its
estimates and likelihood-ratio intervals for every pairing and player) and writes or prints them.

**Counts and unrated players.** Every printed score carries its game count (``62.5% of 40``); a
pairing without games has no interval (``-`` printed, empty in the CSVs, null in ``summary.json``).
Players whose games do not bound their Elo relative to the anchor (``arena.ratings``: rated
players) are *unrated*: ``rated`` false, no rank and no Elo (``unrated`` printed, null in
``summary.json``), listed after the ranked players.

**Time per move.** Each record keeps every move's seconds (measured around ``choose``) and the
mover's search statistics (``players.base.search_stats``: ``sims``, ``nodes``); the tables give
each player's mean seconds, simulations and nodes per move over all its recorded moves (the
statistics over the moves that report them), and per pairing each side's, so an equal-time
result shows that the time was equal. Unknown (old records, players that report nothing):
blank in the CSVs, null in ``summary.json``.

**How games ended and under what conditions.** Every pairing counts its games' terminations
(``arena.terminations``: queen surrounded, repetition, ply cap, time forfeit, engine crash...;
``summary.json`` and ``pairings.csv``), and every player its search threads as the records show
them, so a reader sees that each side searched on one core (``threads`` in ``ratings.csv`` and
``summary.json``; ``?`` where a player cannot say, e.g. an engine without ``NumThreads``). The
printed report opens with the conditions: the budget (seconds a move, each spec's own ``time=``,
or the clock), the threads and whether the games' processes were pinned to a core each.

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
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from hive_env.files import write_atomic
from players.registry import short_names

from .config import ArenaConfig
from .ratings import PRIOR_DRAWS, EloFit, PairingStats, fit_elo, pairing_stats, tally
from .terminations import TERMINATIONS, termination_of


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
    per_move: list[dict[str, float]] = field(default_factory=list)
    """Per player (``config.players`` order): :func:`MoveTotals.means` over all its games."""
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


# ----- time and search per move ------------------------------------------------------------------
STAT_KEYS = ("sims", "nodes")
"""The search statistics the tables average per move (``players.base.search_stats``)."""


class MoveTotals:
    """Sums over one player's recorded moves: seconds, and each statistic with its move count."""

    def __init__(self) -> None:
        self.moves = 0
        self.seconds = 0.0
        self.stat_sums = dict.fromkeys(STAT_KEYS, 0)
        self.stat_moves = dict.fromkeys(STAT_KEYS, 0)

    def add(self, seconds: float, stats: dict[str, int] | None) -> None:
        self.moves += 1
        self.seconds += seconds
        for key in STAT_KEYS:
            if stats and key in stats:
                self.stat_sums[key] += stats[key]
                self.stat_moves[key] += 1

    def merge(self, other: MoveTotals) -> None:
        self.moves += other.moves
        self.seconds += other.seconds
        for key in STAT_KEYS:
            self.stat_sums[key] += other.stat_sums[key]
            self.stat_moves[key] += other.stat_moves[key]

    def means(self) -> dict[str, float]:
        """``seconds_per_move``, ``sims_per_move``, ``nodes_per_move``: NaN where no move tells."""
        out = {"seconds_per_move": self.seconds / self.moves if self.moves else math.nan}
        for key in STAT_KEYS:
            n = self.stat_moves[key]
            out[f"{key}_per_move"] = self.stat_sums[key] / n if n else math.nan
        return out


def recorded_moves(record: dict[str, Any]) -> Iterator[tuple[int, float, dict[str, int] | None]]:
    """``(player index, seconds, stats)`` of each move a record times (none for old records).

    The moves are the game's last ``len(move_seconds)`` plies; White moves on even plies.
    """
    seconds = record.get("move_seconds")
    if seconds is None:
        return
    first = record["plies"] - len(seconds)
    movers = (record["white_index"], record["black_index"])
    for k, (took, stats) in enumerate(zip(seconds, record["move_stats"], strict=True)):
        yield movers[(first + k) % 2], took, stats


def move_totals(records: list[dict[str, Any]]) -> dict[tuple[int, int], MoveTotals]:
    """``(player, opponent)``: the player's totals over its moves in their games."""
    totals: dict[tuple[int, int], MoveTotals] = {}
    for record in records:
        w, b = record["white_index"], record["black_index"]
        for player, took, stats in recorded_moves(record):
            totals.setdefault((player, b if player == w else w), MoveTotals()).add(took, stats)
    return totals


def per_move_means(n: int, records: list[dict[str, Any]]
                   ) -> tuple[list[dict[str, float]], dict[tuple[int, int], dict[str, float]]]:
    """Each of ``n`` players' means per move over all its games, and per ``(player, opponent)``."""
    pairs = move_totals(records)
    players = [MoveTotals() for _ in range(n)]
    for (i, _), totals in pairs.items():
        players[i].merge(totals)
    return [t.means() for t in players], {key: t.means() for key, t in pairs.items()}


def termination_counts(config: ArenaConfig, records: list[dict[str, Any]]
                       ) -> dict[tuple[int, int], dict[str, int]]:
    """Per pairing (``config.pairings()``, both colours), its games by termination, in the
    vocabulary's order (older records' words translated: ``arena.terminations``)."""
    counts: dict[tuple[int, int], dict[str, int]] = {pair: {} for pair in config.pairings()}
    for record in records:
        w, b = record["white_index"], record["black_index"]
        pair = (w, b) if (w, b) in counts else (b, w)
        if pair in counts:
            word = termination_of(record) or "unknown"
            counts[pair][word] = counts[pair].get(word, 0) + 1
    order = {w: k for k, w in enumerate(TERMINATIONS)}
    return {pair: dict(sorted(c.items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0])))
            for pair, c in counts.items()}


def player_threads(n: int, records: list[dict[str, Any]]) -> list[str]:
    """Each player's search threads over its games: ``"1"``, a range ``"1-2"``, ``"?"`` when a
    game did not know, ``""`` when no record says (older records)."""
    seen: list[set[int | None]] = [set() for _ in range(n)]
    for record in records:
        threads = record.get("threads")
        if isinstance(threads, list) and len(threads) == 2:
            seen[record["white_index"]].add(threads[0])
            seen[record["black_index"]].add(threads[1])
    out = []
    for values in seen:
        known = sorted(v for v in values if isinstance(v, int))
        text = "" if not known else (str(known[0]) if known[0] == known[-1] else f"{known[0]}-{known[-1]}")
        out.append(text + ("?" if None in values else "") if values else "")
    return out


def pinning(records: list[dict[str, Any]]) -> str:
    """``"pinned"`` when every recorded game ran on one core, ``"not pinned"`` when none did,
    ``"mixed"``, or ``""`` when no record says (records from before ``cpus``)."""
    kinds = {len(r["cpus"]) == 1 for r in records if isinstance(r.get("cpus"), list) and r["cpus"]}
    if not kinds:
        return ""
    return "mixed" if len(kinds) == 2 else ("pinned" if kinds == {True} else "not pinned")


def build_report(config: ArenaConfig, out_dir: Path, anchor: int, records: list[dict[str, Any]],
                 games_total: int, prior_draws: float = PRIOR_DRAWS) -> ArenaReport:
    """Tables and ratings from the records so far, pairings and ratings with one prior."""
    n = len(config.players)
    counts = Tally(config, records)
    report = ArenaReport(config, out_dir, anchor, records, games_total, complete=False,
                         prior_draws=prior_draws)
    report.pairings = [(i, j, pairing_stats(*(int(x) for x in counts.wdl[i, j]), prior_draws=prior_draws))
                       for i, j in config.pairings()]
    points, games = tally(n, [(r["white_index"], r["black_index"], r["white_score"]) for r in records])
    report.fit = fit_elo(points, games, anchor=anchor, prior_draws=prior_draws)
    report.llr, report.decision, report.decided_after = counts.llr, counts.decision, counts.decided_after
    report.per_move, report.pair_per_move = per_move_means(n, records)
    report.terminations = termination_counts(config, records)
    report.threads = player_threads(n, records)
    report.pinned = pinning(records)
    report.complete = report.decision is not None or len(records) >= games_total
    return report


def _num(x: float, fmt: str) -> str:
    return format(x, fmt) if math.isfinite(x) else ("" if math.isnan(x) else ("inf" if x > 0 else "-inf"))


def _json_num(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


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


def _terminations_text(counts: dict[str, int]) -> str:
    """``queen_surrounded:12;ply_cap:3`` (a CSV cell)."""
    return ";".join(f"{word}:{n}" for word, n in counts.items())


def _csv(rows: list[dict[str, Any]], formats: dict[str, str]) -> str:
    buf = io.StringIO()
    if rows:
        writer = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: _num(v, formats[k]) if k in formats else v for k, v in row.items()})
    return buf.getvalue()


MEAN_KEYS = ("seconds_per_move", *(f"{key}_per_move" for key in STAT_KEYS))
"""The per-move columns of ``ratings.csv`` (and, also as ``opponent_...``, ``pairings.csv``)."""
_MEAN_FORMATS = {"seconds_per_move": ".6f", "sims_per_move": ".1f", "nodes_per_move": ".1f"}
_FLOATS = {"elo": ".2f", "elo_lo": ".2f", "elo_hi": ".2f", "se": ".2f", "score": ".4f", "score_lo": ".4f",
           "score_hi": ".4f", "points": "g", **_MEAN_FORMATS,
           **{f"opponent_{k}": f for k, f in _MEAN_FORMATS.items()}}
RATING_MODEL = ("Bradley-Terry (logistic Elo), a draw counted as half a win and half a loss, {prior} "
                "virtual draw(s) per played pairing as a prior; estimates: the maximum; 95% intervals: "
                "likelihood ratio (profile), relative to the anchor; unrated: no chain of games bounds the "
                "Elo relative to the anchor")
SCORE_INTERVAL = ("the pairing's Elo interval of the rating model (95% likelihood ratio, {prior} virtual "
                  "draw(s)) on the score scale")


def write_report(report: ArenaReport, prior_draws: float | None = None) -> None:
    """``pairings.csv``, ``ratings.csv`` and ``summary.json`` in the results directory, atomically
    (``prior_draws``: the report's own when None)."""
    out = report.out_dir
    prior_draws = report.prior_draws if prior_draws is None else prior_draws
    prior = _num(prior_draws, "g")
    ratings, pairings = rating_rows(report), pairing_rows(report)
    write_atomic(out / "pairings.csv", _csv([{**r, "terminations": _terminations_text(r["terminations"])}
                                             for r in pairings], _FLOATS))
    write_atomic(out / "ratings.csv", _csv(ratings, _FLOATS))
    def clean(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{k: _json_num(v) if isinstance(v, float) else v for k, v in row.items()} for row in rows]

    summary: dict[str, Any] = {
        "settings": report.config.settings(), "anchor": report.config.players[report.anchor],
        "anchor_name": report.names[report.anchor],
        "games_done": report.games_done, "games_total": report.games_total, "complete": report.complete,
        "rating_model": RATING_MODEL.format(prior=prior), "prior_draws": prior_draws,
        "score_interval": SCORE_INTERVAL.format(prior=prior),
        "ratings": clean(ratings), "pairings": clean(pairings),
        "conditions": {"budget": conditions_text(report), "threads": dict(zip(report.names, report.threads,
                                                                               strict=False)),
                       "processes": report.pinned or None},
        "termination_vocabulary": TERMINATIONS,
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
    """``[lo, hi]``, or ``-`` without one (no games, unrated)."""
    return "-" if math.isnan(lo) else f"[{_num(lo, fmt)}, {_num(hi, fmt)}]"


def score_text(score: float, games: int) -> str:
    """A score with its game count: ``62.5% of 40``, ``- of 0``."""
    return f"{_num(100 * score, '.1f') if games else '-'}{'%' if games else ''} of {games}"


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


_HEADERS = {"seconds_per_move": "s/move", "sims_per_move": "sims/move", "nodes_per_move": "nodes/move"}
_SHOWN = {"seconds_per_move": ".4f", "sims_per_move": ".0f", "nodes_per_move": ".0f"}
"""Printed tables: the per-move columns' headers and formats (a column only when some value is known)."""


def _ratings_table(report: ArenaReport) -> str:
    """Rank, Elo and interval (``unrated`` and ``-`` for unrated players), score of games, per move."""
    ratings = rating_rows(report)
    shown = [k for k in MEAN_KEYS if any(math.isfinite(r[k]) for r in ratings)]
    rows = [[str(r["rank"] or "-"), r["player"], _num(r["elo"], "+.0f") if r["rated"] else "unrated",
             "anchor" if r["anchor"] else _interval(r["elo_lo"], r["elo_hi"], "+.0f"),
             score_text(r["score"], r["games"]), *(_num(r[k], _SHOWN[k]) for k in shown),
             *([r["threads"] or "-"] if any(x["threads"] for x in ratings) else [])] for r in ratings]
    return _table(["rank", "player", "Elo", "95% interval", "score", *(_HEADERS[k] for k in shown),
                   *(["threads"] if any(x["threads"] for x in ratings) else [])], rows)


def conditions_text(report: ArenaReport) -> str:
    """The budget of the arena's moves in words: ``1 s a move``, ``clock 60+1``, with each
    spec's own ``time=`` (time odds) named."""
    c = report.config
    if c.clock:
        return f"clock {c.clock} (base+increment seconds, shared out by the time manager)"
    parts = []
    if c.time_s is not None:
        parts.append(f"{c.time_s:g} s a move")
    if c.depth is not None:
        parts.append(f"depth {c.depth}")
    if c.sims is not None:
        parts.append(f"{c.sims} simulations")
    own = [f"{name} {b.time_s:g} s" for name, spec in zip(report.names, c.players, strict=True)
           if (b := c.side_budget(spec)) is not None and b.time_s is not None and b.time_s != c.time_s]
    text = ", ".join(parts) or "each player's own budget"
    return text + (f"; own time: {', '.join(own)}" if own else "")


def _conditions(report: ArenaReport) -> str:
    """One line: the budget, each player's threads, the processes' cores."""
    threads = ", ".join(f"{n} {t}" for n, t in zip(report.names, report.threads, strict=False) if t)
    pinned = report.pinned if report.pinned != "not pinned" or report.config.thread_limit() else ""
    cores = {"pinned": "each game's process pinned to a core of its own",
             "not pinned": "processes not pinned",
             "mixed": "some games pinned, some not"}.get(pinned, "")
    return "; ".join(x for x in (f"Budget: {conditions_text(report)}",
                                 f"threads: {threads}" if threads else "", cores) if x)


def _terminations_table(report: ArenaReport) -> str:
    """Per pairing, its games by termination (only the terminations that occurred)."""
    words = [w for w in TERMINATIONS if any(w in c for c in report.terminations.values())]
    words += sorted({w for c in report.terminations.values() for w in c} - set(words))
    names = report.names
    rows = [[names[i], names[j], *(str(report.terminations.get((i, j), {}).get(w, 0)) for w in words)]
            for i, j, _ in report.pairings]
    return _table(["player", "opponent", *words], rows)


def _pairings_table(report: ArenaReport) -> str:
    """W/D/L, score of games with its interval, Elo with its interval, both sides' seconds a move."""
    pairings = pairing_rows(report)
    timed = any(math.isfinite(r["seconds_per_move"]) for r in pairings)
    rows = [[r["player"], r["opponent"], str(r["wins"]), str(r["draws"]), str(r["losses"]),
             score_text(r["score"], r["games"]), _interval(100 * r["score_lo"], 100 * r["score_hi"], ".1f"),
             _num(r["elo"], "+.0f") or "-", _interval(r["elo_lo"], r["elo_hi"], "+.0f"),
             *(_num(r[k], ".4f") for k in ("seconds_per_move", "opponent_seconds_per_move") if timed)]
            for r in pairings]
    return _table(["player", "opponent", "W", "D", "L", "score", "95% interval", "Elo", "95% interval",
                   *(("s/move", "opp s/move") if timed else ())], rows)


def format_report(report: ArenaReport) -> str:
    """The tables as text, for the terminal."""
    c, names = report.config, report.names
    out = [f"{c.mode}: {report.games_done}/{report.games_total} games ({c.game_type}, openings {c.openings}, "
           f"ply cap {c.ply_cap}); results in {report.out_dir}", ""]
    named = [f"  {n} = {spec}" for n, spec in zip(names, c.players, strict=True) if n != spec]
    if named:
        out += ["Players", *named, ""]
    out += [_conditions(report), ""]
    out += [f"Elo (maximum likelihood with the prior, 95% interval: likelihood ratio), anchor "
            f"{names[report.anchor]} = 0", _ratings_table(report), ""]
    out += ["Pairings (from the first player's side; score and Elo: one 95% interval of the rating model)",
            _pairings_table(report)]
    if report.records:
        out += ["", "How the games ended (arena.terminations)", _terminations_table(report)]
    if c.mode == "sprt":
        out += ["", sprt_verdict(report)]
    return "\n".join(out)


# ----- the runner -----------------------------------------------------------------------------
