"""The review of a whole game (``web.review``): every position searched in the background, one
review per client at a time; ``POST`` starts it, ``GET`` polls its progress and then its marks
and chart, ``DELETE`` cancels it."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from search.checkpoint import CheckpointError

from ..bodies import StartReview
from ..review import Network
from ..sessions import SessionError
from ..state import Owner, ServerDep

router = APIRouter()


@router.post("/api/games/{gid}/review", status_code=202, summary="Review the game: every position searched")
async def start_review(gid: str, owner: Owner, server: ServerDep, body: StartReview | None = None):
    body = body or StartReview()
    game = server.store.get(gid, owner).game.copy()
    if not game.moves:
        raise SessionError(409, "no move has been played: nothing to review")
    chosen, path = await server.network_for(body.model, game.game_type)

    def network() -> Network:
        try:
            return server.models.network(path)
        except (CheckpointError, OSError):  # their messages name the server's paths
            raise CheckpointError(f"checkpoint {chosen.id} cannot be loaded (changed, moved or removed "
                                  "since it was listed)") from None

    server.reviews.forget(server.store.has)
    try:
        job = server.reviews.start(gid, owner, game, body.sims, chosen.public(), network)
    except OverflowError as e:
        raise SessionError(429, str(e)) from None
    return job.public()


@router.get("/api/games/{gid}/review", summary="The review's progress, then its result")
async def review(gid: str, owner: Owner, server: ServerDep):
    server.store.get(gid, owner)
    job = server.reviews.get(gid)
    if job is None:
        raise SessionError(404, "this game has no review (POST .../review starts one)")
    return job.public()


@router.delete("/api/games/{gid}/review", status_code=204, summary="Cancel the game's review")
async def cancel_review(gid: str, owner: Owner, server: ServerDep):
    server.store.get(gid, owner)
    server.reviews.cancel(gid)
    return Response(status_code=204)
