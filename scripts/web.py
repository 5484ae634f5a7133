"""``hive-web``: play, watch and analyse Hive in the browser (serves ``web.create_app``).

    hive-web                         # http://127.0.0.1:8000, checkpoints from ./runs
    hive-web --models runs/cpu --open
    hive-web --host 0.0.0.0 --port 8080   # reachable from other machines: behind a reverse proxy
"""

from __future__ import annotations

import argparse
import sys
import threading
import webbrowser
from dataclasses import fields
from typing import Any

from hive_zero import version_line
from hive_zero.checks import Bound, bound_of
from hive_zero.options import field_type, option, ranges_line
from players.levels import MAX_LEVEL

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
PORT = Bound(ge=1, le=65535)

BASICS = (("--move-time", "move_time", "seconds an engine move may take at most"),
          ("--sims", "sims", f"simulations a move of the AlphaZero opponents at the top level, {MAX_LEVEL} "
                             "(unset: its 1 s a move); the levels below keep their own"),
          ("--leaves", "leaves", "leaves per network call of the AlphaZero opponents (unset: the player's "
                                 "own)"))
"""``hive-web``'s options of the app's settings (``web.WebSettings`` fields): flag, field, help."""
CAPS = (("--max-games", "max_sessions", "games kept at once, over all clients"),
        ("--games-per-client", "per_client", "games one client (cookie) keeps"),
        ("--idle", "idle_s", "seconds before an untouched game expires"),
        ("--search-slots", "search_slots", "engine moves and analyses running at once (one per client)"),
        ("--search-sims", "search_sims", "simulations in flight over all searches"),
        ("--search-queue", "search_queue", "searches waiting for a slot at most"),
        ("--review-workers", "review_workers",
         "game reviews running at once (each searches every position of a game)"),
        ("--review-queue", "review_queue",
         "game reviews queued or running at most, over all clients (one per client)"),
        ("--max-connections", "max_connections", "connections open at once"),
        ("--header-timeout", "header_timeout", "seconds to send a request head"),
        ("--body-timeout", "body_timeout", "seconds to send a request body"),
        ("--keep-alive", "keep_alive", "seconds an idle connection stays open"))
"""The caps (for a server shared with others): ``web.WebSettings`` fields, and the server's own
(``web.ServerLimits`` fields: connections, request heads, idle connections)."""


def _settings(name: str) -> type:
    """The dataclass whose field ``name`` is: the app's settings or the server's caps."""
    from web.serve import ServerLimits
    from web.settings import WebSettings

    return WebSettings if name in {f.name for f in fields(WebSettings)} else ServerLimits


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="hive-web", description="Play, watch and analyse Hive in the browser.",
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--version", action="version", version=version_line("hive-web"))
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8000, help="port")
    p.add_argument("--models", **option(_settings("models_dir"), "models_dir", "--models"),
                   help="directory searched for *.pt checkpoints")
    p.add_argument("--open", action="store_true", help="open the page in a web browser")
    for flag, name, text in BASICS:
        p.add_argument(flag, **option(_settings(name), name, flag), help=text)
    caps = p.add_argument_group("caps (for a server shared with others; see docs/web.md)")
    for flag, name, text in CAPS:
        caps.add_argument(flag, **option(_settings(name), name, flag), help=text)
    return p.parse_args(argv)


def check(args: argparse.Namespace) -> str | None:
    """A one-line complaint naming the ranges of a group of options one of which is out of range
    (the port and basics, the app's counts, its seconds, then the server's caps), or None."""
    from web.serve import ServerLimits
    from web.settings import WebSettings

    app = [(flag, name) for flag, name, _ in CAPS if _settings(name) is WebSettings]
    server = [(flag, name) for flag, name, _ in CAPS if _settings(name) is ServerLimits]
    groups = ([("--port", PORT, args.port)] + _bounds(args, [(flag, name) for flag, name, _ in BASICS]),
              _bounds(args, [(f, n) for f, n in app if field_type(WebSettings, n) is int]),
              _bounds(args, [(f, n) for f, n in app if field_type(WebSettings, n) is not int]),
              _bounds(args, server))
    for group in groups:
        if any(not bound.holds(value) for _, bound, value in group):
            return ranges_line([(flag, bound) for flag, bound, _ in group])
    return None


def _bounds(args: argparse.Namespace, options: list[tuple[str, str]]) -> list[tuple[str, Bound, Any]]:
    """(flag, its field's range, its value) of options that set ``web.WebSettings`` or
    ``web.ServerLimits`` fields."""
    return [(flag, bound_of(_settings(name), name), getattr(args, name)) for flag, name in options]


def settings_of(args: argparse.Namespace, cls: type) -> Any:
    """The ``cls`` (``web.WebSettings`` or ``web.ServerLimits``) of the parsed options."""
    names = [name for _, name, _ in (("", "models_dir", ""), *BASICS, *CAPS) if _settings(name) is cls]
    return cls(**{name: getattr(args, name) for name in names})


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if (problem := check(args)) is not None:
        print(f"hive-web: {problem}", file=sys.stderr)
        return 2
    from starlette.middleware.trustedhost import TrustedHostMiddleware

    from web import ServerLimits, WebSettings, create_app, make_server

    app = create_app(settings=settings_of(args, WebSettings))
    if args.host in LOCAL_HOSTS:  # refuse pages of other sites that rebind their name to us
        app.add_middleware(TrustedHostMiddleware, allowed_hosts=["127.0.0.1", "localhost", "[::1]", "::1"])
    url = f"http://{'localhost' if args.host in LOCAL_HOSTS else args.host}:{args.port}/"
    print(f"hive-web: {url} (API docs at {url}docs); checkpoints from {args.models_dir}", flush=True)
    if args.open:
        threading.Timer(1.0, webbrowser.open, args=(url,)).start()
    limits = settings_of(args, ServerLimits)
    make_server(app, args.host, args.port, limits).run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
