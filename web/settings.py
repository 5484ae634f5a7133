"""The app's settings (``web.create_app``), with their defaults and ranges: ``hive-web``'s options
are built from these fields (``scripts/web.py``). Imports nothing of the server, so that the
command line reads them quickly."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hive_zero.checks import bounded, check_ranges


@dataclass(frozen=True)
class WebSettings:
    """What the app serves and its caps (docs/web.md).

    Args:
        models_dir: where checkpoints are looked for (recursively, ``*.pt``).
        move_time: seconds an alpha-beta move may take (its iterative deepening stops then);
            in a clock game the most any engine's move may search.
        sims: simulations a move of the ``alphazero`` opponents at the top level (None: its 1 s
            a move; ``web.players``, "Levels"); the levels below keep their own.
        leaves: their leaves per network call (None: the player's default).
        max_sessions: games kept at once, over all clients; when full, a client with no idle
            game of its own to replace is refused 429.
        idle_s: a game untouched this long (and with no engine thinking) is dropped.
        workers: threads for cheap work (parsing, listing, drawing positions).
        device: where analysis networks run.
        engine_timeout: seconds from an engine-move request to its answer, the wait for a
            search slot included; an engine still thinking then is answered 504 and its move
            dropped (None: ``2 * move_time + 5``).
        per_client: games one client keeps (a new one replaces its least recently used).
        search_slots: searches (engines' moves, analyses) running at once, each on its own thread.
        search_sims: simulations in flight over all running searches: twice an analysis's most
            (``web.analysis.MAX_SIMS``, which imports torch: a test ties the two).
        search_queue: searches waiting for a slot at most (more are refused 429).
        analysis_timeout: the same as ``engine_timeout`` for an analysis (None:
            ``max(60, 4 * move_time)``).
        body_timeout: seconds a client may take to send its request body (else 408).
        review_workers: game reviews running at once (each searches every position of a game).
        review_queue: reviews queued or running at most, over all clients (one per client).
    """

    models_dir: str | Path = "runs"
    move_time: float = bounded(10.0, gt=0.0)
    sims: int | None = bounded(None, ge=1)
    leaves: int | None = bounded(None, ge=1, le=256)
    max_sessions: int = bounded(64, ge=1)
    idle_s: float = bounded(3600.0, gt=0.0)
    workers: int = bounded(4, ge=1)
    device: str = "auto"
    engine_timeout: float | None = bounded(None, gt=0.0)
    per_client: int = bounded(8, ge=1)
    search_slots: int = bounded(2, ge=1)
    search_sims: int = bounded(4000, ge=1)
    search_queue: int = bounded(16, ge=0)
    analysis_timeout: float | None = bounded(None, gt=0.0)
    body_timeout: float = bounded(10.0, gt=0.0)
    review_workers: int = bounded(1, ge=1)
    review_queue: int = bounded(8, ge=1)

    def __post_init__(self) -> None:
        check_ranges(self)

    @property
    def engine_deadline(self) -> float:
        """``engine_timeout``, or its default."""
        return self.engine_timeout or 2 * self.move_time + 5

    @property
    def analysis_deadline(self) -> float:
        """``analysis_timeout``, or its default."""
        return self.analysis_timeout or max(60.0, 4 * self.move_time)
