"""Arena reports: an arena's records turned into tables, files and the printed summary.

Split from the playing of games, one job a module: ``arena.tally`` (running W/D/L, the SPRT's
decision), ``arena.move_times`` (seconds and statistics a move), ``arena.conditions`` (how games
ended, threads, pinning, budget), ``arena.standings`` (:class:`ArenaReport`, the rating and
pairing tables), ``arena.report_files`` (the CSV and JSON files) and ``arena.report_text`` (the
printed tables); this module is their index.

See docs/arena.md (sample output; files in the results directory).
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
