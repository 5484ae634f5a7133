"""``hive-web``: play, watch and analyse Hive in the browser (FastAPI + a hand-written page).

- ``players``: the allow-list of opponents (people, classical players, checkpoints by id)
- ``view``: a position as the JSON the page draws (tiles, reserves, legal moves, result)
- ``sessions``: games in memory by id, engines thinking off the event loop
- ``analysis``: the network's win/draw/loss value, priors and search visit shares
- ``app``: the FastAPI app factory (JSON API, OpenAPI at /docs, the static page)
- ``static/``: index.html, app.js, style.css (no build step, nothing from a CDN)
"""

from .app import create_app  # the server

__all__ = ["create_app"]
