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
- ``settings``: the app's settings, defaults and ranges (``hive-web``'s options are built from them)
- ``app``: the FastAPI app factory (JSON API, OpenAPI at /docs, the static page)
- ``serve``: uvicorn under connection caps (connections, request-head timeout, half-close)
- ``static/``: index.html, app.js, style.css (no build step, nothing from a CDN)
"""

import importlib
from typing import Any

from hive_zero.layout import check as _check_layout

_check_layout()  # another 'web' (a user's folder, another package) is one line, not a bad import

_EXPORTS = {"create_app": "app", "SearchRefusedError": "limits", "SearchSlots": "limits",
            "ServerLimits": "serve", "make_server": "serve", "WebSettings": "settings"}
"""What ``from web import X`` gives (the server, search slots, uvicorn with connection caps, the app's
settings), by module: imported when first asked for, so that ``hive-web --help`` reads the
settings without importing the server (torch, FastAPI)."""

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module 'web' has no attribute {name!r}")
