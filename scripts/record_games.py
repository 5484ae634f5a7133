"""Record real games between classical players, one UHP GameString a line (test fixtures).

``python -m scripts.record_games --out tests/data/real_games.txt [--games 2] [--plies 90] [--seed 0]``
plays, for each of the 8 game types, ``--games`` games of ``alphabeta:depth=2`` against
``alphabeta:depth=1`` (colours alternated, a random 4-ply opening each, seeded) to the end or ``--plies``
plies, and writes their GameStrings. The inference-backend tests
(``tests/search/test_fastnet.py``, ``tests/search/test_onnx_backend.py``) take positions along these games:
positions of real play, from the opening to crowded middle games, in every game type.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from hive_env import GAME_TYPES, Game
from hive_env.files import write_atomic
from players import make_player


def record(game_type: str, index: int, plies: int, seed: int) -> str:
    """One game of ``game_type``: a seeded random 4-ply opening, then the two players."""
    rng = np.random.default_rng([seed, GAME_TYPES.index(game_type), index])
    game = Game(game_type)
    for _ in range(4):
        moves = game.legal_moves()
        game.play(int(moves[rng.integers(len(moves))]))
    specs = ("alphabeta:depth=2", "alphabeta:depth=1")
    if index % 2:
        specs = specs[::-1]
    players = [make_player(s, int(rng.integers(2**31))) for s in specs]
    try:
        while not game.is_over and game.ply < plies:
            game.play(int(players[game.side_to_move].choose(game)))
    finally:
        for p in players:
            p.close()
    return game.game_string()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="record-games", description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--games", type=int, default=2, help="games per game type")
    parser.add_argument("--plies", type=int, default=90, help="stop a game after this many plies")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    lines = [record(t, i, args.plies, args.seed) for t in GAME_TYPES for i in range(args.games)]
    write_atomic(args.out, "".join(line + "\n" for line in lines))
    print(f"{len(lines)} games -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
