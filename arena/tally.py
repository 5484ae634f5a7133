"""The running tally of an arena: wins, draws and losses per pairing, and the SPRT's decision.

Kept up to date one record at a time as games finish (``arena.arena``: the progress bar, and
when to stop an SPRT); ``arena.standings`` builds the pairings' tables from it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from hive_env.records.arena_record import ArenaRecord
from players.registry import short_names

from .config import ArenaConfig


def game_results(records: Iterable[ArenaRecord]) -> list[tuple[int, int, float]]:
    """``(white index, black index, White's score)`` of each game: ``arena.ratings.tally``'s triples."""
    return [(r.white_index, r.black_index, r.white_score) for r in records]


class Tally:
    """Running counts of an arena's records (``games.jsonl`` objects), one record at a time.

    ``wdl[i, j]``: wins, draws, losses of player ``i`` against ``j`` (``[P, P, 3] int64``). For
    ``sprt`` (A = player 0) the test is checked whenever both games of a round are in: the
    decision is the first bound crossed at such a point (``decided_after`` games); records that
    come later (games that were running) still count in :attr:`llr`.
    """

    def __init__(self, config: ArenaConfig, records: Iterable[dict[str, Any] | ArenaRecord] = ()):
        n = len(config.players)
        self.wdl = np.zeros((n, n, 3), dtype=np.int64)
        self.sprt = config.sprt() if config.mode == "sprt" else None
        self.decision: str | None = None
        self.decided_after = 0
        self.games = 0
        self._halves: dict[int, int] = {}
        for r in records:
            self.add(r)

    def add(self, record: dict[str, Any] | ArenaRecord) -> None:
        """Count one game (its record, or the JSON object of its line)."""
        r = record if isinstance(record, ArenaRecord) else ArenaRecord.from_json(record)
        w, b, s = r.white_index, r.black_index, r.white_score
        k = 0 if s == 1.0 else 1 if s == 0.5 else 2
        self.wdl[w, b, k] += 1
        self.wdl[b, w, 2 - k] += 1
        self.games += 1
        self._halves[r.round] = self._halves.get(r.round, 0) + 1
        if self.sprt is not None and self.decision is None and self._halves[r.round] == 2:
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
