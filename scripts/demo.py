"""``hive-demo``: the main job until training lands: a perft check and random self-play.

Counts perft from the start of every game type against the published numbers, then plays
seeded random games with the compiled engine and prints their results and one record.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from tqdm import tqdm

from hive_env import GAME_TYPES, Game
from hive_env.board import BLACK_WINS, DRAW, WHITE_WINS
from hive_env.outcome import DEFAULT_PLY_CAP

PUBLISHED_PERFT4 = {"Base": 21600, "Base+M": 45414, "Base+L": 45414, "Base+P": 45414,
                    "Base+ML": 86400, "Base+MP": 86400, "Base+LP": 86400, "Base+MLP": 151686}


def random_game(game_type: str, rng: np.random.Generator, ply_cap: int) -> Game:
    """One uniformly random game, stopped at a result or ``ply_cap`` plies."""
    game = Game(game_type, ply_cap=ply_cap)
    while not game.is_over:
        moves = game.legal_moves()
        game.play(int(moves[rng.integers(len(moves))]))
    return game


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="hive-demo", description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="random games to play")
    parser.add_argument("--game-type", default="Base+MLP", choices=GAME_TYPES)
    parser.add_argument("--ply-cap", type=int, default=DEFAULT_PLY_CAP, help="draw after this many plies")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    print("perft(4) from the start of every game type:")
    for gt, want in PUBLISHED_PERFT4.items():
        start = time.perf_counter()
        got = Game(gt).perft(4)
        flag = "ok" if got == want else f"MISMATCH (published {want})"
        print(f"  {gt:9s} {got:>8d}  {time.perf_counter() - start:6.3f}s  {flag}")
        if got != want:
            return 1

    rng = np.random.default_rng(args.seed)
    results = {WHITE_WINS: 0, BLACK_WINS: 0, DRAW: 0}
    plies = 0
    last = None
    for _ in tqdm(range(args.games), desc=f"random self-play {args.game_type}", unit="game"):
        last = random_game(args.game_type, rng, args.ply_cap)
        results[last.status] += 1
        plies += last.ply
    print(f"{args.games} games, {plies} plies: White {results[WHITE_WINS]}, "
          f"Black {results[BLACK_WINS]}, draws {results[DRAW]}")
    if last is not None:
        print("last game:", last.game_string())
    return 0


if __name__ == "__main__":
    sys.exit(main())
