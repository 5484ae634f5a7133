"""The page (``web/static``), and what it asks for at start-up: the players and game types, and
the bug table (names, counts, rules) and side names it shows."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse

from hive_env import GAME_TYPES
from hive_env.pieces import BUGS, COLOUR_NAMES
from players.levels import DEFAULT_LEVEL, LEVELS

from ..analysis import MAX_SIMS
from ..players import Entry
from ..state import ServerDep
from ..view import COLOURS

STATIC = Path(__file__).resolve().parents[1] / "static"
"""The page's files (``web/static``)."""

BUG_TABLE = {
    "bugs": [{"letter": bug.letter, "name": bug.name[:1].upper() + bug.name[1:], "count": bug.count,
              "expansion": bug.expansion, "rule": bug.rule} for bug in BUGS],
    "sides": [{"colour": colour, "name": name} for colour, name in zip(COLOURS, COLOUR_NAMES, strict=True)],
}
"""``GET /api/bugs``: ``hive_env.pieces.BUGS`` (names capitalised, as the page shows them;
``expansion`` is the bit that brings the bug into a game, 0 for every game) and each side's
colour (as positions name it) and name."""

router = APIRouter()


@router.get("/", include_in_schema=False)
async def index():
    return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})


@router.get("/api/players", summary="Opponents and game types")
async def players(server: ServerDep):
    entries = await server.cheap(server.catalogue.entries)
    catalogue = server.catalogue
    levels = [{"level": lv.number, "label": catalogue.strength(Entry("", "", "alphazero", level=lv.number)),
               "detail": lv.describe()} for lv in LEVELS]
    return {"players": [e.public() for e in entries], "game_types": list(GAME_TYPES),
            "sims": catalogue.sims, "max_sims": MAX_SIMS, "levels": levels, "default_level": DEFAULT_LEVEL}


@router.get("/api/bugs", summary="The bug kinds and the sides, as the page names them")
async def bugs():
    return BUG_TABLE
