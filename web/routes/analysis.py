"""The analysis of a position: the network's win/draw/loss value, its priors and, after a search
of ``sims`` simulations, each move's share of the visits (``web.analysis``), run in a search slot
(``web.limits``) within the server's analysis time limit."""

from __future__ import annotations

import time
from typing import Annotated

from fastapi import APIRouter, Query

from search.checkpoint import CheckpointError

from ..analysis import MAX_SIMS, analyse
from ..sessions import MAX_PLIES, SessionError
from ..state import Owner, ServerDep
from ..view import position_at

router = APIRouter()


@router.get("/api/games/{gid}/analysis", summary="Network value, priors and search visit shares")
async def analysis(gid: str, owner: Owner, server: ServerDep,
                   ply: Annotated[int | None, Query(ge=0, le=MAX_PLIES)] = None,
                   sims: Annotated[int, Query(ge=0, le=MAX_SIMS)] = 100,
                   model: Annotated[str | None, Query(max_length=64)] = None):
    analysis_timeout = server.analysis_timeout
    deadline = time.monotonic() + analysis_timeout
    game = server.store.get(gid, owner).game.copy()
    if ply is not None and not 0 <= ply <= game.ply:
        raise SessionError(400, f"ply {ply} is outside the game (0..{game.ply})")
    view = await server.cheap(position_at, game, ply) if ply is not None else game
    if view.is_over:
        raise SessionError(409, f"the game is over ({view.state}): nothing to analyse")
    chosen, path = await server.network_for(model, view.game_type)

    def job() -> dict:
        net, evaluate, device = server.models.get(path)
        return analyse(view, net, evaluate, device, sims)

    try:
        out = await server.search_slots.run(owner, max(sims, 1), deadline, job)
    except (CheckpointError, OSError):  # their messages name the server's paths
        raise SessionError(409, f"checkpoint {chosen.id} cannot be loaded (changed, moved or removed "
                                "since it was listed)") from None
    except TimeoutError:
        raise SessionError(504, f"the analysis took over {analysis_timeout:g} s (waiting for a search "
                                "slot included); try fewer simulations") from None
    return {"model": chosen.public(), "ply": view.ply, **out}
