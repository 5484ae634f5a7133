"""An arena's tables as files: ``pairings.csv``, ``ratings.csv`` and ``summary.json``.

Written atomically into the results directory (``arena.results``: its files) from an
:class:`~arena.standings.ArenaReport`. Unknown numbers (a pairing without games, an unrated
player, time per move of old records) are empty in the CSVs and null in ``summary.json``;
``ratings.csv`` and ``summary.json`` give each player's full spec beside its short name.
"""

from __future__ import annotations

import csv
import io
import json
import math
from typing import Any

from hive_env.files import write_atomic

from .conditions import budget_text
from .results import PAIRINGS_FILE, RATINGS_FILE, SUMMARY_FILE
from .standings import ArenaReport, number_text, pairing_rows, rating_rows
from .terminations import TERMINATIONS


def _json_num(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def _terminations_text(counts: dict[str, int]) -> str:
    """``queen_surrounded:12;ply_cap:3`` (a CSV cell)."""
    return ";".join(f"{word}:{n}" for word, n in counts.items())


def _csv(rows: list[dict[str, Any]], formats: dict[str, str]) -> str:
    buf = io.StringIO()
    if rows:
        writer = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: number_text(v, formats[k]) if k in formats else v for k, v in row.items()})
    return buf.getvalue()


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
    prior = number_text(prior_draws, "g")
    ratings, pairings = rating_rows(report), pairing_rows(report)
    write_atomic(out / PAIRINGS_FILE, _csv([{**r, "terminations": _terminations_text(r["terminations"])}
                                            for r in pairings], _FLOATS))
    write_atomic(out / RATINGS_FILE, _csv(ratings, _FLOATS))
    def clean(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{k: _json_num(v) if isinstance(v, float) else v for k, v in row.items()} for row in rows]

    summary: dict[str, Any] = {
        "settings": report.config.settings(), "anchor": report.config.players[report.anchor],
        "anchor_name": report.names[report.anchor],
        "games_done": report.games_done, "games_total": report.games_total, "complete": report.complete,
        "rating_model": RATING_MODEL.format(prior=prior), "prior_draws": prior_draws,
        "score_interval": SCORE_INTERVAL.format(prior=prior),
        "ratings": clean(ratings), "pairings": clean(pairings),
        "conditions": {"budget": budget_text(report.config, report.names),
                       "threads": dict(zip(report.names, report.threads, strict=False)),
                       "processes": report.pinned or None},
        "termination_vocabulary": TERMINATIONS,
    }
    if report.config.mode == "sprt":
        sprt = report.config.sprt()
        summary["sprt"] = {"elo0": sprt.elo0, "elo1": sprt.elo1, "alpha": sprt.alpha, "beta": sprt.beta,
                           "llr": report.llr, "lower": sprt.lower, "upper": sprt.upper,
                           "decision": report.decision, "decided_after_games": report.decided_after or None}
    write_atomic(out / SUMMARY_FILE, json.dumps(summary, indent=1) + "\n")
