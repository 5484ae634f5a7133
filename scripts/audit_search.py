"""Audit: does every search in self-play perform all its simulations?

Plays real self-play (``training.selfplay.SelfPlay``, tree reuse on) with a small untrained
network and counts, per game type and root (PUCT, Gumbel), the searches whose
``sims_done`` equals what the search promises (``SearchConfig.sims_per_search``; 0 at a
finished root). The goal is 100%.

    python -m scripts.audit_search                      # Base and Base+MLP, PUCT and Gumbel
    python -m scripts.audit_search --moves 60 --sims 64 --games 8
"""

from __future__ import annotations

import argparse

import torch

from models.gnn import build_model
from search.mcts import SearchConfig
from search.network import make_evaluator
from training.selfplay import SelfPlay, SelfPlayConfig


def audit(game_type: str, gumbel: bool, games: int, sims: int, moves: int, seed: int) -> tuple[int, int, int]:
    """(searches, searches that performed all their simulations, most legal moves at a root)."""
    torch.manual_seed(seed)
    evaluate = make_evaluator(build_model("tiny"))
    search = SearchConfig(sims=sims, gumbel=gumbel)
    sp = SelfPlay(SelfPlayConfig(games=games), search, game_type, 300, evaluate, seed=seed)
    counts = [0, 0, 0]
    run = sp.mcts.search

    def recorded(*args, **kwargs):
        result = run(*args, **kwargs)
        for n, done in zip(result.n_legal, result.sims_done, strict=True):
            counts[0] += 1
            counts[1] += int(done == search.sims_per_search(int(n)))
            counts[2] = max(counts[2], int(n))
        return result

    sp.mcts.search = recorded
    for _ in range(moves):
        sp.step()
    return counts[0], counts[1], counts[2]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m scripts.audit_search",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--game-types", nargs="+", default=["Base", "Base+MLP"])
    parser.add_argument("--games", type=int, default=8, help="games per batch (default %(default)s)")
    parser.add_argument("--sims", type=int, default=64, help="simulations per search (default %(default)s)")
    parser.add_argument("--moves", type=int, default=40, help="batched moves per case (default %(default)s)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    print("game type   root    searches  all sims  share    most legal moves")
    for game_type in args.game_types:
        for gumbel in (False, True):
            n, ok, widest = audit(game_type, gumbel, args.games, args.sims, args.moves, args.seed)
            share = ok / n if n else float("nan")
            root = "gumbel" if gumbel else "puct"
            print(f"{game_type:<11} {root:<7} {n:>8}  {ok:>8}  {share:6.1%}  {widest:>6}")


if __name__ == "__main__":
    main()
