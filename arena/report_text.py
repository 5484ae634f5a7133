"""An arena's tables as text for the terminal: the conditions, ratings, pairings, how the games
ended and, for ``sprt``, the verdict.

Every printed score carries its game count (``62.5% of 40``); a pairing without games has no
interval (``-``); unrated players (``arena.ratings``) are printed ``unrated``, without a rank,
after the ranked ones. A per-move column shows only when some value is known.
"""

from __future__ import annotations

import math

from .conditions import budget_text
from .move_times import MEAN_KEYS
from .standings import ArenaReport, number_text, pairing_rows, rating_rows
from .terminations import TERMINATIONS


def _table(headers: list[str], rows: list[list[str]], left: int = 2) -> str:
    """Columns padded to width; the first ``left`` columns left-aligned, the rest right-aligned."""
    widths = [max(len(h), *(len(r[c]) for r in rows)) if rows else len(h) for c, h in enumerate(headers)]

    def line(cells: list[str]) -> str:
        return "  ".join(x.ljust(w) if c < left else x.rjust(w)
                         for c, (x, w) in enumerate(zip(cells, widths, strict=True))).rstrip()

    return "\n".join([line(headers), *(line(r) for r in rows)])


def _interval(lo: float, hi: float, fmt: str) -> str:
    """``[lo, hi]``, or ``-`` without one (no games, unrated)."""
    return "-" if math.isnan(lo) else f"[{number_text(lo, fmt)}, {number_text(hi, fmt)}]"


def score_text(score: float, games: int) -> str:
    """A score with its game count: ``62.5% of 40``, ``- of 0``."""
    return f"{number_text(100 * score, '.1f') if games else '-'}{'%' if games else ''} of {games}"


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
    rows = [[str(r["rank"] or "-"), r["player"], number_text(r["elo"], "+.0f") if r["rated"] else "unrated",
             "anchor" if r["anchor"] else _interval(r["elo_lo"], r["elo_hi"], "+.0f"),
             score_text(r["score"], r["games"]), *(number_text(r[k], _SHOWN[k]) for k in shown),
             *([r["threads"] or "-"] if any(x["threads"] for x in ratings) else [])] for r in ratings]
    return _table(["rank", "player", "Elo", "95% interval", "score", *(_HEADERS[k] for k in shown),
                   *(["threads"] if any(x["threads"] for x in ratings) else [])], rows)


def _conditions(report: ArenaReport) -> str:
    """One line: the budget, each player's threads, the processes' cores."""
    threads = ", ".join(f"{n} {t}" for n, t in zip(report.names, report.threads, strict=False) if t)
    pinned = report.pinned if report.pinned != "not pinned" or report.config.thread_limit() else ""
    cores = {"pinned": "each game's process pinned to a core of its own",
             "not pinned": "processes not pinned",
             "mixed": "some games pinned, some not"}.get(pinned, "")
    return "; ".join(x for x in (f"Budget: {budget_text(report.config, report.names)}",
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
             number_text(r["elo"], "+.0f") or "-", _interval(r["elo_lo"], r["elo_hi"], "+.0f"),
             *(number_text(r[k], ".4f") for k in ("seconds_per_move", "opponent_seconds_per_move") if timed)]
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
