"""Engine benchmark: perft speed and random playouts against OpenSpiel's C++ Hive.

Run ``python -m scripts.bench_engine`` (``--deep`` adds perft(6) of Base+MLP). Everything
runs in one process, single-threaded, so the ratios are measured on the same machine at
the same time. Random playouts generate the legal moves at every ply and stop a game at a
result or after ``--max-plies`` plies, the same for both engines. OpenSpiel is optional
(``pip install open-spiel``); without it its rows are skipped.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from hive_env import Game
from hive_env.board import new_board
from hive_env.pieces import parse_game_type
from hive_env.rules import perft, random_playouts
from hive_zero import version_line


def bench_perft(game_type: str, depth: int) -> tuple[int, float]:
    board, hist = new_board(parse_game_type(game_type))
    perft(board, hist, 2)  # compiled code loaded
    start = time.perf_counter()
    count = perft(board, hist, depth)
    return int(count), time.perf_counter() - start


def bench_compiled_playouts(game_type: str, seconds: float, max_plies: int) -> float:
    board, hist = new_board(parse_game_type(game_type))
    random_playouts(board, hist, 1, max_plies, 0)
    plies, start, seed = 0, time.perf_counter(), 1
    while time.perf_counter() - start < seconds:
        plies += random_playouts(board, hist, 20, max_plies, seed)
        seed += 1
    return plies / (time.perf_counter() - start)


def bench_python_playouts(game_type: str, seconds: float, max_plies: int) -> float:
    rng = np.random.default_rng(0)
    plies, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        game = Game(game_type)
        for _ in range(max_plies):
            moves = game.legal_moves()
            if len(moves) == 0:
                break
            game.play(int(moves[rng.integers(len(moves))]))
            plies += 1
    return plies / (time.perf_counter() - start)


def bench_openspiel_playouts(game_type: str, seconds: float, max_plies: int) -> float | None:
    try:
        import pyspiel
    except ImportError:
        return None
    exp = parse_game_type(game_type)
    game = pyspiel.load_game("hive", {"uses_mosquito": bool(exp & 1), "uses_ladybug": bool(exp & 2),
                                      "uses_pillbug": bool(exp & 4)})
    rng = np.random.default_rng(0)
    plies, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        for _ in range(max_plies):
            if state.is_terminal():
                break
            actions = state.legal_actions()
            state.apply_action(actions[rng.integers(len(actions))])
            plies += 1
    return plies / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="hive-bench-engine", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=version_line("hive-bench-engine"))
    parser.add_argument("--seconds", type=float, default=5.0, help="time per playout measurement")
    parser.add_argument("--max-plies", type=int, default=200, help="plies per random game at most")
    parser.add_argument("--deep", action="store_true", help="also perft(6) of Base+MLP (192,353,904)")
    args = parser.parse_args(argv)

    print("perft (single thread, bulk-counted leaves)")
    runs = [("Base", 6, 12_219_480), ("Base+MLP", 5, 5_427_108)]
    if args.deep:
        runs.append(("Base+MLP", 6, 192_353_904))
    for game_type, depth, want in runs:
        count, secs = bench_perft(game_type, depth)
        flag = "ok" if count == want else f"MISMATCH, published {want}"
        print(f"  {game_type:9s} perft({depth}) = {count:>11,d}  {secs:7.2f} s  "
              f"{count / secs:14,.0f} leaves/s  {flag}")

    print(f"random playouts, plies/s on one core (legal moves every ply, <= {args.max_plies} plies a game)")
    for game_type in ("Base", "Base+MLP"):
        compiled = bench_compiled_playouts(game_type, args.seconds, args.max_plies)
        python = bench_python_playouts(game_type, args.seconds, args.max_plies)
        spiel = bench_openspiel_playouts(game_type, args.seconds, args.max_plies)
        print(f"  {game_type:9s} compiled loop  {compiled:12,.0f}")
        print(f"  {game_type:9s} Python loop    {python:12,.0f}   (Game.legal_moves + Game.play per ply)")
        if spiel is None:
            print(f"  {game_type:9s} OpenSpiel      (not installed: pip install open-spiel)")
        else:
            print(f"  {game_type:9s} OpenSpiel      {spiel:12,.0f}   (legal_actions + apply_action per ply)")
            print(f"  {game_type:9s} ratio compiled/OpenSpiel = {compiled / spiel:.1f}x, "
                  f"Python/OpenSpiel = {python / spiel:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
