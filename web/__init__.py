"""``hive-web``: play, watch and analyse Hive in the browser (FastAPI + a hand-written page).

Modules: ``players`` (the allow-list of opponents), ``view``, ``owners``, ``limits``,
``sessions``, ``analysis``, ``review``, ``puzzles``, ``bodies``, ``state``, ``routes``,
``settings``, ``app`` (the app factory), ``serve`` (uvicorn under connection caps); ``static/``
holds index.html, app.js and style.css (no build step, nothing from a CDN).

See docs/layout.md (what each module holds) and docs/web.md.
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
