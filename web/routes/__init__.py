"""hive-web's routes, one ``APIRouter`` per concern (``/docs`` lists them all, with their bodies):

- ``page``: the page, and what it asks for at start-up (players, game types, the bug table)
- ``games``: a game's life: new or loaded, its positions and legal moves, moves, undo, delete;
  the client's list of its games, and a game saved as a GameString, Mzinga PGN or boardspace SGF
- ``analysis``: the network's value, priors and search visit shares for a position, and a hint
  (the best move for the person to move, counted in the game)
- ``review``: a whole game reviewed in the background (start, poll, cancel)
- ``puzzles``: the shipped puzzles, one at a time, and the answer to a move

Every refusal is a 4xx ``{"detail": "one line"}`` (``web.sessions.SessionError``) and leaves the
game as it was; another client's game answers 404, like an unknown one.
"""

from . import analysis, games, page, puzzles, review
from .page import STATIC

ROUTERS = (page.router, games.router, analysis.router, review.router, puzzles.router)
"""In the order the app includes them (the order routes are matched in)."""

__all__ = ["ROUTERS", "STATIC"]
