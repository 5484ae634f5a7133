"""Puzzles (``web.puzzles``): the shipped puzzles by game type, kind and difficulty, one at a
time without its solutions, and the answer to a move: right or wrong, every solution, and the
line to show (the move, and for a win in two the reply and the winning answer). The page plays
puzzles on an ordinary game of its own (``POST /api/games`` with the puzzle's GameString) and
asks here before it plays a move; puzzles need no game and no owner."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from hive_env import HiveError

from .. import puzzles
from ..bodies import PlayMove
from ..sessions import SessionError
from ..state import ServerDep

router = APIRouter()

Kind = Annotated[str | None, Query(pattern="^(win1|win2|defend)$")]
Difficulty = Annotated[str | None, Query(pattern="^(easy|medium|hard)$")]
GameType = Annotated[str | None, Query(max_length=32)]
PuzzleId = Annotated[str | None, Query(max_length=32)]


async def _book(server: ServerDep) -> puzzles.Book:
    return await server.cheap(puzzles.book)


def _puzzle(book: puzzles.Book, pid: str) -> dict:
    puzzle = book.get(pid)
    if puzzle is None:
        raise SessionError(404, f"no puzzle {pid!r}")
    return puzzle


@router.get("/api/puzzles", summary="The puzzles there are, by game type, kind and difficulty")
async def puzzle_list(server: ServerDep, game_type: GameType = None):
    book = await _book(server)
    chosen = book.select(game_type=game_type)
    counts = {k: {d: sum(p["kind"] == k and p["difficulty"] == d for p in chosen)
                  for d in puzzles.DIFFICULTIES} for k in puzzles.KINDS}
    return {"game_types": book.game_types(), "kinds": puzzles.KINDS,
            "difficulties": list(puzzles.DIFFICULTIES), "counts": counts, "total": len(chosen)}


@router.get("/api/puzzles/next", summary="The next puzzle (easiest first), without its solutions")
async def next_puzzle(server: ServerDep, game_type: GameType = None, kind: Kind = None,
                      difficulty: Difficulty = None, after: PuzzleId = None):
    book = await _book(server)
    puzzle = book.next(after, game_type=game_type, kind=kind, difficulty=difficulty)
    if puzzle is None:
        raise SessionError(404, f"no puzzle of game type {game_type or 'any'}, kind {kind or 'any'} and "
                                f"difficulty {difficulty or 'any'} (puzzles: "
                                + ", ".join(f"{n} {t}" for t, n in book.game_types().items()) + ")")
    return puzzles.public(puzzle)


@router.get("/api/puzzles/{pid}", summary="A puzzle, without its solutions")
async def get_puzzle(pid: str, server: ServerDep):
    return puzzles.public(_puzzle(await _book(server), pid))


@router.get("/api/puzzles/{pid}/solution", summary="The solutions and the line to show (giving up)")
async def solution(pid: str, server: ServerDep):
    return puzzles.solution(_puzzle(await _book(server), pid))


@router.post("/api/puzzles/{pid}/answer", summary="Right or wrong, the solutions and the line to show")
async def answer(pid: str, body: PlayMove, server: ServerDep):
    puzzle = _puzzle(await _book(server), pid)
    try:
        return await server.cheap(puzzles.answer, puzzle, body.move)
    except HiveError as e:
        raise SessionError(400, f"illegal move: {e}") from None
