"""The ``hive-web`` server: a FastAPI app with a small JSON API and the page that uses it.

The routes are ``APIRouter``s by concern in ``web.routes`` (the page and its start-up tables,
games, analysis, review); ``/docs`` (OpenAPI) lists every endpoint with its body and answers.
Every refusal is a 4xx ``{"detail": "one line"}`` and leaves the game as it was. The app's parts
(players, games, search slots, reviews, the cheap pool) are a ``web.state.Server`` on
``app.state.server``, which routes reach through a dependency; every game belongs to the client
that made it (an owner token in an HttpOnly cookie, ``web.owners``), and another client's game
answers 404, like an unknown one. Request bodies (``web.bodies``) are strictly typed and at most
``MAX_BODY`` bytes, sent within ``body_timeout`` seconds (``_BodyLimit``).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles

from hive_env import Game

from .analysis import ModelCache
from .bodies import MAX_BODY
from .limits import SearchRefusedError, SearchSlots
from .owners import OwnerCookie
from .players import Catalogue
from .review import Reviews
from .routes import ROUTERS, STATIC
from .sessions import SessionError, SessionStore
from .settings import WebSettings
from .state import Server
from .view import describe, position_at

DESCRIPTION = ("Play, watch and analyse Hive. Players are named by the ids of `GET /api/players`; "
               "positions follow UHP notation. A game is seen only by the client that made it "
               "(the `hive_owner` cookie).")


class _BodyLimit:
    """ASGI middleware: a request body over ``limit`` bytes is answered 413, whether it
    announces its length or streams in chunks, and one not received within ``timeout_s``
    seconds 408 (a client trickling its body holds no request open for long). The body is read
    here, then handed on."""

    def __init__(self, app, limit: int, timeout_s: float = 10.0):
        self.app, self.limit, self.timeout_s = app, limit, timeout_s

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        too_big = JSONResponse({"detail": f"request body too large (at most {self.limit} bytes)"}, 413)
        for name, value in scope.get("headers", []):
            if name == b"content-length" and (not value.isdigit() or int(value) > self.limit):
                return await too_big(scope, receive, send)
        chunks, size = [], 0
        deadline = time.monotonic() + self.timeout_s
        while True:
            try:
                message = await asyncio.wait_for(receive(), max(deadline - time.monotonic(), 0.0))
            except TimeoutError:
                slow = JSONResponse({"detail": f"request body not received within {self.timeout_s:g} s"}, 408,
                                    headers={"Connection": "close"})
                return await slow(scope, receive, send)
            if message["type"] != "http.request":
                return None  # the client went away
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > self.limit:
                return await too_big(scope, receive, send)
            if not message.get("more_body", False):
                break
        body = {"type": "http.request", "body": b"".join(chunks), "more_body": False}

        async def replay():
            nonlocal body
            if body is not None:
                message, body = body, None
                return message
            return await receive()

        return await self.app(scope, replay, send)


def _one_line(exc: RequestValidationError) -> str:
    err = exc.errors()[0] if exc.errors() else {}
    where = ".".join(str(x) for x in err.get("loc", ()) if x != "body") or "request"
    return f"{where}: {err.get('msg', 'invalid')}".replace("\n", " ")


async def _session_error(request: Request, exc: SessionError):
    return JSONResponse({"detail": exc.detail}, exc.status)


async def _search_refused(request: Request, exc: SearchRefusedError):
    return JSONResponse({"detail": exc.detail}, exc.status, headers={"Retry-After": "5"})


async def _validation_error(request: Request, exc: RequestValidationError):
    return JSONResponse({"detail": _one_line(exc)}, 422)


ERROR_HANDLERS = {SessionError: _session_error, SearchRefusedError: _search_refused,
                  RequestValidationError: _validation_error}
"""Refusals as ``{"detail": "one line"}`` (a search refused also says when to retry)."""


def _warm_up() -> None:
    """Loads the engine's compiled kernels (seconds on their first use in a process), so that
    the first page opened does not wait for them."""
    game = Game("Base+MLP")
    for _ in range(6):
        describe(game)
        game.play(int(game.legal_moves()[0]))
    Game.from_string(game.game_string())
    position_at(game, 2)


@contextlib.asynccontextmanager
async def _lifespan(app: FastAPI):
    server: Server = app.state.server
    await server.cheap(_warm_up)  # before the server takes its first request
    yield
    server.close()


def create_app(models_dir: str | Path | None = None, *, clock: Callable[[], float] = time.monotonic,
               settings: WebSettings | None = None, **overrides: Any) -> FastAPI:
    """The app of ``settings`` (default ``WebSettings()``), with ``models_dir`` and
    ``overrides`` (:class:`~web.settings.WebSettings` fields by name) in their place:
    ``create_app("runs", sims=16)``.

    Args:
        clock: the monotonic clock, in seconds, that games' clocks read (a fake one in tests).
            An engine's move in a clock game searches the time manager's share of its time
            left, at most ``move_time`` (and half of the engine timeout).

    Raises:
        TypeError: an override that is no setting.
        hive_zero.checks.RangeError: a setting out of its range.
    """
    if models_dir is not None:
        overrides["models_dir"] = models_dir
    s = dataclasses.replace(settings or WebSettings(), **overrides)
    move_time, engine_timeout = s.move_time, s.engine_deadline
    catalogue = Catalogue(s.models_dir, move_time=move_time, **({"sims": s.sims} if s.sims else {}),
                          **({"leaves": s.leaves} if s.leaves else {}))
    app = FastAPI(title="hive-web", version="0.2.0", lifespan=_lifespan, description=DESCRIPTION,
                  exception_handlers=ERROR_HANDLERS)
    app.state.server = Server(
        catalogue=catalogue,
        store=SessionStore(catalogue, s, clock=clock),
        models=ModelCache(s.device, opener=catalogue.open),
        pool=ThreadPoolExecutor(max_workers=s.workers, thread_name_prefix="hive-web-cheap"),
        search_slots=SearchSlots(s.search_slots, s.search_sims, s.search_queue),
        reviews=Reviews(s.review_workers, s.review_queue),
        engine_timeout=engine_timeout, max_share_s=min(move_time, engine_timeout / 2),
        analysis_timeout=s.analysis_deadline)
    app.add_middleware(_BodyLimit, limit=MAX_BODY, timeout_s=s.body_timeout)
    app.add_middleware(OwnerCookie)
    for router in ROUTERS:
        app.include_router(router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app
