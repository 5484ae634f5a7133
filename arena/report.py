"""Arena reports: an arena's records turned into tables, files and the printed summary.

Split from the playing of games (``arena.arena`` and the modules it calls), one job a module:

- ``arena.tally``: the running wins, draws and losses per pairing, and the SPRT's decision
- ``arena.move_times``: each player's mean seconds, simulations and nodes a move
- ``arena.conditions``: how the games ended (``arena.terminations``), threads, pinning, budget
- ``arena.standings``: :class:`ArenaReport` and its rating and pairing tables (``arena.ratings``:
  one rating model, its estimates and likelihood-ratio intervals for every pairing and player)
- ``arena.report_files``: ``pairings.csv``, ``ratings.csv`` and ``summary.json``
- ``arena.report_text``: the tables as text for the terminal

**Counts and unrated players.** Every printed score carries its game count (``62.5% of 40``); a
pairing without games has no interval. Players whose games do not bound their Elo relative to
the anchor are *unrated*: ``rated`` false, no rank and no Elo, listed after the ranked players.
Players appear under their short names (``players.registry.short_names``) in tables, CSVs and
progress text; ``ratings.csv`` and ``summary.json`` also give each player's full spec, and
``config.json`` and ``games.jsonl`` keep only specs, so a resumed arena is exactly the same one.
"""

from .conditions import budget_text, pinning, player_threads, termination_counts  # endings, conditions
from .move_times import MEAN_KEYS, STAT_KEYS, MoveTotals, per_move_means  # time per move
from .ratings import PairingStats  # one pairing's counts, score and Elo
from .report_files import write_report  # the CSV and JSON files
from .report_text import format_report, score_text, sprt_verdict  # the printed tables
from .standings import ArenaReport, build_report, pairing_rows, rating_rows  # the report and its rows
from .tally import Tally  # the running counts

__all__ = [
    "MEAN_KEYS",
    "STAT_KEYS",
    "ArenaReport",
    "MoveTotals",
    "PairingStats",
    "Tally",
    "budget_text",
    "build_report",
    "format_report",
    "pairing_rows",
    "per_move_means",
    "pinning",
    "player_threads",
    "rating_rows",
    "score_text",
    "sprt_verdict",
    "termination_counts",
    "write_report",
]
