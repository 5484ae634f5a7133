"""How long a game's review takes: ``python -m scripts.bench_review [--plies 60] [--sims 400]``.

A seeded Base game of ``--plies`` plies (random moves, so that it lasts: games between players
end sooner) is reviewed by ``search.review.review_game`` with the shipped network on one thread
(torch and numba), after a warm-up review that loads the kernels. Prints the seconds, the
simulations per second over all positions, and the marks found. Pin it to one core for the
issue's figure: ``taskset -c 0 python -m scripts.bench_review``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m scripts.bench_review",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--plies", type=int, default=60)
    parser.add_argument("--sims", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--backend", default="auto", help="inference backend (default %(default)s)")
    args = parser.parse_args(argv)
    import numba
    import torch

    torch.set_num_threads(1)
    numba.set_num_threads(1)
    from hive_env import Game
    from models import shipped
    from search.review import Network, review_game

    rng = np.random.default_rng(args.seed)
    game = Game("Base")
    while game.ply < args.plies and not game.is_over:
        legal = game.legal_moves()
        game.play(int(legal[rng.integers(len(legal))]))
    network = Network.load(shipped.CHECKPOINT, backend=args.backend)
    review_game(Game.from_string(game.game_string()), network, sims=8)  # kernels loaded
    start = time.perf_counter()
    review = review_game(game, network, sims=args.sims)
    seconds = time.perf_counter() - start
    marks = {m: sum(p.mark == m for p in review.plies) for m in ("inaccuracy", "mistake", "blunder")}
    rate = (game.ply + 1) * args.sims / seconds
    print(f"review of a {game.ply}-ply Base game ({game.state}) at {args.sims} simulations a position, one "
          f"thread: {seconds:.1f} s, {rate:,.0f} simulations/s; marks {marks}")


if __name__ == "__main__":
    main()
