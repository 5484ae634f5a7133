"""No simulation is lost: Base+MLP self-play-like searches with many legal moves and tree reuse.

Base+MLP positions have 50-150 legal moves. A search of ``sims`` simulations must perform
all of them (``SearchResult.sims_done``) whatever the trees hold: the node and edge arrays
grow before each kernel call, collisions are retried, and kept trees are dropped when full.
"""

from __future__ import annotations

import numpy as np
import pytest

from hive_env.position import random_positions
from search.mcts import BatchedMCTS, SearchConfig

from helpers import hashed_evaluate


def play_games(cfg: SearchConfig, moves: int, seed: int = 0) -> dict:
    """Self-play ``moves`` moves of 8 mid-game Base+MLP games with tree reuse; check every search."""
    games = random_positions(8, "Base+MLP", seed=seed, min_plies=20, max_plies=36)
    mcts = BatchedMCTS(cfg, 8, games[0].expansions, hashed_evaluate)
    rng = np.random.default_rng(seed)
    searches, most_legal, reused = 0, 0, 0
    for _ in range(moves):
        boards = np.stack([g.board for g in games])
        hists = np.stack([g.hist for g in games])
        kept = [mcts.root_visits(b) for b in range(8)]
        res = mcts.search(boards, hists, rng.integers(0, 2**31, size=8), add_noise=True, temperature=1.0)
        for b, game in enumerate(games):
            n = int(game.legal_moves().size) if not game.is_over else 0
            assert res.n_legal[b] == n
            assert res.sims_done[b] == cfg.sims_per_search(n), (b, n, res.sims_done[b])
            if n:
                searches += 1
                most_legal = max(most_legal, n)
                reused += kept[b] > 0
                # The root's children hold this search's visits plus what the kept tree had.
                assert res.visits[b].sum() >= cfg.sims_per_search(n)
        for b, game in enumerate(games):
            if game.is_over:
                continue
            slot = int(res.chosen[b])
            game.play(int(res.moves[b, slot]))
            if game.is_over:
                mcts.reset(np.array([b]))
            else:
                mcts.advance(b, slot, game.board, game.hist)
    return {"searches": searches, "most_legal": most_legal, "reused": reused, "timings": mcts.timings,
            "edge_capacity": mcts.tree.edge_capacity}


CASES = [
    pytest.param(SearchConfig(sims=64), id="puct"),
    pytest.param(SearchConfig(sims=64, gumbel=True), id="gumbel"),
    pytest.param(SearchConfig(sims=64, leaves_per_tree=4), id="puct-4-leaves"),
    pytest.param(SearchConfig(sims=64, gumbel=True, leaves_per_tree=4), id="gumbel-4-leaves"),
    # The tightest node limit and a tiny first edge room: resets and growth at every turn.
    pytest.param(SearchConfig(sims=64, max_nodes=65, edges_per_node=1), id="puct-tight"),
]


@pytest.mark.parametrize("cfg", CASES)
def test_every_search_performs_all_its_simulations(cfg):
    stats = play_games(cfg, moves=30)
    assert stats["searches"] >= 180
    assert stats["most_legal"] >= 80  # the positions the old fixed edge pool could not hold
    if cfg.tree_reuse and cfg.max_nodes == 0:
        assert stats["reused"] > 0
    assert stats["timings"]["sims"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("cfg", CASES)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_search_performs_all_its_simulations_over_longer_games(cfg, seed):
    stats = play_games(cfg, moves=60, seed=seed)
    assert stats["searches"] >= 180
