"""Search slots: how engines' moves, analyses and other long jobs share the machine fairly.

A search (an alpha-beta or AlphaZero engine's move, an analysis, a review job) takes seconds of
CPU or GPU; listing players, parsing a GameString or drawing a position takes milliseconds.
:class:`SearchSlots` runs searches on a thread pool of their own, so cheap work (on the
server's other pool) never waits behind one, under three bounds:

- at most ``slots`` searches run at once, one per worker thread of the slots' pool, so a
  granted search never waits again inside the pool;
- at most ``sims_budget`` simulations are in flight, summed over the running searches (a
  search asking for more than the whole budget runs alone);
- a client (its owner token, ``web.owners``) has at most one search running. It may have one
  more waiting for its turn (the page asks for an analysis while its engine moves); a third is
  refused 429 at once.

A search that cannot start waits in a first-come first-served queue (at most ``max_queue``
long, else 429; a waiting search whose client already runs one lets the next in line go
first) until its deadline, which counts the wait: the time a client waited for a slot is part
of its time limit, never added to it. A search that runs past its deadline is answered
:class:`TimeoutError` while its thread finishes (Python threads cannot be stopped); its slot,
its simulations and its client's turn are given back only when the thread ends, so a timed-out
search still counts against the bounds while it really runs.

Any route takes a slot the same way (``slots = app.state.server.search_slots``)::

    deadline = time.monotonic() + seconds          # starts when the request arrives
    try:
        result = await slots.run(owner, sims, deadline, fn, *args)   # fn(*args) in a worker
    except TimeoutError:
        ...                                         # answer 504: the search ran out of time

:class:`SearchRefusedError` (429 client busy or queue full, 503 no slot before the deadline)
carries its status and a one-line reason; ``web.app`` answers it as ``{"detail": ...}``.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

from .settings import WebSettings

T = TypeVar("T")

PER_CLIENT = 2
"""Searches one client may have queued or running (one running, one waiting its turn)."""


class SearchRefusedError(Exception):
    """A search that is not run: ``status`` (429 or 503) and a one-line ``detail``."""

    def __init__(self, status: int, detail: str):
        super().__init__(detail)
        self.status = status
        self.detail = detail


@dataclass
class _Waiter:
    """A search in the queue: whose, its cost, and the future completed when it may start."""

    owner: str
    sims: int
    future: asyncio.Future
    granted: bool = field(default=False)


class SearchSlots:
    """The bounded, fair queue in front of the search worker threads.

    Only the event loop calls :meth:`run` (and the counters change only there), so no lock is
    needed; worker threads hand their slot back through ``loop.call_soon_threadsafe``.

    Args:
        slots: searches running at once (the worker threads of :attr:`pool`).
        sims_budget: simulations in flight over all running searches (two
            analyses at ``web.analysis.MAX_SIMS``).
        max_queue: searches waiting at most.
        name: prefix of the worker threads' names.
    """

    def __init__(self, slots: int = WebSettings.search_slots, sims_budget: int = WebSettings.search_sims,
                 max_queue: int = WebSettings.search_queue, name: str = "hive-web-search"):
        self.slots, self.sims_budget, self.max_queue = slots, sims_budget, max_queue
        self.pool = ThreadPoolExecutor(max_workers=slots, thread_name_prefix=name)
        self._running = 0
        self._sims = 0
        self._owners: Counter[str] = Counter()  # searches queued or running, by client
        self._running_owners: set[str] = set()
        self._queue: list[_Waiter] = []

    @property
    def in_flight(self) -> tuple[int, int, int]:
        """(searches running, simulations in flight, searches waiting)."""
        return self._running, self._sims, len(self._queue)

    async def run(self, owner: str, sims: int, deadline: float, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in a search worker, once a slot and ``sims`` simulations are free and
        ``owner`` has no other search running.

        Args:
            owner: the client's token (``request.state.owner``).
            sims: simulations the search will make (0 for a search that has none, e.g. alpha-beta).
            deadline: ``time.monotonic()`` time by which the answer is due, wait included.
            fn, args: the search; runs in a worker thread, never on the event loop.

        Returns:
            what ``fn`` returns (its exceptions are raised here).

        Raises:
            SearchRefusedError: 429 the owner has a search running and one waiting, or the
                queue is full; 503 no slot came free before the deadline.
            TimeoutError: the search started but did not finish by the deadline.
        """
        cost = min(max(int(sims), 0), self.sims_budget)
        if self._owners[owner] >= PER_CLIENT:
            raise SearchRefusedError(429, "you have a search running and another waiting; wait for them "
                                          "to finish")
        if deadline <= time.monotonic():
            raise SearchRefusedError(503, "the request ran out of time before its search could start")
        self._owners[owner] += 1
        try:
            await self._acquire(owner, cost, deadline)
        except BaseException:
            self._forget(owner)
            raise
        loop = asyncio.get_running_loop()
        job: Future = self.pool.submit(fn, *args)

        def release(_: Future) -> None:
            with contextlib.suppress(RuntimeError):  # a closed loop: the server has stopped
                loop.call_soon_threadsafe(self._release, owner, cost)

        job.add_done_callback(release)
        wrapped = asyncio.wrap_future(job)
        wrapped.add_done_callback(lambda f: f.cancelled() or f.exception())  # no "never retrieved"
        return await asyncio.wait_for(asyncio.shield(wrapped), max(deadline - time.monotonic(), 0.0))

    def close(self) -> None:
        """Stop taking searches; queued ones in the pool are dropped, running ones finish."""
        self.pool.shutdown(wait=False, cancel_futures=True)

    # ----- the queue ----------------------------------------------------------------------------
    async def _acquire(self, owner: str, cost: int, deadline: float) -> None:
        """Reserve a slot and ``cost`` simulations for ``owner``, waiting in turn until ``deadline``."""
        waiter = _Waiter(owner, cost, asyncio.get_running_loop().create_future())
        self._queue.append(waiter)
        self._grant()
        if waiter.granted:
            return
        if len(self._queue) > self.max_queue:
            self._queue.remove(waiter)
            raise SearchRefusedError(429, f"the server is busy ({len(self._queue)} searches waiting); "
                                          "try again shortly")
        remaining = deadline - time.monotonic()
        try:
            await asyncio.wait_for(waiter.future, max(remaining, 0.0))
        except (TimeoutError, asyncio.CancelledError) as e:
            if waiter.granted:  # granted just as the wait ended: hand it on
                self._release(owner, cost, forget=False)
            elif waiter in self._queue:
                self._queue.remove(waiter)
                self._grant()
            if isinstance(e, TimeoutError):
                raise SearchRefusedError(503, f"the server is busy: no search slot came free within "
                                              f"{max(remaining, 0.0):.3g} s; try again shortly") from None
            raise

    def _grant(self) -> None:
        """Start waiting searches in order: one whose client already runs a search lets the next
        go first; one that does not fit (slots or simulations) stops the line, so a large search
        is not overtaken for ever by small ones."""
        for waiter in list(self._queue):
            if waiter.future.done():  # its request gave up meanwhile
                self._queue.remove(waiter)
                continue
            if waiter.owner in self._running_owners:
                continue
            if self._running >= self.slots or self._sims + waiter.sims > self.sims_budget:
                break
            self._queue.remove(waiter)
            self._running += 1
            self._sims += waiter.sims
            self._running_owners.add(waiter.owner)
            waiter.granted = True
            waiter.future.set_result(None)

    def _release(self, owner: str, cost: int, forget: bool = True) -> None:
        """A running search ended (``forget``: its client's count goes down too)."""
        self._running -= 1
        self._sims -= cost
        self._running_owners.discard(owner)
        if forget:
            self._forget(owner)
        self._grant()

    def _forget(self, owner: str) -> None:
        self._owners[owner] -= 1
        if self._owners[owner] <= 0:
            del self._owners[owner]
