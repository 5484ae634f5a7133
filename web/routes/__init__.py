"""hive-web's routes, one ``APIRouter`` per concern (``/docs`` lists them all, with their bodies):

- ``page``: the page, and what it asks for at start-up (players, game types, the bug table)
- ``games``: a game's life: new or loaded, its positions and legal moves, moves, undo, delete
- ``analysis``: the network's value, priors and search visit shares for a position
- ``review``: a whole game reviewed in the background (start, poll, cancel)

Every refusal is a 4xx ``{"detail": "one line"}`` (``web.sessions.SessionError``) and leaves the
game as it was; another client's game answers 404, like an unknown one.
"""

from . import analysis, games, page, review
from .page import STATIC

ROUTERS = (page.router, games.router, analysis.router, review.router)
"""In the order the app includes them (the order routes are matched in)."""

__all__ = ["ROUTERS", "STATIC"]
