"""Benchmark of a root's random numbers: numpy's ``Generator`` (one per game and move) against the
compiled streams of ``search.root_noise``, both as the search uses them.

``python -m search.bench_root_noise [--games 64] [--moves 30] [--alpha 0.3] [--repeats 200]``: for each
game of a self-play batch, a PUCT root's Dirichlet noise over ``--moves`` moves and one move sampled
from weights (temperature 1); then a Gumbel root's noise. Prints microseconds a game for each way,
their ratio and the CPU (``lscpu``'s model and flags).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from hive_zero.machine import cpu_line

from .root_noise import dirichlet_, gumbel_, sample_index


def numpy_roots(seeds: np.ndarray, n: int, alpha: float, weights: np.ndarray, gumbel: bool) -> None:
    for s in seeds:
        rng = np.random.default_rng(int(s))
        if gumbel:
            rng.gumbel(size=n)
        else:
            rng.dirichlet(np.full(n, alpha))
            rng.choice(n, p=weights / weights.sum())


def compiled_roots(seeds: np.ndarray, n: int, alpha: float, weights: np.ndarray, gumbel: bool) -> None:
    out = np.empty(n)
    for s in seeds:
        if gumbel:
            gumbel_(int(s), out)
        else:
            dirichlet_(int(s), alpha, out)
            sample_index(int(s), weights)


def per_game_us(fn, seeds, n, alpha, weights, gumbel, repeats) -> float:
    fn(seeds[:2], n, alpha, weights, gumbel)  # compile / warm up
    start = time.perf_counter()
    for _ in range(repeats):
        fn(seeds, n, alpha, weights, gumbel)
    return (time.perf_counter() - start) / (repeats * seeds.size) * 1e6


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=64, help="games a search (self-play batch)")
    ap.add_argument("--moves", type=int, default=30, help="legal moves at each root")
    ap.add_argument("--alpha", type=float, default=0.3, help="Dirichlet concentration")
    ap.add_argument("--repeats", type=int, default=200, help="searches timed")
    args = ap.parse_args(argv)
    seeds = np.random.default_rng(0).integers(0, 2**31, size=args.games)
    weights = np.random.default_rng(1).random(args.moves)
    print(cpu_line())
    print(f"{args.games} games, {args.moves} moves a root, {args.repeats} searches")
    print(f"{'root':<22}{'numpy Generator us/game':>26}{'compiled us/game':>19}{'ratio':>8}")
    for name, gumbel in (("PUCT: Dirichlet+choice", False), ("Gumbel: noise", True)):
        old = per_game_us(numpy_roots, seeds, args.moves, args.alpha, weights, gumbel, args.repeats)
        new = per_game_us(compiled_roots, seeds, args.moves, args.alpha, weights, gumbel, args.repeats)
        print(f"{name:<22}{old:>26.1f}{new:>19.1f}{old / new:>7.1f}x")


if __name__ == "__main__":
    main()
