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

from hive_zero import version_line

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="hive-web", description="Play, watch and analyse Hive in the browser.",
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--version", action="version", version=version_line("hive-web"))
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8000, help="port")
    p.add_argument("--models", default="runs", help="directory searched for *.pt checkpoints")
    p.add_argument("--open", action="store_true", help="open the page in a web browser")
    p.add_argument("--move-time", type=float, default=10.0, help="seconds an engine move may take at most")
    p.add_argument("--sims", type=int, default=None,
                   help="simulations a move of the AlphaZero opponents at the top level, 10 (unset: its 1 s "
                        "a move); the levels below keep their own")
    p.add_argument("--leaves", type=int, default=None,
                   help="leaves per network call of the AlphaZero opponents (unset: the player's own)")
    caps = p.add_argument_group("caps (for a server shared with others; see docs/web.md)")
    caps.add_argument("--max-games", type=int, default=64, help="games kept at once, over all clients")
    caps.add_argument("--games-per-client", type=int, default=8, help="games one client (cookie) keeps")
    caps.add_argument("--idle", type=float, default=3600.0, help="seconds before an untouched game expires")
    caps.add_argument("--search-slots", type=int, default=2,
                      help="engine moves and analyses running at once (one per client)")
    caps.add_argument("--search-sims", type=int, default=4000, help="simulations in flight over all searches")
    caps.add_argument("--search-queue", type=int, default=16, help="searches waiting for a slot at most")
    caps.add_argument("--review-workers", type=int, default=1,
                      help="game reviews running at once (each searches every position of a game)")
    caps.add_argument("--review-queue", type=int, default=8,
                      help="game reviews queued or running at most, over all clients (one per client)")
    caps.add_argument("--max-connections", type=int, default=100, help="connections open at once")
    caps.add_argument("--header-timeout", type=float, default=10.0, help="seconds to send a request head")
    caps.add_argument("--body-timeout", type=float, default=10.0, help="seconds to send a request body")
    caps.add_argument("--keep-alive", type=float, default=5.0, help="seconds an idle connection stays open")
    return p.parse_args(argv)


def check(args: argparse.Namespace) -> str | None:
    """A one-line complaint about the arguments, or None."""
    if (not 0 < args.port < 65536 or args.move_time <= 0 or (args.sims is not None and args.sims < 1)
            or (args.leaves is not None and not 1 <= args.leaves <= 256)):
        return "--port must be 1..65535, --move-time > 0, --sims >= 1 and --leaves 1..256"
    counts = (args.max_games, args.games_per_client, args.search_slots, args.search_sims,
              args.max_connections, args.review_workers, args.review_queue)
    if min(counts) < 1 or args.search_queue < 0:
        return ("--max-games, --games-per-client, --search-slots, --search-sims, --review-workers, "
                "--review-queue and --max-connections must be >= 1, --search-queue >= 0")
    if min(args.idle, args.header_timeout, args.body_timeout, args.keep_alive) <= 0:
        return "--idle, --header-timeout, --body-timeout and --keep-alive must be > 0"
    return None


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if (problem := check(args)) is not None:
        print(f"hive-web: {problem}", file=sys.stderr)
        return 2
    from starlette.middleware.trustedhost import TrustedHostMiddleware

    from web import ServerLimits, create_app, make_server

    app = create_app(args.models, move_time=args.move_time, sims=args.sims, leaves=args.leaves,
                     max_sessions=args.max_games, per_client=args.games_per_client, idle_s=args.idle,
                     search_slots=args.search_slots, search_sims=args.search_sims,
                     search_queue=args.search_queue, body_timeout=args.body_timeout,
                     review_workers=args.review_workers, review_queue=args.review_queue)
    if args.host in LOCAL_HOSTS:  # refuse pages of other sites that rebind their name to us
        app.add_middleware(TrustedHostMiddleware, allowed_hosts=["127.0.0.1", "localhost", "[::1]", "::1"])
    url = f"http://{'localhost' if args.host in LOCAL_HOSTS else args.host}:{args.port}/"
    print(f"hive-web: {url} (API docs at {url}docs); checkpoints from {args.models}", flush=True)
    if args.open:
        threading.Timer(1.0, webbrowser.open, args=(url,)).start()
    limits = ServerLimits(max_connections=args.max_connections, header_timeout=args.header_timeout,
                          keep_alive=args.keep_alive)
    make_server(app, args.host, args.port, limits).run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
