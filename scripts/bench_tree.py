"""Tree-kernel benchmark: the search's own work (select, expand, back up, the exact checks)
without a real network, so that a change to the tree shows above the network's noise.

``python -m scripts.bench_tree [--sims 64] [--leaves 4] [--repeats 6]`` searches positions along
the Base games of ``tests/data/real_games.txt`` (every third ply) at once with a deterministic
fake network and prints, for the best of the repeats after the first (compiling), simulations per
second and the seconds in tree kernels, leaf encoding and the fake network.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from hive_env import Game
from search.mcts import BatchedMCTS, SearchConfig

GAMES = Path(__file__).resolve().parents[1] / "tests" / "data" / "real_games.txt"


def fake_network(obs: dict) -> tuple[np.ndarray, np.ndarray]:
    """Deterministic logits from the action ids and a value from the move count."""
    logits = (obs["legal_actions"].astype(np.int64) * 2654435761 % 1000) / 500.0
    return logits.astype(np.float32), np.tanh(obs["n_legal"] / 40.0 - 1).astype(np.float32)


def positions() -> list[Game]:
    out = []
    for line in GAMES.read_text().splitlines():
        if not line.startswith("Base;"):
            continue
        record, game = Game.from_string(line), Game("Base")
        for i, move in enumerate(record.moves[:-1]):
            game.play(int(move))
            if i % 3 == 0:
                out.append(game.copy())
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench-tree", description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=64)
    parser.add_argument("--leaves", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=6)
    args = parser.parse_args(argv)
    games = positions()
    boards, hists = np.stack([g.board for g in games]), np.stack([g.hist for g in games])
    best, best_timings = 0.0, {}
    for rep in range(max(2, args.repeats)):
        config = SearchConfig(sims=args.sims, leaves_per_tree=args.leaves)
        mcts = BatchedMCTS(config, len(games), 0, fake_network)
        start = time.perf_counter()
        mcts.search(boards, hists, np.arange(len(games)), add_noise=True)
        rate = mcts.timings["sims"] / (time.perf_counter() - start)
        if rep and rate > best:
            best, best_timings = rate, mcts.timings
    t = best_timings
    print(f"{len(games)} positions, {args.sims} sims, {args.leaves} leaves: best {best:,.0f} sims/s; "
          f"tree {t['tree']:.4f} s, encoding {t['env']:.4f} s, fake network {t['net']:.4f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
