"""Search benchmark: simulations per second of the whole batched search loop, network included.

``python -m scripts.bench_search [--sizes tiny default] [--batches 1 16 64 256] [--device cpu] [--compile]
[--backend auto]``: positions are random mid-game Base+MLP positions; each row runs one search
per game (after a warm-up search that compiles and loads everything) and reports sims/s and
the share of time in tree kernels, leaf encoding (env) and the network.

``python -m scripts.bench_search --player [--leaves 1 4 8 16] [--move-time 1.0] [--moves 8]``: the
``alphazero`` player (the shipped network, one core) with a time budget a move, on the
positions of a fixed real game (the first Base game of ``tests/data/real_games.txt``, from ply
4): mean simulations per second over the moves, for each ``leaves_per_tree``.

Also run as ``python -m search.bench_search``. See docs/search.md (benchmarks).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch

from hive_env import Game
from hive_env.position import random_positions
from hive_zero.machine import cpu_line
from models.gnn import build_model

from .mcts import BatchedMCTS, SearchConfig
from .network import make_evaluator, pick_device

REAL_GAMES = Path(__file__).resolve().parents[1] / "tests" / "data" / "real_games.txt"


def positions(n: int, game_type: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    games = random_positions(n, game_type, seed, min_plies=10, max_plies=40)
    return np.stack([g.board for g in games]), np.stack([g.hist for g in games])


def bench(size: str, batch: int, sims: int, device: torch.device, game_type: str,
          compile: bool = False, backend: str = "auto") -> dict:
    torch.manual_seed(0)
    model = build_model(size).to(device)
    evaluate = make_evaluator(model, device, bf16=device.type == "cuda", compile=compile, backend=backend)
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


def fixed_game(path: Path = REAL_GAMES) -> list[Game]:
    """The positions of the first Base game of ``path`` from ply 4 (an opening's 4 random plies)."""
    line = next(x for x in path.read_text().splitlines() if x.startswith("Base;"))
    record = Game.from_string(line)
    game, out = Game("Base"), []
    for ply, move in enumerate(record.moves):
        if ply >= 4:
            out.append(game.copy())
        game.play(int(move))
        if game.is_over:
            break
    return out


def bench_player(leaves: int, move_time: float, moves: int, backend: str) -> dict:
    """Mean simulations per second of the player over ``moves`` positions of the fixed game."""
    from players.base import Budget

    from .alphazero_player import AlphaZeroPlayer

    player = AlphaZeroPlayer(device="cpu", leaves=leaves, backend=backend, seed=0)
    positions = fixed_game()[:moves]
    player.choose(positions[0], Budget(sims=16))  # warm-up: kernels, caches
    player.close()
    rates, sims = [], []
    for game in positions:
        start = time.perf_counter()
        player.choose(game, Budget(time_s=move_time))
        rates.append(player.last_sims / (time.perf_counter() - start))
        sims.append(player.last_sims)
    cache = player._mcts.cache
    return {"leaves": leaves, "sims/s": float(np.mean(rates)), "sims/move": float(np.mean(sims)),
            "cache hits": cache.hits / max(1, cache.hits + cache.misses), "backend": player.evaluate.backend}


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
    parser.add_argument("--backend", default="auto", help="inference backend (search.network.BACKENDS)")
    parser.add_argument("--player", action="store_true", help="the alphazero player at a time a move")
    parser.add_argument("--leaves", nargs="+", type=int, default=[1, 4, 8, 16], help="with --player")
    parser.add_argument("--move-time", type=float, default=1.0, help="with --player: seconds a move")
    parser.add_argument("--moves", type=int, default=8, help="with --player: moves of the fixed game")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    if args.player:
        import numba

        numba.set_num_threads(1)

        from .packednet import flags_found

        print(f"machine: {cpu_line()}; {flags_found()}")
        print(f"alphazero player, shipped network, {args.move_time:g} s a move, {args.moves} moves, one core")
        print(f"{'leaves':>6s} {'backend':>8s} {'sims/s':>10s} {'sims/move':>10s} {'cache hits':>10s}")
        for leaves in args.leaves:
            r = bench_player(leaves, args.move_time, args.moves, args.backend)
            print(f"{r['leaves']:6d} {r['backend']:>8s} {r['sims/s']:10,.0f} {r['sims/move']:10,.0f} "
                  f"{r['cache hits']:10.1%}", flush=True)
        return 0
    device = pick_device(args.device)
    print(f"device {device}, torch threads {torch.get_num_threads()}, {args.sims} sims per game"
          + (", torch.compile" if args.compile else ""))
    print(f"{'size':8s} {'B':>5s} {'sims/s':>10s} {'tree':>6s} {'env':>6s} {'net':>6s} {'tree+env':>9s}")
    for size in args.sizes:
        for batch in args.batches:
            r = bench(size, batch, args.sims, device, args.game_type, args.compile, args.backend)
            print(f"{r['size']:8s} {r['B']:5d} {r['sims/s']:10,.0f} {r['tree']:6.1%} {r['env']:6.1%} "
                  f"{r['net']:6.1%} {r['tree'] + r['env']:9.1%}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
