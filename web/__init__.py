"""``hive-web``: play, watch and analyse Hive in the browser (FastAPI + a hand-written page).

- ``players``: the allow-list of opponents (people, classical players, checkpoints by id)
- ``view``: a position as the JSON the page draws (tiles, reserves, legal moves, result)
- ``owners``: the owner cookie: which client a request (and so a game) belongs to
- ``limits``: search slots: engines and analyses in a bounded fair queue, off the cheap pool
- ``sessions``: games in memory by id and owner, engines thinking off the event loop
- ``analysis``: the network's win/draw/loss value, priors and search visit shares
- ``bodies``: the API's request bodies, strictly typed, and the checks on their text
- ``state``: the app's parts (``app.state.server``) and the request's owner, as route dependencies
- ``routes``: the endpoints, one ``APIRouter`` per concern (page, games, analysis, review)
- ``app``: the FastAPI app factory (JSON API, OpenAPI at /docs, the static page)
- ``serve``: uvicorn under connection caps (connections, request-head timeout, half-close)
- ``static/``: index.html, app.js, style.css (no build step, nothing from a CDN)
"""

from hive_zero.layout import check as _check_layout

_check_layout()  # another 'web' (a user's folder, another package) is one line, not a bad import

from .app import create_app  # noqa: E402 - the server
from .limits import SearchRefusedError, SearchSlots  # noqa: E402 - search slots, for any route that searches
from .serve import ServerLimits, make_server  # noqa: E402 - uvicorn with connection caps

__all__ = ["SearchRefusedError", "SearchSlots", "ServerLimits", "create_app", "make_server"]
