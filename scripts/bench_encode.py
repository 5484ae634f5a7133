"""Where the encoder's time goes: its sections, added one at a time, in process CPU time.

``python -m scripts.bench_encode [--game-type Base] [--positions 512] [--repeats 40]``: positions
from random games of 10-60 plies, each encoded into a batch row as the search does (rows reused),
first with nothing but the clearing of the row, then adding the reserve nodes and articulation
points, the stack and frontier nodes, their cell features, move generation, the moves' actions and
node links, and the global features (all of ``encode_row``); the last line is
``encode_games`` itself, which the full variant must match. Process CPU time, so that a busy
machine slows the figures less than wall time would; the best of three rounds. Prints the CPU
(model and flags) first.
"""

from __future__ import annotations

import argparse
import time
from functools import partial

import numba
import numpy as np

from hive_env import encode as enc
from hive_env.encode_sections import SECTIONS, encode_sections, random_positions
from hive_env.pieces import parse_game_type
from hive_zero.machine import cpu_line
from search.packednet import flags_found


def encode_all(boards: np.ndarray, obs, moves: np.ndarray, repeats: int) -> None:
    """``encode_games`` over every board ``repeats`` times, in batches of the rows (reused)."""
    rows = moves.shape[0]
    errors = np.zeros(rows, np.int32)
    for _ in range(repeats):
        for lo in range(0, boards.shape[0], rows):
            hi = min(boards.shape[0], lo + rows)
            enc.encode_games(boards[lo:hi], obs, moves, errors, 0, hi - lo, True)


def cpu_us(fn, positions: int) -> float:
    """Process CPU microseconds a position of one call of ``fn``."""
    start = time.process_time()
    fn()
    return (time.process_time() - start) / positions * 1e6


def measure(game_type: str, positions: int, repeats: int, rows: int = 64) -> dict[str, float]:
    """Microseconds a position of each cumulative variant and of ``encode_games`` (best of 3)."""
    numba.set_num_threads(1)
    boards = random_positions(game_type, positions)
    exp = parse_game_type(game_type)
    moves = enc.allocate_moves(rows)
    n = boards.shape[0] * repeats
    best: dict[str, float] = {}

    def keep(name: str, fn) -> None:
        fn()  # compiled and warm
        us = cpu_us(fn, n)
        best[name] = min(best.get(name, us), us)

    for _ in range(3):
        for level, name in enumerate(SECTIONS):
            obs = enc.obs_arrays(enc.allocate_observation(rows, exp))
            keep(name, partial(encode_sections, boards, obs, moves, level, repeats))
        keep("encode_games", partial(encode_all, boards, enc.obs_arrays(enc.allocate_observation(rows, exp)),
                                     moves, repeats))
    return best


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m scripts.bench_encode",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--game-type", default="Base")
    parser.add_argument("--positions", type=int, default=512)
    parser.add_argument("--repeats", type=int, default=40)
    args = parser.parse_args(argv)
    if args.positions < 1 or args.repeats < 1:
        parser.error("--positions and --repeats must be at least 1")
    try:
        parse_game_type(args.game_type)
    except ValueError as e:
        parser.error(str(e))
    print(f"machine: {cpu_line()}; {flags_found()}")
    res = measure(args.game_type, args.positions, args.repeats)
    print(f"{args.game_type}: {args.positions} positions of random games (10-60 plies), "
          "process CPU us a position, cumulative, best of 3")
    prev = 0.0
    for name in SECTIONS:
        print(f"  {name:42s} {res[name]:6.2f}   (this section {res[name] - prev:+5.2f})")
        prev = res[name]
    print(f"  {'encode_games (the encoder itself)':42s} {res['encode_games']:6.2f}")


if __name__ == "__main__":
    main()
