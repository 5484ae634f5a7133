"""Self-play benchmark: positions per second of one self-play worker, as the cpu preset runs it.

``python -m scripts.bench_selfplay [--seconds 60] [--games 64] [--sims 32] [--size tiny] [--compile]
[--inference auto] [--ply-cap 120] [--seed 0]``

One worker's loop on one core (torch and numba at one thread, as ``training.worker`` sets them):
``SelfPlay.step`` (search, move, replay trace) over ``--games`` concurrent Base games with the
cpu preset's search settings (PUCT, root noise, ``--sims`` simulations), on a freshly
initialised network of ``--size``. A warm-up of 3 moves (compiling) is not timed; then moves are
played for ``--seconds`` and the positions (moves played, every game) per second reported, with
the share of the search's time in the network. It uses only ``SelfPlay``'s public API, so the
same file measures older commits too (copy it into a checkout of one: before/after in one run).
"""

from __future__ import annotations

import argparse
import inspect
import sys
import time

import numba
import torch

from models.gnn import build_model
from search.mcts import SearchConfig
from search.network import make_evaluator
from training.selfplay import SelfPlay, SelfPlayConfig


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench-selfplay", description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--games", type=int, default=64)
    parser.add_argument("--sims", type=int, default=32)
    parser.add_argument("--size", default="tiny")
    parser.add_argument("--compile", action="store_true", help="torch.compile (the cpu preset: on)")
    parser.add_argument("--inference", default="auto", help="inference backend (search.network.BACKENDS)")
    parser.add_argument("--ply-cap", type=int, default=120)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    numba.set_num_threads(1)
    torch.manual_seed(args.seed)
    model = build_model(args.size)
    kwargs = {"compile": args.compile}
    if "backend" in inspect.signature(make_evaluator).parameters:  # older commits: torch only
        kwargs["backend"] = args.inference
    evaluate = make_evaluator(model, "cpu", **kwargs)
    selfplay = SelfPlay(SelfPlayConfig(games=args.games, adjudicate_margin=2), SearchConfig(sims=args.sims),
                        "Base", args.ply_cap, evaluate, seed=args.seed)
    for _ in range(3):
        selfplay.step()
    timings = selfplay.mcts.timings
    net0 = timings["net"]
    start = time.perf_counter()
    moves = 0
    while time.perf_counter() - start < args.seconds:
        selfplay.step()
        moves += 1
    wall = time.perf_counter() - start
    print(f"self-play: {args.games} games, {args.sims} sims, {args.size} network, compile {args.compile}, "
          f"inference {getattr(evaluate, 'backend', 'torch')}: {moves * args.games / wall:,.0f} positions/s "
          f"({moves} moves in {wall:.0f} s; network {(timings['net'] - net0) / wall:.0%} of the time)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
