"""What hive-web's routes share: the app's parts (:class:`Server`, on ``app.state.server``) and
the client a request comes from, both reached through FastAPI dependencies (``ServerDep``,
``Owner``) that read them off the request.

Nothing slow runs on the event loop: cheap work (parsing a GameString, listing players, drawing a
position, the legal moves) runs on one thread pool (:meth:`Server.cheap`), searches (alpha-beta
and AlphaZero engines' moves, analyses) on another behind ``web.limits.SearchSlots``, so a burst
of searches never delays a cheap request. Reviews of whole games run on a pool of their own
(``web.review``).
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from fastapi import Depends, Request

from .analysis import ModelCache
from .limits import SearchSlots
from .players import Catalogue, Entry, UnknownPlayerError
from .review import Reviews
from .sessions import SessionError, SessionStore


@dataclass(frozen=True, eq=False)
class Server:
    """The parts of one app (``web.create_app`` makes them; its arguments say what bounds them)."""

    catalogue: Catalogue
    """The players: classical ones and the checkpoints under the models directory."""
    store: SessionStore
    """The games, by id and owner."""
    models: ModelCache
    """Loaded networks, for analyses and reviews."""
    pool: ThreadPoolExecutor
    """The cheap pool (never behind a search)."""
    search_slots: SearchSlots
    """Engines' moves and analyses, in a bounded fair queue."""
    reviews: Reviews
    """Game reviews, on threads of their own."""
    engine_timeout: float
    """Seconds from an engine-move request to its answer (the wait for a slot included)."""
    max_share_s: float
    """The most a clock game's engine move may search, in seconds."""
    analysis_timeout: float
    """Seconds from an analysis request to its answer (the wait for a slot included)."""

    async def cheap(self, fn, *args, timeout: float | None = None):
        """``fn(*args)`` on the cheap pool (never behind a search)."""
        job = asyncio.get_running_loop().run_in_executor(self.pool, fn, *args)
        return await (asyncio.wait_for(job, timeout) if timeout is not None else job)

    def search_sims_of(self, seat: Entry) -> int | None:
        """Simulations an engine's move costs in the search budget; None: not a search (the
        random and greedy players answer at once, on the cheap pool; ``Catalogue.search_cost``)."""
        return self.catalogue.search_cost(seat)

    async def network_for(self, model: str | None, game_type: str) -> tuple[Entry, Path]:
        """The AlphaZero entry ``model`` names (default: ``newest``) and its network's path."""
        entries = [e for e in await self.cheap(self.catalogue.entries) if e.kind == "alphazero"]
        if not entries:
            raise SessionError(409, "no checkpoint under the models directory: analysis needs a network")
        chosen = next((e for e in entries if e.id == (model or "newest")), None)
        if chosen is None:
            raise SessionError(400, f"unknown model {model!r}: choose an AlphaZero id from GET /api/players")
        try:
            return chosen, self.catalogue.network_path(chosen, game_type)
        except UnknownPlayerError as e:
            raise SessionError(409, str(e)) from None

    def close(self) -> None:
        """Stops the pools (the app's shutdown)."""
        self.pool.shutdown(wait=False, cancel_futures=True)
        self.search_slots.close()
        self.reviews.shutdown()


async def _server(request: Request) -> Server:
    return request.app.state.server


ServerDep = Annotated[Server, Depends(_server)]
"""The app's parts, as a route's parameter."""


def _owner(request: Request) -> str:
    """The client's owner token (``web.owners.OwnerCookie`` put it there)."""
    return request.state.owner


Owner = Annotated[str, Depends(_owner)]
"""The client's owner token, as a route's parameter (its games are the ones it may see)."""
