"""The ``hive-web`` server: a FastAPI app with a small JSON API and the page that uses it.

Endpoints (documented at ``/docs``; every refusal is a 4xx ``{"detail": "one line"}`` and
leaves the game as it was):

=======================================  ==================================================
``GET  /``                               the page (``web/static``)
``GET  /api/players``                    the opponents to choose from, the game types
``POST /api/games``                      a new game (a game type, or a GameString to load)
``GET  /api/games/{id}``                 the position (``?ply=N``: an earlier one, read-only)
``GET  /api/games/{id}/legal-moves``     the legal moves of the live position
``POST /api/games/{id}/play``            a person's move (a MoveString)
``POST /api/games/{id}/undo``            take back moves
``POST /api/games/{id}/engine-move``     the engine on the side to move plays
``GET  /api/games/{id}/analysis``        network value, priors and search visit shares
``DELETE /api/games/{id}``               forget a game
=======================================  ==================================================

Engines and analyses run in a thread pool, never on the event loop, with a time limit.
"""

from __future__ import annotations

import asyncio
import contextlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Annotated

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field

from hive_env import GAME_TYPES, Game, HiveError
from search.checkpoint import CheckpointError

from .analysis import MAX_SIMS, ModelCache, analyse
from .players import Catalogue, UnknownPlayerError
from .sessions import SessionError, SessionStore
from .view import describe, position_at

STATIC = Path(__file__).resolve().parent / "static"
MAX_BODY = 64 * 1024
"""Largest request body accepted, in bytes (a GameString of a long game is a few KiB)."""
MAX_PLY_CAP = 10_000


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NewGame(_Body):
    game_type: str = Field("Base", max_length=16, description="Base, Base+M, ... Base+MLP")
    game_string: str | None = Field(None, max_length=MAX_BODY,
                                    description="a UHP GameString to load instead of a new game")
    white: str = Field("human", max_length=64, description="player id from GET /api/players")
    black: str = Field("random", max_length=64, description="player id from GET /api/players")
    ply_cap: int = Field(0, ge=0, le=MAX_PLY_CAP, description="draw after this many plies; 0 = none")
    seed: int = Field(0, ge=0, le=2**31 - 1, description="seeds the engines' random choices")


class PlayMove(_Body):
    move: str = Field(..., max_length=64, description="a UHP MoveString, e.g. 'bS1 wS1-' or 'pass'")


class Undo(_Body):
    plies: int | None = Field(None, ge=1, le=MAX_PLY_CAP,
                              description="plies to take back; default: back to the person's last move")


class _BodyLimit:
    """ASGI middleware: a request body over ``limit`` bytes is answered 413, whether it
    announces its length or streams in chunks (the body is read here, then handed on)."""

    def __init__(self, app, limit: int):
        self.app, self.limit = app, limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        too_big = JSONResponse({"detail": f"request body too large (at most {self.limit} bytes)"}, 413)
        for name, value in scope.get("headers", []):
            if name == b"content-length" and (not value.isdigit() or int(value) > self.limit):
                return await too_big(scope, receive, send)
        chunks, size = [], 0
        while True:
            message = await receive()
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


def create_app(models_dir: str | Path = "runs", move_time: float = 10.0, sims: int | None = None,
               max_sessions: int = 64, idle_s: float = 3600.0, workers: int = 4,
               device: str = "auto", engine_timeout: float | None = None,
               leaves: int | None = None) -> FastAPI:
    """The app.

    Args:
        models_dir: where checkpoints are looked for (recursively, ``*.pt``).
        move_time: seconds an alpha-beta move may take (its iterative deepening stops then).
        engine_timeout: seconds after which any engine still thinking is answered 504 and its
            move dropped (default ``2 * move_time + 5``).
        sims: simulations per move of the ``alphazero`` opponents (None: the player's default).
        leaves: their leaves per network call (None: the player's default).
        max_sessions: games kept at once; idle_s: a game untouched this long is dropped.
        workers: threads for engines and analyses.
        device: where analysis networks run.
    """
    engine_timeout = engine_timeout or 2 * move_time + 5
    catalogue = Catalogue(models_dir, move_time=move_time, **({"sims": sims} if sims else {}),
                          **({"leaves": leaves} if leaves else {}))
    store = SessionStore(catalogue, max_sessions=max_sessions, idle_s=idle_s)
    models = ModelCache(device)
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="hive-web")

    @contextlib.asynccontextmanager
    async def lifespan(app):
        yield
        pool.shutdown(wait=False, cancel_futures=True)

    app = FastAPI(title="hive-web", version="0.1.0", lifespan=lifespan,
                  description="Play, watch and analyse Hive. Players are named by the ids of "
                              "`GET /api/players`; positions follow UHP notation.")
    app.state.catalogue, app.state.store = catalogue, store
    app.add_middleware(_BodyLimit, limit=MAX_BODY)

    async def off_loop(fn, *args, timeout: float | None = None):
        job = asyncio.get_running_loop().run_in_executor(pool, fn, *args)
        return await (asyncio.wait_for(job, timeout) if timeout else job)

    @app.exception_handler(SessionError)
    async def _session_error(request: Request, exc: SessionError):
        return JSONResponse({"detail": exc.detail}, exc.status)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError):
        return JSONResponse({"detail": _one_line(exc)}, 422)

    @app.get("/", include_in_schema=False)
    async def index():
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    @app.get("/api/players", summary="Opponents and game types")
    async def players():
        entries = await off_loop(catalogue.entries)
        return {"players": [e.public() for e in entries], "game_types": list(GAME_TYPES),
                "sims": catalogue.sims, "max_sims": MAX_SIMS}

    @app.post("/api/games", status_code=201, summary="Start a game, or load a GameString")
    async def new_game(body: NewGame):
        try:
            seats = tuple(await asyncio.gather(off_loop(catalogue.entry, body.white),
                                               off_loop(catalogue.entry, body.black)))
        except UnknownPlayerError as e:
            raise SessionError(400, str(e)) from None
        try:
            if body.game_string is not None:
                if ";" not in body.game_string:
                    raise SessionError(400, "bad GameString: expected GameType;GameState;Turn[;Move]...")
                game = Game.from_string(body.game_string, ply_cap=body.ply_cap)
            else:
                if body.game_type not in GAME_TYPES:
                    raise SessionError(400, f"unknown game type {body.game_type!r} "
                                            f"(one of {', '.join(GAME_TYPES)})")
                game = Game(body.game_type, ply_cap=body.ply_cap)
        except HiveError as e:
            raise SessionError(400, f"bad GameString: {e}") from None
        try:
            for seat in seats:
                if seat.kind == "alphazero":
                    catalogue.network_path(seat, game.game_type)
        except UnknownPlayerError as e:
            raise SessionError(400, str(e)) from None
        return store.create(game, seats, seed=body.seed).state()

    @app.get("/api/games/{gid}", summary="The position (live, or after `ply` plies)")
    async def state(gid: str, ply: Annotated[int | None, Query(ge=0, le=MAX_PLY_CAP)] = None):
        return store.get(gid).state(ply)

    @app.get("/api/games/{gid}/legal-moves", summary="Legal moves of the live position")
    async def legal_moves(gid: str):
        return {"legal_moves": describe(store.get(gid).game)["legal_moves"]}

    @app.post("/api/games/{gid}/play", summary="Play a MoveString for the side to move")
    async def play(gid: str, body: PlayMove):
        session = store.get(gid)
        async with session.lock:
            if session.seats[session.game.side_to_move].kind != "human" and not session.game.is_over:
                raise SessionError(409, "it is the engine's turn (POST .../engine-move)")
            session.play(body.move)
        return session.state()

    @app.post("/api/games/{gid}/undo", summary="Take back moves")
    async def undo(gid: str, body: Undo | None = None):
        session = store.get(gid)
        async with session.lock:
            session.undo(body.plies if body else None)
        return session.state()

    @app.post("/api/games/{gid}/engine-move", summary="The engine on the side to move plays")
    async def engine_move(gid: str):
        session = store.get(gid)
        async with session.lock:
            try:
                await session.engine_move(pool, timeout_s=engine_timeout)
            except UnknownPlayerError as e:
                raise SessionError(409, str(e)) from None
        return session.state()

    @app.get("/api/games/{gid}/analysis", summary="Network value, priors and search visit shares")
    async def analysis(gid: str, ply: Annotated[int | None, Query(ge=0, le=MAX_PLY_CAP)] = None,
                       sims: Annotated[int, Query(ge=0, le=MAX_SIMS)] = 100,
                       model: Annotated[str | None, Query(max_length=64)] = None):
        session = store.get(gid)
        game = session.game
        if ply is not None and not 0 <= ply <= game.ply:
            raise SessionError(400, f"ply {ply} is outside the game (0..{game.ply})")
        view = position_at(game, ply) if ply is not None else game.copy()
        if view.is_over:
            raise SessionError(409, f"the game is over ({view.state}): nothing to analyse")
        entries = [e for e in await off_loop(catalogue.entries) if e.kind == "alphazero"]
        if not entries:
            raise SessionError(409, "no checkpoint under the models directory: analysis needs a network")
        chosen = next((e for e in entries if e.id == (model or "newest")), None)
        if chosen is None:
            raise SessionError(400, f"unknown model {model!r}: choose an AlphaZero id from GET /api/players")
        try:
            path = catalogue.network_path(chosen, view.game_type)
        except UnknownPlayerError as e:
            raise SessionError(409, str(e)) from None
        try:
            net, evaluate, device = await off_loop(models.get, path)
            out = await off_loop(analyse, view, net, evaluate, device, sims, timeout=max(60.0, 4 * move_time))
        except CheckpointError as e:
            raise SessionError(409, f"checkpoint cannot be loaded: {e}") from None
        except TimeoutError:
            raise SessionError(504, "the analysis took too long; try fewer simulations") from None
        return {"model": chosen.public(), "ply": view.ply, **out}

    @app.delete("/api/games/{gid}", status_code=204, summary="Forget a game")
    async def delete(gid: str):
        store.get(gid)
        store.drop(gid)
        return Response(status_code=204)

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app
