"""The analysis of a position: the network's win/draw/loss value, its priors and, after a search
of ``sims`` simulations, each move's share of the visits (``web.analysis``), run in a search slot
(``web.limits``) within the server's analysis time limit; and a hint: the same search's best move
for the person to move, counted in the game (``hints``, written into its saved records)."""

from __future__ import annotations

import time
from typing import Annotated

from fastapi import APIRouter, Query

from hive_env import Game
from search.checkpoint import CheckpointError

from ..analysis import MAX_SIMS, analyse
from ..sessions import MAX_PLIES, SessionError
from ..state import Owner, Server, ServerDep
from ..view import position_at

router = APIRouter()


@router.get("/api/games/{gid}/analysis", summary="Network value, priors and search visit shares")
async def analysis(gid: str, owner: Owner, server: ServerDep,
                   ply: Annotated[int | None, Query(ge=0, le=MAX_PLIES)] = None,
                   sims: Annotated[int, Query(ge=0, le=MAX_SIMS)] = 100,
                   model: Annotated[str | None, Query(max_length=64)] = None):
    deadline = time.monotonic() + server.analysis_timeout
    game = server.store.get(gid, owner).game.copy()
    if ply is not None and not 0 <= ply <= game.ply:
        raise SessionError(400, f"ply {ply} is outside the game (0..{game.ply})")
    view = await server.cheap(position_at, game, ply) if ply is not None else game
    if view.is_over:
        raise SessionError(409, f"the game is over ({view.state}): nothing to analyse")
    chosen, out = await _search(server, owner, view, sims, model, deadline)
    return {"model": chosen.public(), "ply": view.ply, **out}


async def _search(server: Server, owner: str, view: Game, sims: int, model: str | None,
                  deadline: float):
    """(the network's entry, :func:`analyse` of ``view``) in a search slot, by ``deadline``."""
    chosen, path = await server.network_for(model, view.game_type)

    def job() -> dict:
        net, evaluate, device = server.models.get(path)
        return analyse(view, net, evaluate, device, sims)

    try:
        return chosen, await server.search_slots.run(owner, max(sims, 1), deadline, job)
    except (CheckpointError, OSError):  # their messages name the server's paths
        raise SessionError(409, f"checkpoint {chosen.id} cannot be loaded (changed, moved or removed "
                                "since it was listed)") from None
    except TimeoutError:
        raise SessionError(504, f"the search took over {server.analysis_timeout:g} s (waiting for a "
                                "search slot included); try fewer simulations") from None


HINT_SIMS = 200
"""Simulations of a hint's search by default."""


@router.post("/api/games/{gid}/hint", summary="The engine's best move for the person to move (counted)")
async def hint(gid: str, owner: Owner, server: ServerDep,
               sims: Annotated[int, Query(ge=0, le=MAX_SIMS)] = HINT_SIMS,
               model: Annotated[str | None, Query(max_length=64)] = None):
    deadline = time.monotonic() + server.analysis_timeout
    session = server.store.get(gid, owner)
    if session.over:
        raise SessionError(409, "the game is over: no hint")
    if session.seats[session.game.side_to_move].kind != "human":
        raise SessionError(409, "it is the engine's turn: a hint is for a person to move")
    game, version = session.game.copy(), session.version
    if model is None:  # the newest checkpoint when there is one, else the network shipped
        ids = [e.id for e in await server.cheap(server.catalogue.entries) if e.kind == "alphazero"]
        model = "newest" if "newest" in ids else ids[0] if ids else None
    chosen, out = await _search(server, owner, game, sims, model, deadline)
    if session.closed or session.version != version:
        raise SessionError(409, "the game changed while the engine looked for a hint; ask again")
    session.hints += 1
    best = out["moves"][0]
    return {"model": chosen.public(), "ply": game.ply, "sims": out["sims"], "hints": session.hints,
            "move": best, "wdl": out["wdl"]}
