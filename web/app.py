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
``POST /api/games/{id}/review``          review the whole game (``web.review``), in the background
``GET  /api/games/{id}/review``          the review's progress, then its marks and chart
``DELETE /api/games/{id}/review``        cancel the review
``DELETE /api/games/{id}``               forget a game
=======================================  ==================================================

Every game belongs to the client that made it (an owner token in an HttpOnly cookie,
``web.owners``); another client's game answers 404, like an unknown one. Nothing slow runs on
the event loop: cheap work (parsing a GameString, listing players, drawing a position, the legal
moves) runs on one thread pool, searches (alpha-beta and AlphaZero engines' moves, analyses) on
another behind ``web.limits.SearchSlots`` (a bounded fair queue: a deadline that counts the
wait, one search running per client, a budget of simulations in flight), so a burst of
searches never delays a cheap request. Reviews of whole games run on a pool of their own
(``web.review``), one per client at a time. Request bodies are strictly typed (no ``"2"`` for
2, no ``true`` for 1) and MoveStrings and GameStrings are one line of printable ASCII.

A new game may have a clock (``clock: "BASE+INC"`` seconds, ``players.clock``), kept on the
server (``web.sessions``): every answer about the game holds ``clock`` (``null`` without one):
its control, both sides' seconds left as of the answer, the running side and who flagged. A
side out of time loses on time (``result.reason`` ``"time forfeit"``); undo is refused in a
clock game.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import unicodedata
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Annotated

from fastapi import Depends, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from hive_env import GAME_TYPES, Game, HiveError
from hive_env.game_records import RecordError, read_game
from players.clock import ClockControl
from search.checkpoint import CheckpointError

from .analysis import MAX_SIMS, ModelCache, analyse
from .limits import SearchRefusedError, SearchSlots
from .owners import OwnerCookie
from .players import Catalogue, Entry, UnknownPlayerError
from .review import DEFAULT_REVIEW_SIMS, MAX_REVIEW_SIMS, Network, Reviews
from .sessions import MAX_PLIES, SessionError, SessionStore
from .view import describe, position_at

STATIC = Path(__file__).resolve().parent / "static"
MAX_BODY = 64 * 1024
"""Largest request body accepted, in bytes (a GameString of a long game is a few KiB)."""


def one_line(text: str) -> str:
    """``text`` if it is one line of printable ASCII (all UHP notation is), else ValueError
    naming the first other character: a newline, U+2028 or a control character could smuggle a
    second command into a line-based protocol or a log."""
    for ch in text:
        if not " " <= ch <= "~":
            raise ValueError(f"only printable ASCII is allowed (found U+{ord(ch):04X})")
    return text


Line = Annotated[str, AfterValidator(one_line)]


def record_text(text: str) -> str:
    """``text`` if it is record text: lines of printable characters (tabs allowed; a record's
    names may be any language's), else ValueError naming the first other character. Line and
    paragraph separators (U+2028, U+2029) and control characters are refused: a reader that
    splits lines on them would see lines the client did not write."""
    for ch in text:
        if ch in "\n\r\t":
            continue
        if unicodedata.category(ch) in ("Cc", "Cs", "Zl", "Zp") or ch in "\ufeff":
            raise ValueError(f"a record is lines of printable text (found U+{ord(ch):04X})")
    return text


RecordText = Annotated[str, AfterValidator(record_text)]

MAX_CLOCK_BASE_S = 3 * 3600.0
"""Longest base time a clock may have, in seconds (3 hours)."""
MAX_CLOCK_INCREMENT_S = 600.0
"""Largest increment a clock may have, in seconds (10 minutes)."""


def clock_text(text: str) -> str:
    """``text`` as a normalised clock control (``"60 + 1"`` -> ``"60+1"``; ``""`` -> ``""``, no
    clock), else ValueError (``players.clock.ClockError``): not ``BASE+INC`` seconds, or over
    the caps."""
    if not text.strip():
        return ""
    control = ClockControl.parse(text)
    if control.base_s > MAX_CLOCK_BASE_S or control.increment_s > MAX_CLOCK_INCREMENT_S:
        raise ValueError(f"a clock may have at most {MAX_CLOCK_BASE_S:g} s base and "
                         f"{MAX_CLOCK_INCREMENT_S:g} s increment (got {control})")
    return str(control)


ClockText = Annotated[str, Field(max_length=32), AfterValidator(one_line), AfterValidator(clock_text)]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class NewGame(_Body):
    game_type: Line = Field("Base", max_length=16, description="Base, Base+M, ... Base+MLP")
    game_string: Line | None = Field(None, max_length=MAX_BODY,
                                     description=f"a UHP GameString to load instead of a new game "
                                                 f"(at most {MAX_PLIES} moves)")
    record: RecordText | None = Field(None, max_length=MAX_BODY,
                                      description="a game record to load: a GameString, games.jsonl, "
                                                  "Mzinga PGN or boardspace SGF text (hive_env.game_records)")
    record_game: int = Field(1, ge=1, le=100_000, description="which game of the record, from 1")
    white: Line = Field("human", max_length=64, description="player id from GET /api/players")
    black: Line = Field("random", max_length=64, description="player id from GET /api/players")
    ply_cap: int = Field(0, ge=0, le=MAX_PLIES, description="draw after this many plies; 0 = none")
    seed: int = Field(0, ge=0, le=2**31 - 1, description="seeds the engines' random choices")
    clock: ClockText | None = Field(None, description="a game clock, BASE+INC seconds (e.g. 60+1: "
                                                      "a minute each, a second added a move); "
                                                      "null or \"\": none")


class PlayMove(_Body):
    move: Line = Field(..., max_length=64, description="a UHP MoveString, e.g. 'bS1 wS1-' or 'pass'")


class Undo(_Body):
    plies: int | None = Field(None, ge=1, le=MAX_PLIES,
                              description="plies to take back; default: back to the person's last move")


class StartReview(_Body):
    sims: int = Field(DEFAULT_REVIEW_SIMS, ge=1, le=MAX_REVIEW_SIMS, description="simulations a position")
    model: Line | None = Field(None, max_length=64, description="an AlphaZero id from GET /api/players")


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


def _owner(request: Request) -> str:
    """The client's owner token (``web.owners.OwnerCookie`` put it there)."""
    return request.state.owner


Owner = Annotated[str, Depends(_owner)]


def moves_in(game_string: str) -> int:
    """Moves a GameString lists (counted without parsing it: ``GameType;GameState;Turn;m1;m2...``)."""
    parts = game_string.strip().split(";")
    while len(parts) > 3 and not parts[-1].strip():
        parts.pop()
    return max(len(parts) - 3, 0)


def _warm_up() -> None:
    """Loads the engine's compiled kernels (seconds on their first use in a process), so that
    the first page opened does not wait for them."""
    game = Game("Base+MLP")
    for _ in range(6):
        describe(game)
        game.play(int(game.legal_moves()[0]))
    Game.from_string(game.game_string())
    position_at(game, 2)


def create_app(models_dir: str | Path = "runs", move_time: float = 10.0, sims: int | None = None,
               max_sessions: int = 64, idle_s: float = 3600.0, workers: int = 4,
               device: str = "auto", engine_timeout: float | None = None,
               leaves: int | None = None, per_client: int = 8, search_slots: int = 2,
               search_sims: int = 2 * MAX_SIMS, search_queue: int = 16,
               analysis_timeout: float | None = None, body_timeout: float = 10.0,
               review_workers: int = 1, review_queue: int = 8,
               clock: Callable[[], float] = time.monotonic) -> FastAPI:
    """The app.

    Args:
        models_dir: where checkpoints are looked for (recursively, ``*.pt``).
        move_time: seconds an alpha-beta move may take (its iterative deepening stops then);
            in a clock game the most any engine's move may search.
        engine_timeout: seconds from an engine-move request to its answer, the wait for a
            search slot included; an engine still thinking then is answered 504 and its move
            dropped (default ``2 * move_time + 5``).
        analysis_timeout: the same for an analysis (default ``max(60, 4 * move_time)``).
        sims: simulations per move of the ``alphazero`` opponents (None: the player's default).
        leaves: their leaves per network call (None: the player's default).
        max_sessions: games kept at once, over all clients; when full, a client with no idle
            game of its own to replace is refused 429.
        per_client: games one client keeps (a new one replaces its least recently used).
        idle_s: a game untouched this long (and with no engine thinking) is dropped.
        workers: threads for cheap work (parsing, listing, drawing positions).
        search_slots: searches (engines' moves, analyses) running at once, each on its own thread.
        search_sims: simulations in flight over all running searches.
        search_queue: searches waiting for a slot at most (more are refused 429).
        body_timeout: seconds a client may take to send its request body (else 408).
        review_workers: game reviews running at once (each searches every position of a game).
        review_queue: reviews queued or running at most, over all clients (one per client).
        device: where analysis networks run.
        clock: the monotonic clock, in seconds, that games' clocks read (a fake one in tests).
            An engine's move in a clock game searches the time manager's share of its time
            left, at most ``move_time`` (and half of ``engine_timeout``).
    """
    engine_timeout = engine_timeout or 2 * move_time + 5
    max_share_s = min(move_time, engine_timeout / 2)  # a clock game's engine move, at most
    analysis_timeout = analysis_timeout or max(60.0, 4 * move_time)
    catalogue = Catalogue(models_dir, move_time=move_time, **({"sims": sims} if sims else {}),
                          **({"leaves": leaves} if leaves else {}))
    store = SessionStore(catalogue, max_sessions=max_sessions, idle_s=idle_s, per_client=per_client,
                         clock=clock)
    models = ModelCache(device, opener=catalogue.open)
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="hive-web-cheap")
    slots = SearchSlots(search_slots, search_sims, search_queue)
    reviews = Reviews(review_workers, review_queue)

    @contextlib.asynccontextmanager
    async def lifespan(app):
        await cheap(_warm_up)  # before the server takes its first request
        yield
        pool.shutdown(wait=False, cancel_futures=True)
        slots.close()
        reviews.shutdown()

    app = FastAPI(title="hive-web", version="0.2.0", lifespan=lifespan,
                  description="Play, watch and analyse Hive. Players are named by the ids of "
                              "`GET /api/players`; positions follow UHP notation. A game is seen "
                              "only by the client that made it (the `hive_owner` cookie).")
    app.state.catalogue, app.state.store, app.state.search_slots = catalogue, store, slots
    app.state.reviews = reviews
    app.add_middleware(_BodyLimit, limit=MAX_BODY, timeout_s=body_timeout)
    app.add_middleware(OwnerCookie)

    async def cheap(fn, *args, timeout: float | None = None):
        """``fn(*args)`` on the cheap pool (never behind a search)."""
        job = asyncio.get_running_loop().run_in_executor(pool, fn, *args)
        return await (asyncio.wait_for(job, timeout) if timeout is not None else job)

    def search_sims_of(seat: Entry) -> int | None:
        """Simulations an engine's move costs in the search budget; None: not a search (the
        random and greedy players answer at once, on the cheap pool)."""
        if seat.kind == "alphazero":
            return catalogue.sims
        return 0 if seat.spec.startswith("alphabeta") else None

    async def network_for(model: str | None, game_type: str) -> tuple[Entry, Path]:
        """The AlphaZero entry ``model`` names (default: ``newest``) and its network's path."""
        entries = [e for e in await cheap(catalogue.entries) if e.kind == "alphazero"]
        if not entries:
            raise SessionError(409, "no checkpoint under the models directory: analysis needs a network")
        chosen = next((e for e in entries if e.id == (model or "newest")), None)
        if chosen is None:
            raise SessionError(400, f"unknown model {model!r}: choose an AlphaZero id from GET /api/players")
        try:
            return chosen, catalogue.network_path(chosen, game_type)
        except UnknownPlayerError as e:
            raise SessionError(409, str(e)) from None

    @app.exception_handler(SessionError)
    async def _session_error(request: Request, exc: SessionError):
        return JSONResponse({"detail": exc.detail}, exc.status)

    @app.exception_handler(SearchRefusedError)
    async def _search_refused(request: Request, exc: SearchRefusedError):
        return JSONResponse({"detail": exc.detail}, exc.status, headers={"Retry-After": "5"})

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError):
        return JSONResponse({"detail": _one_line(exc)}, 422)

    @app.get("/", include_in_schema=False)
    async def index():
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    @app.get("/api/players", summary="Opponents and game types")
    async def players():
        entries = await cheap(catalogue.entries)
        return {"players": [e.public() for e in entries], "game_types": list(GAME_TYPES),
                "sims": catalogue.sims, "max_sims": MAX_SIMS}

    def load(body: NewGame) -> Game:
        """The game a request asks for (runs on the cheap pool: a long GameString is replayed)."""
        if body.record is not None:
            try:
                game = read_game(body.record, body.record_game - 1, first=1).game
            except RecordError as e:
                raise SessionError(400, f"bad record: {e}") from None
            if game.ply > MAX_PLIES:
                raise SessionError(413, f"the record's game has {game.ply} moves; this server loads games "
                                        f"of at most {MAX_PLIES} plies")
            return Game.from_string(game.game_string(), ply_cap=body.ply_cap) if body.ply_cap else game
        try:
            if body.game_string is not None:
                return Game.from_string(body.game_string, ply_cap=body.ply_cap)
            if body.game_type not in GAME_TYPES:
                raise SessionError(400, f"unknown game type {body.game_type!r} "
                                        f"(one of {', '.join(GAME_TYPES)})")
            return Game(body.game_type, ply_cap=body.ply_cap)
        except HiveError as e:
            raise SessionError(400, f"bad GameString: {e}") from None

    @app.post("/api/games", status_code=201, summary="Start a game, or load a GameString")
    async def new_game(body: NewGame, owner: Owner):
        if body.game_string is not None and body.record is not None:
            raise SessionError(400, "give a game_string or a record, not both")
        if body.game_string is not None:
            if ";" not in body.game_string:
                raise SessionError(400, "bad GameString: expected GameType;GameState;Turn[;Move]...")
            if (n := moves_in(body.game_string)) > MAX_PLIES:
                raise SessionError(413, f"the GameString has {n} moves; this server loads games of at most "
                                        f"{MAX_PLIES} plies")
        try:
            seats = tuple(await asyncio.gather(cheap(catalogue.entry, body.white),
                                               cheap(catalogue.entry, body.black)))
        except UnknownPlayerError as e:
            raise SessionError(400, str(e)) from None
        game = await cheap(load, body)
        try:
            for seat in seats:
                if seat.kind == "alphazero":
                    catalogue.network_path(seat, game.game_type)
        except UnknownPlayerError as e:
            raise SessionError(400, str(e)) from None
        control = ClockControl.parse(body.clock) if body.clock else None
        session = store.create(owner, game, seats, seed=body.seed, control=control)
        reviews.forget(store.has)  # the review of a game this one replaced goes with it
        return await cheap(session.snapshot().state)

    @app.get("/api/games/{gid}", summary="The position (live, or after `ply` plies)")
    async def state(gid: str, owner: Owner, ply: Annotated[int | None, Query(ge=0, le=MAX_PLIES)] = None):
        return await cheap(store.get(gid, owner).snapshot().state, ply)

    @app.get("/api/games/{gid}/legal-moves", summary="Legal moves of the live position")
    async def legal_moves(gid: str, owner: Owner):
        snap = store.get(gid, owner).snapshot()
        return {"legal_moves": await cheap(snap.legal_moves)}

    @app.post("/api/games/{gid}/play", summary="Play a MoveString for the side to move")
    async def play(gid: str, body: PlayMove, owner: Owner):
        session = store.get(gid, owner)
        async with session.lock:
            if session.seats[session.game.side_to_move].kind != "human" and not session.over:
                raise SessionError(409, "it is the engine's turn (POST .../engine-move)")
            session.play(body.move)
            snap = session.snapshot()
        return await cheap(snap.state)

    @app.post("/api/games/{gid}/undo", summary="Take back moves")
    async def undo(gid: str, owner: Owner, body: Undo | None = None):
        session = store.get(gid, owner)
        async with session.lock:
            session.undo(body.plies if body else None)
            snap = session.snapshot()
        return await cheap(snap.state)

    @app.post("/api/games/{gid}/engine-move", summary="The engine on the side to move plays")
    async def engine_move(gid: str, owner: Owner):
        deadline = time.monotonic() + engine_timeout
        session = store.get(gid, owner)

        async def run(seat: Entry, think) -> int:
            cost = search_sims_of(seat)
            if cost is None:
                return await cheap(think, timeout=max(deadline - time.monotonic(), 0.0))
            return await slots.run(owner, cost, deadline, think)

        async with session.lock:  # waiting here counts against the deadline too
            if time.monotonic() >= deadline:
                raise SessionError(504, f"the game was busy for {engine_timeout:g} s; no move was played")
            try:
                await session.engine_move(run, engine_timeout, max_share_s=max_share_s)
            except UnknownPlayerError as e:
                raise SessionError(409, str(e)) from None
            snap = session.snapshot()
        return await cheap(snap.state)

    @app.get("/api/games/{gid}/analysis", summary="Network value, priors and search visit shares")
    async def analysis(gid: str, owner: Owner, ply: Annotated[int | None, Query(ge=0, le=MAX_PLIES)] = None,
                       sims: Annotated[int, Query(ge=0, le=MAX_SIMS)] = 100,
                       model: Annotated[str | None, Query(max_length=64)] = None):
        deadline = time.monotonic() + analysis_timeout
        game = store.get(gid, owner).game.copy()
        if ply is not None and not 0 <= ply <= game.ply:
            raise SessionError(400, f"ply {ply} is outside the game (0..{game.ply})")
        view = await cheap(position_at, game, ply) if ply is not None else game
        if view.is_over:
            raise SessionError(409, f"the game is over ({view.state}): nothing to analyse")
        chosen, path = await network_for(model, view.game_type)

        def job() -> dict:
            net, evaluate, device = models.get(path)
            return analyse(view, net, evaluate, device, sims)

        try:
            out = await slots.run(owner, max(sims, 1), deadline, job)
        except (CheckpointError, OSError):  # their messages name the server's paths
            raise SessionError(409, f"checkpoint {chosen.id} cannot be loaded (changed, moved or removed "
                                    "since it was listed)") from None
        except TimeoutError:
            raise SessionError(504, f"the analysis took over {analysis_timeout:g} s (waiting for a search "
                                    "slot included); try fewer simulations") from None
        return {"model": chosen.public(), "ply": view.ply, **out}

    @app.post("/api/games/{gid}/review", status_code=202, summary="Review the game: every position searched")
    async def start_review(gid: str, owner: Owner, body: StartReview | None = None):
        body = body or StartReview()
        game = store.get(gid, owner).game.copy()
        if not game.moves:
            raise SessionError(409, "no move has been played: nothing to review")
        chosen, path = await network_for(body.model, game.game_type)

        def network() -> Network:
            try:
                return models.network(path)
            except (CheckpointError, OSError):  # their messages name the server's paths
                raise CheckpointError(f"checkpoint {chosen.id} cannot be loaded (changed, moved or removed "
                                      "since it was listed)") from None

        reviews.forget(store.has)
        try:
            job = reviews.start(gid, owner, game, body.sims, chosen.public(), network)
        except OverflowError as e:
            raise SessionError(429, str(e)) from None
        return job.public()

    @app.get("/api/games/{gid}/review", summary="The review's progress, then its result")
    async def review(gid: str, owner: Owner):
        store.get(gid, owner)
        job = reviews.get(gid)
        if job is None:
            raise SessionError(404, "this game has no review (POST .../review starts one)")
        return job.public()

    @app.delete("/api/games/{gid}/review", status_code=204, summary="Cancel the game's review")
    async def cancel_review(gid: str, owner: Owner):
        store.get(gid, owner)
        reviews.cancel(gid)
        return Response(status_code=204)

    @app.delete("/api/games/{gid}", status_code=204, summary="Forget a game")
    async def delete(gid: str, owner: Owner):
        store.get(gid, owner)
        store.drop(gid)
        reviews.forget(store.has)
        return Response(status_code=204)

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app
