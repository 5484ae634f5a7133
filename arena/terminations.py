"""How an arena game ended: one word of a fixed vocabulary in every record's ``termination``.

=================  =========================================================================
queen_surrounded   a Queen was surrounded: its side lost
both_surrounded    both Queens were surrounded by one move: a draw
repetition         the same position came a third time (within the rules' window): a draw
ply_cap            the arena's ply cap was reached: a draw (not a result of the rules)
time_forfeit       a side's clock ran out (``--clock``): its loss
illegal_move       a player answered a move that is not legal (an external engine: also garbage,
                   several lines or no move): its loss
engine_crash       an external engine could not start, died, refused a command or lost sync:
                   its loss
engine_timeout     an external engine gave no reply within its time and timeout: its loss
player_error       one of our own players raised an error: its loss (as an engine's fault is;
                   the match goes on)
=================  =========================================================================

Records written before this vocabulary hold the UHP GameState (``WhiteWins``, ``BlackWins``,
``Draw``) or ``PlyCap``, ``IllegalMove``, ``EngineError``; :func:`termination_of` reads them
too (a ``Draw`` is told apart by replaying its GameString).
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
