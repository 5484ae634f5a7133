"""How an arena game ended: one word of a fixed vocabulary in every record's ``termination``.

:data:`TERMINATIONS` lists the words (``queen_surrounded``, ``both_surrounded``, ``repetition``,
``ply_cap``, and the losses of the side at fault, :data:`FAULTS`), each with a short gloss.
Records written before this vocabulary hold the UHP GameState (``WhiteWins``, ``BlackWins``,
``Draw``) or ``PlyCap``, ``IllegalMove``, ``EngineError``; :func:`termination_of` reads them too
(a ``Draw`` is told apart by replaying its GameString).

See docs/arena.md (how each game ended; errors).
"""

from __future__ import annotations

from hive_env import DRAW, Game, HiveError
from hive_env.outcome import queen_pressure
from hive_env.records.arena_record import ArenaRecord

TERMINATIONS = {
    "queen_surrounded": "a Queen surrounded: its side lost",
    "both_surrounded": "both Queens surrounded: a draw",
    "repetition": "a position the third time: a draw",
    "ply_cap": "the ply cap reached: a draw",
    "time_forfeit": "a clock ran out: that side lost",
    "illegal_move": "an illegal move (or no move): that side lost",
    "engine_crash": "an external engine died, refused a command or lost sync: it lost",
    "engine_timeout": "an external engine gave no reply in time: it lost",
    "player_error": "one of our players raised an error: it lost",
}
"""Every termination, in the order the reports list them, with a short gloss."""
FAULTS = ("time_forfeit", "illegal_move", "engine_crash", "engine_timeout", "player_error")
"""Terminations that are a loss for the side at fault (the record's ``detail`` says who and why)."""
_LEGACY = {"WhiteWins": "queen_surrounded", "BlackWins": "queen_surrounded", "PlyCap": "ply_cap",
           "IllegalMove": "illegal_move", "EngineError": "engine_crash"}


def rules_termination(game: Game) -> str:
    """The termination of a game the rules ended: ``queen_surrounded``, ``both_surrounded`` or
    ``repetition``."""
    if game.status != DRAW:
        return "queen_surrounded"
    surrounded = [queen_pressure(game.board, colour) == 6 for colour in (0, 1)]
    return "both_surrounded" if all(surrounded) else "repetition"


def termination_of(record: ArenaRecord) -> str:
    """The record's termination in this vocabulary (older records' words translated; an unknown
    word, or an old ``Draw`` whose GameString does not replay, is returned as it is)."""
    word = record.termination
    if word in TERMINATIONS:
        return word
    if word == "Draw":
        try:
            return rules_termination(Game.from_string(record.game_string))
        except HiveError:
            return word
    return _LEGACY.get(word, word)
