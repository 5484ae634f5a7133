"""A game's life: a new game (a game type, a GameString or a record, seats from ``GET
/api/players``, the AlphaZero seats' level, an optional clock), its position (live or an earlier
ply), its legal moves, a person's move, the engine's move, undo, and forgetting it; the client's
list of its games, and a game saved as a record (GameString, Mzinga PGN, boardspace SGF:
``hive_env.records.writers``, with the players, the date and the hints used).

A game belongs to the client that made it (``Owner``). A game with a clock (``clock: "BASE+INC"``
seconds, ``players.clock``) keeps it on the server (``web.sessions``): every answer about the game
holds ``clock`` (``null`` without one): its control, both sides' seconds left as of the answer,
the running side and who flagged. A side out of time loses on time (``result.reason`` ``"time
forfeit"``); undo is refused in a clock game.
"""

from __future__ import annotations

import asyncio
import time
from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import PlainTextResponse, Response

from hive_env import GAME_TYPES, Game, HiveError
from hive_env.records import RecordError, read_game
from hive_env.records.writers import FORMATS_WRITTEN, as_record
from players.clock import ClockControl

from ..bodies import NewGame, PlayMove, Undo, moves_in
from ..players import Entry, UnknownPlayerError
from ..sessions import MAX_PLIES, SessionError, Snapshot
from ..state import Owner, ServerDep

router = APIRouter()


def _load(body: NewGame) -> Game:
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


@router.post("/api/games", status_code=201, summary="Start a game, or load a GameString")
async def new_game(body: NewGame, owner: Owner, server: ServerDep):
    if body.game_string is not None and body.record is not None:
        raise SessionError(400, "give a game_string or a record, not both")
    if body.game_string is not None:
        if ";" not in body.game_string:
            raise SessionError(400, "bad GameString: expected GameType;GameState;Turn[;Move]...")
        if (n := moves_in(body.game_string)) > MAX_PLIES:
            raise SessionError(413, f"the GameString has {n} moves; this server loads games of at most "
                                    f"{MAX_PLIES} plies")
    catalogue = server.catalogue
    try:
        seats = tuple(await asyncio.gather(server.cheap(catalogue.entry, body.white),
                                           server.cheap(catalogue.entry, body.black)))
        seats = tuple(catalogue.at_level(seat, body.level) for seat in seats)
    except UnknownPlayerError as e:
        raise SessionError(400, str(e)) from None
    game = await server.cheap(_load, body)
    try:
        for seat in seats:
            if seat.kind == "alphazero":
                catalogue.network_path(seat, game.game_type)
    except UnknownPlayerError as e:
        raise SessionError(400, str(e)) from None
    control = ClockControl.parse(body.clock) if body.clock else None
    session = server.store.create(owner, game, seats, seed=body.seed, control=control)
    server.reviews.forget(server.store.has)  # the review of a game this one replaced goes with it
    return await server.cheap(session.snapshot().state)


@router.get("/api/games", summary="The client's own games, most recently used first")
async def list_games(owner: Owner, server: ServerDep):
    server.store.expire()
    return {"games": [s.summary() for s in reversed(server.store.owned_by(owner))],
            "per_client": server.store.per_client}


_FORMAT_PATTERN = "^(" + "|".join(FORMATS_WRITTEN) + ")$"
RECORD_SUFFIX = {"gamestring": "txt", "pgn": "pgn", "sgf": "sgf"}
"""The file name's suffix of each record format ``GET .../record`` writes."""


def record_meta(snap: Snapshot) -> dict[str, str]:
    """What a saved record says besides the moves: the players' labels, the date, the event, the
    hints used, and a loss on time (a board that says InProgress)."""
    white, black = (e.label for e in snap.seats)
    meta = {"White": white, "Black": black, "Date": time.strftime("%Y.%m.%d"), "Event": "hive-web",
            "Hints": str(snap.hints)}
    if snap.flagged is not None:
        meta["Result"] = "WhiteWins" if snap.flagged == 1 else "BlackWins"
        meta["Termination"] = f"{'White' if snap.flagged == 0 else 'Black'} lost on time"
    return meta


@router.get("/api/games/{gid}/record", summary="The game as a record file: GameString, Mzinga PGN or "
                                                "boardspace SGF (a download)")
async def record(gid: str, owner: Owner, server: ServerDep,
                 format: Annotated[str, Query(pattern=_FORMAT_PATTERN)] = "gamestring"):
    snap = server.store.get(gid, owner).snapshot()
    try:
        text = await server.cheap(as_record, snap.game, format, record_meta(snap))
    except (RecordError, HiveError) as e:
        raise SessionError(409, f"this game cannot be written as {format}: {e}") from None
    if not text.endswith("\n"):
        text += "\n"
    name = f"hive-{snap.game.game_type.replace('+', '-')}-{snap.game.ply}.{RECORD_SUFFIX[format]}"
    return PlainTextResponse(text, headers={"Content-Disposition": f'attachment; filename="{name}"',
                                            "Cache-Control": "no-store"})


@router.get("/api/games/{gid}", summary="The position (live, or after `ply` plies)")
async def state(gid: str, owner: Owner, server: ServerDep,
                ply: Annotated[int | None, Query(ge=0, le=MAX_PLIES)] = None):
    return await server.cheap(server.store.get(gid, owner).snapshot().state, ply)


@router.get("/api/games/{gid}/legal-moves", summary="Legal moves of the live position")
async def legal_moves(gid: str, owner: Owner, server: ServerDep):
    snap = server.store.get(gid, owner).snapshot()
    return {"legal_moves": await server.cheap(snap.legal_moves)}


@router.post("/api/games/{gid}/play", summary="Play a MoveString for the side to move")
async def play(gid: str, body: PlayMove, owner: Owner, server: ServerDep):
    session = server.store.get(gid, owner)
    async with session.lock:
        if session.seats[session.game.side_to_move].kind != "human" and not session.over:
            raise SessionError(409, "it is the engine's turn (POST .../engine-move)")
        session.play(body.move)
        snap = session.snapshot()
    return await server.cheap(snap.state)


@router.post("/api/games/{gid}/undo", summary="Take back moves")
async def undo(gid: str, owner: Owner, server: ServerDep, body: Undo | None = None):
    session = server.store.get(gid, owner)
    async with session.lock:
        session.undo(body.plies if body else None)
        snap = session.snapshot()
    return await server.cheap(snap.state)


@router.post("/api/games/{gid}/engine-move", summary="The engine on the side to move plays")
async def engine_move(gid: str, owner: Owner, server: ServerDep):
    engine_timeout = server.engine_timeout
    deadline = time.monotonic() + engine_timeout
    session = server.store.get(gid, owner)

    async def run(seat: Entry, think) -> int:
        cost = server.search_sims_of(seat)
        if cost is None:
            return await server.cheap(think, timeout=max(deadline - time.monotonic(), 0.0))
        return await server.search_slots.run(owner, cost, deadline, think)

    async with session.lock:  # waiting here counts against the deadline too
        if time.monotonic() >= deadline:
            raise SessionError(504, f"the game was busy for {engine_timeout:g} s; no move was played")
        try:
            await session.engine_move(run, engine_timeout, max_share_s=server.max_share_s)
        except UnknownPlayerError as e:
            raise SessionError(409, str(e)) from None
        snap = session.snapshot()
    return await server.cheap(snap.state)


@router.delete("/api/games/{gid}", status_code=204, summary="Forget a game")
async def delete(gid: str, owner: Owner, server: ServerDep):
    server.store.get(gid, owner)
    server.store.drop(gid)
    server.reviews.forget(server.store.has)
    return Response(status_code=204)
