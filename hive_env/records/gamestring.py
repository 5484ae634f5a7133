"""UHP GameString lines (format ``gamestring``), as ``hive-play`` and self-play
(``games_<worker>.txt``) write them: one a line, blank lines and ``#`` lines skipped. A line may be a
bare game type (a game with no moves). Its GameState and Turn must agree with its moves. Its parts
are cut by :func:`hive_env.uhp.split_game_string`, as :meth:`Game.from_string` cuts them."""

from __future__ import annotations

from .. import uhp
from ..errors import GameStringError, HiveError
from ..game import Game
from ..pieces import parse_game_type
from .common import Chunk, Format, GameRecord, RecordError, line_chunks, new_game, play_move


def detect(first: str) -> bool:
    """Whether a record's first line starts with a game type."""
    try:
        parse_game_type(uhp.game_string_fields(first)[0])
    except ValueError:
        return False
    return True


def build(name: str, chunk: Chunk) -> GameRecord:
    where = f"{name}:{chunk.line}"
    return GameRecord(replay_gamestring(chunk.lines[0][1], where), "gamestring", where, {})


def replay_gamestring(text: str, where: str) -> Game:
    """The game of a GameString, each move replayed; a refusal names ``where`` (and the ply and
    move for a move)."""
    try:
        parts = uhp.split_game_string(text)
    except GameStringError:
        new_game(uhp.game_string_fields(text)[0], where)  # a bad game type is named first
        raise RecordError(f"{where}: not a GameString (GameType;GameState;Turn;moves...): {text[:40]!r}") \
            from None
    game = new_game(parts.game_type, where)
    if parts.state is None or parts.turn is None:
        return game
    try:
        state, turn = uhp.parse_state(parts.state), uhp.parse_turn(parts.turn)
    except HiveError as e:
        raise RecordError(f"{where}: {e}") from None
    for move in parts.moves:
        play_move(game, move, where, move)
    disagreement = game.header_disagreement(state, turn, parts.turn)
    if disagreement:
        raise RecordError(f"{where}: {disagreement}")
    return game


FORMAT = Format("gamestring", detect, line_chunks, build)
