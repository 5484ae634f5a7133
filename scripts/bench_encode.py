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
from numba import njit

from hive_env import encode as enc
from hive_env.board import EXPANSIONS, IN_PROGRESS, NO_REFCOUNT, PLY, STATUS, new_board, play
from hive_env.pieces import parse_game_type
from hive_env.pinned import articulation_pieces
from hive_env.rules import MAX_MOVES, generate_moves, generate_moves_pinned, new_move_scratch
from hive_zero.machine import cpu_line
from search.packednet import flags_found

SECTIONS = ("clearing the row", "+ reserve nodes, articulation points", "+ stack and frontier nodes",
            "+ cell features", "+ move generation", "+ actions and node links of the moves",
            "+ global features (all of encode_row)")
"""The cumulative variants, in order: variant ``k`` runs the sections up to the ``k``-th."""


def random_positions(game_type: str, count: int, seed: int = 0) -> np.ndarray:
    """[count, BOARD_SIZE] boards of games in progress after 10-60 uniformly random plies."""
    rng = np.random.default_rng(seed)
    out = np.zeros(MAX_MOVES, np.int32)
    boards = []
    while len(boards) < count:
        b, h = new_board(parse_game_type(game_type))
        for _ in range(int(rng.integers(10, 60))):
            n = generate_moves(b, out)
            if n == 0:
                break
            play(b, h, int(out[rng.integers(n)]))
        if b[STATUS] == IN_PROGRESS:
            boards.append(b.copy())
    return np.stack(boards)


@njit(cache=True)
def encode_sections(boards, obs, moves, level, repeats):
    """Encode every board ``repeats`` times (board i into row i mod rows) running the sections up
    to ``level`` (an index of :data:`SECTIONS`); returns the legal moves counted (kept live)."""
    node_of_hex = np.full(enc.N_HEX, -1, dtype=np.int16)
    scratch = new_move_scratch()
    total = 0
    for _ in range(repeats):
        for i in range(boards.shape[0]):
            b = i % moves.shape[0]
            total += section_row(boards[i], b, obs, moves[b], node_of_hex, scratch, level)
    return total


@njit(cache=True, **NO_REFCOUNT)
def section_row(board, b, obs, moves, node_of_hex, scratch, level):
    """``encode_row`` (rows reused) cut after section ``level``; returns the legal moves."""
    enc._clear_used(obs, b)
    if level == 0:
        return 0
    me = np.int64(board[PLY]) & 1
    first = 2 * enc._N_KINDS[board[EXPANSIONS]]
    reserve_own, reserve_opp = enc._reserve_nodes(board, obs, b, me)
    articulation_pieces(board, scratch.pinned, scratch.work)
    n_nodes = first
    stack_end = first
    if level >= 2:
        stack_end = enc._stack_nodes(board, obs, b, me, first, node_of_hex, scratch.pinned)
        n_nodes, _ = enc._frontier_nodes(board, obs, b, first, stack_end, node_of_hex)
    if level >= 3:
        enc._cell_features(board, obs, b, me, first, stack_end, n_nodes, node_of_hex)
    n_legal = 0
    if level == 4:
        n_legal = generate_moves_pinned(board, moves, scratch)
    elif level >= 5:
        n_legal, _ = enc._legal_moves(board, obs, b, moves, node_of_hex, scratch)
    if level >= 6:
        enc._global_features(board, obs.global_feat[b], reserve_own, reserve_opp)
        obs.current_player[b] = me
    obs.n_nodes[b] = n_nodes
    obs.n_legal[b] = n_legal if level >= 5 else 0  # the mask bits only where they were set
    enc._restore_scratch(obs.node_hex[b], first, n_nodes, node_of_hex)
    return n_legal


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
