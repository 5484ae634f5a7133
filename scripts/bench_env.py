"""``hive-bench-env``: random-action self-play through ``HiveVecEnv`` against OpenSpiel's Hive.

Every ply builds the legal mask and the graph observation of every game. Plies per second
for B games with 1 and 2 numba threads, after warm-up (compile time excluded), each over a
fixed wall-time budget; OpenSpiel (``legal_actions()`` + ``observation_tensor()`` every ply,
uniform random move, new game when terminal; Base+MLP, max 500 plies) runs in the same
process; without it (the ``bench`` extra) one line says how to install it. "cpu" columns divide
by process CPU time instead of wall time (steadier on a busy machine). OMP_WAIT_POLICY defaults
to PASSIVE here: spinning OpenMP workers lose badly when the cores are shared.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # before numba starts its thread pool

import argparse  # noqa: E402
import time  # noqa: E402

import numba  # noqa: E402
import numpy as np  # noqa: E402

from hive_env.vec_env import HiveVecEnv  # noqa: E402
from hive_zero import version_line  # noqa: E402

OPENSPIEL_INSTALL = 'pip install -e ".[bench]" or make bench'
"""How to get OpenSpiel (the ``bench`` extra), printed when it is missing."""


def bench_vec(num_envs: int, threads: int, seconds: float, game_type: str,
              ply_cap: int) -> tuple[float, float]:
    """(plies per wall second, plies per CPU second) of random self-play with B games."""
    numba.set_num_threads(threads)
    env = HiveVecEnv(num_envs, game_type, ply_cap=ply_cap)
    rng = np.random.default_rng(0)
    rows = np.arange(num_envs)
    obs, _ = env.reset()

    def run(steps: int) -> None:
        for _ in range(steps):
            pick = (rng.random(num_envs) * obs["n_legal"]).astype(np.int64)
            env.step(obs["legal_actions"][rows, pick])

    run(3)  # warm-up
    steps = 0
    wall, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - wall < seconds:
        run(4)
        steps += 4
    plies = steps * num_envs
    return plies / (time.perf_counter() - wall), plies / (time.process_time() - cpu)


def bench_openspiel(seconds: float) -> tuple[float, float] | None:
    """(plies per wall second, per CPU second) of OpenSpiel's Hive, or None without pyspiel."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("hive")
    rng = np.random.default_rng(0)
    state = game.new_initial_state()
    plies = 0
    wall, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - wall < seconds:
        if state.is_terminal():
            state = game.new_initial_state()
        legal = state.legal_actions()
        state.observation_tensor()
        state.apply_action(legal[int(rng.integers(len(legal)))])
        plies += 1
    return plies / (time.perf_counter() - wall), plies / (time.process_time() - cpu)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="hive-bench-env", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=version_line("hive-bench-env"))
    parser.add_argument("--seconds", type=float, default=3.0, help="wall-time budget per measurement")
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 64, 256, 1024])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--game-type", default="Base+MLP")
    parser.add_argument("--ply-cap", type=int, default=500, help="500 = OpenSpiel's max game length")
    args = parser.parse_args(argv)

    print(f"numba {numba.__version__}, OMP_WAIT_POLICY={os.environ['OMP_WAIT_POLICY']}, "
          f"{args.seconds:g} s per measurement, {args.game_type}, ply cap {args.ply_cap}")
    spiel = bench_openspiel(args.seconds)
    results = {}
    print(f"{'engine':>10} {'B':>5} {'threads':>7} {'plies/s':>10} {'per core':>10} {'cpu plies/s':>12}")
    if spiel:
        print(f"{'openspiel':>10} {1:>5} {1:>7} {spiel[0]:>10.0f} {spiel[0]:>10.0f} {spiel[1]:>12.0f}")
    else:
        print(f"{'openspiel':>10} (not installed, no comparison: {OPENSPIEL_INSTALL})")
    for threads in args.threads:
        for b in args.batches:
            wall, cpu = bench_vec(b, threads, args.seconds, args.game_type, args.ply_cap)
            results[b, threads] = (wall, cpu)
            print(f"{'hive_env':>10} {b:>5} {threads:>7} {wall:>10.0f} {wall / threads:>10.0f} {cpu:>12.0f}")
    if spiel and 256 in args.batches:
        for threads in args.threads:
            wall, cpu = results[256, threads]
            print(f"B=256, {threads} thread(s): {wall / threads / spiel[0]:.1f}x OpenSpiel per core "
                  f"(wall), {cpu / spiel[1]:.1f}x per CPU second")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
