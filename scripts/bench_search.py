"""Search benchmark: simulations per second of the whole batched search loop, network included.

``python -m scripts.bench_search [--sizes tiny default] [--batches 1 16 64 256] [--device cpu] [--compile]``
Positions are random mid-game Base+MLP positions; each row runs one search per game (after a
warm-up search that compiles and loads everything) and reports sims/s and the share of time
in tree kernels, leaf encoding (env) and the network.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import torch

from hive_env import Game
from hive_env.position import random_positions
from models.gnn import build_model
from search.mcts import BatchedMCTS, SearchConfig
from search.network import make_evaluator, pick_device


def positions(n: int, game_type: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    games = random_positions(n, game_type, seed, min_plies=10, max_plies=40)
    return np.stack([g.board for g in games]), np.stack([g.hist for g in games])


def bench(size: str, batch: int, sims: int, device: torch.device, game_type: str,
          compile: bool = False) -> dict:
    torch.manual_seed(0)
    model = build_model(size).to(device)
    evaluate = make_evaluator(model, device, bf16=device.type == "cuda", compile=compile)
    boards, hists = positions(batch, game_type, seed=batch)
    exp = int(Game(game_type).expansions)
    cfg = SearchConfig(sims=sims, tree_reuse=False)
    BatchedMCTS(SearchConfig(sims=4), batch, exp, evaluate).search(boards, hists, np.arange(batch), True)
    mcts = BatchedMCTS(cfg, batch, exp, evaluate)
    start = time.perf_counter()
    mcts.search(boards, hists, np.arange(batch), add_noise=True)
    wall = time.perf_counter() - start
    t = mcts.timings
    total = t["tree"] + t["env"] + t["net"]
    return {"size": size, "B": batch, "sims/s": t["sims"] / wall, "tree": t["tree"] / total,
            "env": t["env"] / total, "net": t["net"] / total, "wall": wall}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench-search", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", default=["tiny", "default"])
    parser.add_argument("--batches", nargs="+", type=int, default=[1, 16, 64, 256])
    parser.add_argument("--sims", type=int, default=32, help="simulations per game per search")
    parser.add_argument("--device", default="cpu", help="cpu, cuda or auto")
    parser.add_argument("--game-type", default="Base+MLP")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (0 = torch default)")
    parser.add_argument("--compile", action="store_true",
                        help="torch.compile the network (the warm-up search compiles it, untimed)")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    device = pick_device(args.device)
    print(f"device {device}, torch threads {torch.get_num_threads()}, {args.sims} sims per game"
          + (", torch.compile" if args.compile else ""))
    print(f"{'size':8s} {'B':>5s} {'sims/s':>10s} {'tree':>6s} {'env':>6s} {'net':>6s} {'tree+env':>9s}")
    for size in args.sizes:
        for batch in args.batches:
            r = bench(size, batch, args.sims, device, args.game_type, args.compile)
            print(f"{r['size']:8s} {r['B']:5d} {r['sims/s']:10,.0f} {r['tree']:6.1%} {r['env']:6.1%} "
                  f"{r['net']:6.1%} {r['tree'] + r['env']:9.1%}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
