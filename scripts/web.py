"""``hive-web``: play, watch and analyse Hive in the browser (serves ``web.create_app``).

    hive-web                         # http://127.0.0.1:8000, checkpoints from ./runs
    hive-web --models runs/cpu --open
    hive-web --host 0.0.0.0 --port 8080   # reachable from other machines: think twice
"""

from __future__ import annotations

import argparse
import sys
import threading
import webbrowser

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="hive-web", description="Play, watch and analyse Hive in the browser.")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--models", default="runs", help="directory searched for *.pt checkpoints (default runs)")
    p.add_argument("--open", action="store_true", help="open the page in a web browser")
    p.add_argument("--move-time", type=float, default=10.0,
                   help="seconds an engine move may take at most (default 10)")
    p.add_argument("--sims", type=int, default=None, help="simulations per move of the AlphaZero opponents")
    p.add_argument("--leaves", type=int, default=None,
                   help="leaves per network call of the AlphaZero opponents (default: the player's)")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if (not 0 < args.port < 65536 or args.move_time <= 0 or (args.sims is not None and args.sims < 1)
            or (args.leaves is not None and not 1 <= args.leaves <= 256)):
        print("hive-web: --port must be 1..65535, --move-time > 0, --sims >= 1 and --leaves 1..256",
              file=sys.stderr)
        return 2
    import uvicorn
    from starlette.middleware.trustedhost import TrustedHostMiddleware

    from web import create_app

    app = create_app(args.models, move_time=args.move_time, sims=args.sims, leaves=args.leaves)
    if args.host in LOCAL_HOSTS:  # refuse pages of other sites that rebind their name to us
        app.add_middleware(TrustedHostMiddleware, allowed_hosts=["127.0.0.1", "localhost", "[::1]", "::1"])
    url = f"http://{'localhost' if args.host in LOCAL_HOSTS else args.host}:{args.port}/"
    print(f"hive-web: {url} (API docs at {url}docs); checkpoints from {args.models}", flush=True)
    if args.open:
        threading.Timer(1.0, webbrowser.open, args=(url,)).start()
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


if __name__ == "__main__":
    sys.exit(main())
