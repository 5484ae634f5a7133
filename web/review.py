"""Game review in hive-web: every position of a game searched and every move judged
(:func:`search.review.review_game`), run as a background job per game that the page polls.

``POST /api/games/{id}/review`` starts the review of the game's moves so far (a running review of
that game is cancelled first); ``GET`` reports its progress and, once done, every ply's marks, White's
expected score at each position, and the board cells of the played and the best move (the page
draws both); ``DELETE`` cancels it. Reviews run in their own worker threads (``workers``, one by
default), so a review never holds a search slot (``web.limits``) that engines' moves and
analyses need; one waiting for a thread says ``queued``. A client has one review at a time (a
new one cancels its others), at most ``max_jobs`` are queued or running over all clients (then
429), and a job whose game was deleted or has expired is dropped with it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field

from hive_env import PASS, Game
from hive_env.board import move_dest
from search.review import THRESHOLDS, GameReview, Network, review_game

from .settings import WebSettings
from .view import Frame, move_cells

MAX_REVIEW_SIMS = 800
"""Most simulations a position one review may ask for."""
DEFAULT_REVIEW_SIMS = 100
REVIEW_TIMEOUT_S = 900.0
"""A review still running after this long (queue wait included) is cancelled."""


@dataclass
class ReviewJob:
    """One review of one game: its progress, then its result."""

    game_id: str
    owner: str
    plies: int
    sims: int
    model: dict
    status: str = "queued"
    """``queued``, ``running``, ``done``, ``cancelled`` or ``failed``."""
    progress: float = 0.0
    error: str = ""
    result: dict | None = None
    started: float = field(default_factory=time.monotonic)
    cancel: threading.Event = field(default_factory=threading.Event)

    def public(self) -> dict:
        out = {"status": self.status, "progress": round(self.progress, 4), "plies": self.plies,
               "sims": self.sims, "model": self.model, "elapsed_s": round(time.monotonic() - self.started, 2)}
        if self.error:
            out["error"] = self.error
        if self.result is not None:
            out.update(self.result)
        return out


def _cells(position: Game, move: int) -> dict:
    """``move_cells`` of an encoded move in ``position``, in the frame the page draws that
    position in, with its MoveString."""
    cells = move_cells(position, move, Frame(position.board, [] if move == PASS else [move_dest(move)]))
    return {"move": position.move_string(move), **cells}


def review_result(game: Game, review: GameReview) -> dict:
    """The JSON of a finished review: the marks of :mod:`search.review` per ply, White's expected
    score at each position, and the cells of the played and the best move of each position (the
    game replayed once from its start)."""
    plies = []
    position = Game(game.game_type)
    for p, move in zip(review.plies, game.moves, strict=True):
        plies.append({**asdict(p), "played_cells": _cells(position, int(move)),
                      "best_cells": _cells(position, position.parse_move(p.best))})
        position.play(int(move))
    return {"plies_reviewed": plies, "white_scores": review.white_scores(),
            "thresholds": dict(THRESHOLDS)}


class Reviews:
    """The review jobs of one server, one per game id.

    Args:
        workers: reviews that run at once (each uses one core's worth of search).
    """

    def __init__(self, workers: int = WebSettings.review_workers, max_jobs: int = WebSettings.review_queue):
        self.max_jobs = max_jobs
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="hive-review")
        self._jobs: dict[str, ReviewJob] = {}
        self._lock = threading.Lock()

    def start(self, game_id: str, owner: str, game: Game, sims: int, model: dict,
              network: Callable[[], Network]) -> ReviewJob:
        """Queue the review of ``game`` (a copy is taken) for its ``owner``; ``network`` loads
        the network in the worker thread. The owner's other reviews are cancelled.

        Raises:
            OverflowError: ``max_jobs`` reviews of other clients are queued or running.
        """
        game = game.copy()
        job = ReviewJob(game_id, owner, game.ply, sims, model)
        with self._lock:
            for old in self._jobs.values():
                if old.owner == owner or old.game_id == game_id:
                    self._cancel(old)
            busy = sum(j.status in ("queued", "running") and not j.cancel.is_set()
                       for j in self._jobs.values())
            if busy >= self.max_jobs:
                raise OverflowError(f"the server is reviewing {busy} games, its most; try again shortly")
            self._jobs[game_id] = job
        self._pool.submit(self._run, job, game, network)
        return job

    def _run(self, job: ReviewJob, game: Game, network: Callable[[], Network]) -> None:
        def stop() -> bool:
            late = time.monotonic() - job.started > REVIEW_TIMEOUT_S
            if late and not job.error:
                job.error = f"the review ran past {REVIEW_TIMEOUT_S:g} s; try fewer simulations"
            return job.cancel.is_set() or late

        if stop():
            job.status = "cancelled"
            return
        job.status = "running"
        try:
            net = network()
            review = review_game(game, net, sims=job.sims, cancelled=stop,
                                 progress=lambda share: setattr(job, "progress", 0.98 * share))
            if review.cancelled:
                job.status = "cancelled"
                return
            job.result = review_result(game, review)
            job.progress, job.status = 1.0, "done"
        except Exception as e:  # a network that cannot be loaded, or a bug: said, not raised into the pool
            job.error = f"{type(e).__name__}: {e}".splitlines()[0][:300]
            job.status = "failed"

    def get(self, game_id: str) -> ReviewJob | None:
        return self._jobs.get(game_id)

    def cancel(self, game_id: str) -> ReviewJob | None:
        """Cancel the review of a game (it stays readable as ``cancelled``)."""
        job = self._jobs.get(game_id)
        if job is not None:
            self._cancel(job)
        return job

    @staticmethod
    def _cancel(job: ReviewJob) -> None:
        job.cancel.set()
        if job.status == "queued":
            job.status = "cancelled"

    def forget(self, keep: Callable[[str], bool]) -> None:
        """Cancel and drop the jobs of games ``keep`` says are gone."""
        with self._lock:
            for gid in [g for g in self._jobs if not keep(g)]:
                self._jobs.pop(gid).cancel.set()

    def shutdown(self) -> None:
        for job in list(self._jobs.values()):
            job.cancel.set()
        self._pool.shutdown(wait=False, cancel_futures=True)
