"""Self-play benchmark: positions per second of one self-play worker, as the cpu preset runs it.

One worker's loop on one core (``SelfPlay.step`` over ``--games`` concurrent games, the cpu
preset's search, a fresh network of ``--size``; 3 untimed warm-up moves), for each
``--inference`` backend in one run (the first the baseline of the ratios; ``constant``, a network
that costs nothing, gives the CPU-side ceiling). It uses only ``SelfPlay``'s public API, so the
same file measures older commits too (before/after in one run). ``--json`` writes the rows.

See docs/search.md (benchmarks) and docs/scaling.md.
"""

from __future__ import annotations

import argparse
import inspect
import json
import sys
import time

import numba
import torch

from hive_zero.machine import cpu_line
from models.gnn import build_model
from search.mcts import SearchConfig
from search.network import make_evaluator, pick_device, uniform_evaluate
from search.packednet import flags_found
from training.selfplay import SelfPlay, SelfPlayConfig


def measure(name: str, args) -> tuple[str, float, float]:
    """(what ran, positions per second, the network's share of the time) of one backend."""
    torch.manual_seed(args.seed)
    model = build_model(args.size)
    if name == "constant":
        evaluate, label = uniform_evaluate, "constant network: the CPU-side ceiling"
    else:
        device = pick_device(args.device)
        kwargs = {"compile": args.compile, "bf16": device.type == "cuda"}
        if "backend" in inspect.signature(make_evaluator).parameters:  # older commits: torch only
            kwargs["backend"] = name
        evaluate = make_evaluator(model.to(device), device, **kwargs)
        describe = getattr(evaluate, "describe", None)  # older commits: the backend's name
        label = f"inference {describe() if describe else getattr(evaluate, 'backend', 'torch')}"
    label += f"; {args.games} games, {args.sims} sims, {args.size} network, compile {args.compile}"
    label += f", {args.game_type}{', Gumbel root' if args.gumbel else ''}"
    search = SearchConfig(sims=args.sims, gumbel=args.gumbel)
    selfplay = SelfPlay(SelfPlayConfig(games=args.games, adjudicate_margin=2), search, args.game_type,
                        args.ply_cap, evaluate, seed=args.seed)
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
    return label, moves * args.games / wall, (timings["net"] - net0) / wall


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench-selfplay", description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--games", type=int, default=64)
    parser.add_argument("--sims", type=int, default=32)
    parser.add_argument("--size", default="tiny")
    parser.add_argument("--compile", action="store_true", help="torch.compile (the cpu preset: on)")
    parser.add_argument("--inference", nargs="+", default=["auto"],
                        help="inference backends (search.network.BACKENDS, or constant: the ceiling)")
    parser.add_argument("--ply-cap", type=int, default=120)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default="cpu", help="where the network runs: cpu, cuda or auto")
    parser.add_argument("--game-type", default="Base")
    parser.add_argument("--gumbel", action="store_true", help="the Gumbel root (the gpu preset's search)")
    parser.add_argument("--json", help="write the rows here")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    numba.set_num_threads(1)
    cpu = f"{cpu_line()}; {flags_found()}"
    print(f"machine: {cpu}")
    rows = [(name, *measure(name, args)) for name in args.inference]
    base = rows[0][2]
    for name, label, rate, share in rows:
        print(f"{name:>9}: {rate:7,.0f} positions/s  {rate / base:5.2f}x  network {share:4.0%} of the time  "
              f"({label})")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": args.device, "machine": cpu, "rows": [
                {"inference": name, "what": label, "positions_per_s": round(rate, 1),
                 "vs_first": round(rate / base, 3), "network_share": round(share, 3)}
                for name, label, rate, share in rows]}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
