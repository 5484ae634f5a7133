"""Time and search per move: each player's mean seconds, simulations and nodes a move.

Each record keeps every move's seconds (measured around ``choose``) and the mover's search
statistics (``players.base.search_stats``: ``sims``, ``nodes``); the means are over all of a
player's recorded moves (the statistics over the moves that report them), per player and per
pairing, so an equal-time result shows that the time was equal. Unknown (old records, players
that report nothing): NaN.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator

from hive_env.records.arena_record import ArenaRecord

STAT_KEYS = ("sims", "nodes")
"""The search statistics the tables average per move (``players.base.search_stats``)."""
MEAN_KEYS = ("seconds_per_move", *(f"{key}_per_move" for key in STAT_KEYS))
"""The keys of :meth:`MoveTotals.means`: the per-move columns of ``ratings.csv`` (and, also as
``opponent_...``, ``pairings.csv``)."""


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


def recorded_moves(record: ArenaRecord) -> Iterator[tuple[int, float, dict[str, int] | None]]:
    """``(player index, seconds, stats)`` of each move a record times (none for old records).

    The moves are the game's last ``len(move_seconds)`` plies; White moves on even plies.
    """
    seconds = record.move_seconds
    if seconds is None:
        return
    first = record.plies - len(seconds)
    movers = (record.white_index, record.black_index)
    for k, (took, stats) in enumerate(zip(seconds, record.move_stats, strict=True)):
        yield movers[(first + k) % 2], took, stats


def move_totals(records: Iterable[ArenaRecord]) -> dict[tuple[int, int], MoveTotals]:
    """``(player, opponent)``: the player's totals over its moves in their games."""
    totals: dict[tuple[int, int], MoveTotals] = {}
    for record in records:
        w, b = record.white_index, record.black_index
        for player, took, stats in recorded_moves(record):
            totals.setdefault((player, b if player == w else w), MoveTotals()).add(took, stats)
    return totals


def per_move_means(n: int, records: Iterable[ArenaRecord]
                   ) -> tuple[list[dict[str, float]], dict[tuple[int, int], dict[str, float]]]:
    """Each of ``n`` players' means per move over all its games, and per ``(player, opponent)``."""
    pairs = move_totals(records)
    players = [MoveTotals() for _ in range(n)]
    for (i, _), totals in pairs.items():
        players[i].merge(totals)
    return [t.means() for t in players], {key: t.means() for key, t in pairs.items()}
