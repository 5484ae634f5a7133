"""The one-call search step (``search.step.begin_step`` / ``end_step``) against the separate calls.

Where a step runs on one thread the search makes it two compiled calls around the network; the
trees, results and errors must be those of the separate kernel calls, move after move.
"""

from __future__ import annotations

import numpy as np
import pytest

import search.mcts as mcts_module
from hive_env import Game
from hive_env.board import PLY, PLY_CAP
from hive_env.encode import EncodingError
from hive_env.position import random_positions
from search.mcts import BatchedMCTS, SearchConfig

from helpers import hashed_evaluate


@pytest.fixture
def begin_calls(monkeypatch) -> list:
    """Counts the one-call steps that ran (one entry a ``begin_step`` call)."""
    calls = []
    real = mcts_module.begin_step

    def counted(*args):
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(mcts_module, "begin_step", counted)
    return calls


def play_both(config: SearchConfig, game_type: str, games: int, moves: int, seed: int, begin_calls: list,
              margin: int = 0, cap_in: int = 0) -> int:
    """Play ``moves`` moves of ``games`` games with tree reuse, searched twice each move (one-call
    steps, separate calls); assert the results and the trees equal. ``cap_in`` > 0: each game
    is drawn by the ply cap that many plies on (adjudicated in the trees with ``margin``).
    Returns the searches made."""
    positions = random_positions(games, game_type, seed=seed, min_plies=16, max_plies=30)
    for game in positions:
        if cap_in:
            game.board[PLY_CAP] = game.board[PLY] + cap_in
    one, separate = (BatchedMCTS(config, games, positions[0].expansions, hashed_evaluate,
                                 adjudicate_margin=margin) for _ in range(2))
    separate.one_call_steps = False
    rng = np.random.default_rng(seed)
    searches = 0
    for _ in range(moves):
        live = [b for b, g in enumerate(positions) if not g.is_over]
        if not live:
            break
        boards = np.stack([g.board for g in positions])
        hists = np.stack([g.hist for g in positions])
        seeds = rng.integers(0, 2**31, size=games)
        before = len(begin_calls)
        a = one.search(boards, hists, seeds, add_noise=True, temperature=1.0)
        assert len(begin_calls) > before  # the one-call path ran
        before = len(begin_calls)
        b = separate.search(boards, hists, seeds, add_noise=True, temperature=1.0)
        assert len(begin_calls) == before  # and the other did not
        for field in a.__dataclass_fields__:
            np.testing.assert_array_equal(getattr(a, field), getattr(b, field), err_msg=field)
        for name, x, y in zip(one.tree._fields, one.tree, separate.tree, strict=True):
            np.testing.assert_array_equal(x, y, err_msg=name)
        assert one.timings["sims"] == separate.timings["sims"]
        assert one.timings["collisions"] == separate.timings["collisions"]
        for b in live:
            slot = int(a.chosen[b])
            positions[b].play(int(a.moves[b, slot]))
            for m in (one, separate):
                if positions[b].is_over:
                    m.reset(np.array([b]))
                else:
                    m.advance(b, slot, positions[b].board, positions[b].hist)
            searches += 1
    return searches


@pytest.mark.parametrize("game_type,gumbel,leaves", [
    ("Base", False, 1), ("Base", True, 2), ("Base+MLP", False, 2), ("Base+P", True, 1),
])
def test_one_call_steps_build_the_same_trees_as_separate_calls(game_type, gumbel, leaves, begin_calls):
    # small edge room and node limit: the trees grow inside searches and kept trees are dropped
    config = SearchConfig(sims=24, gumbel=gumbel, gumbel_m=4, leaves_per_tree=leaves, edges_per_node=1,
                          max_nodes=80, eval_cache=200)
    assert play_both(config, game_type, 4, 6, seed=5, begin_calls=begin_calls) >= 12


def test_one_call_steps_adjudicate_the_ply_cap_as_the_separate_calls(begin_calls):
    config = SearchConfig(sims=32, leaves_per_tree=2)
    assert play_both(config, "Base", 4, 6, seed=7, begin_calls=begin_calls, margin=1, cap_in=4) >= 8


def test_one_call_steps_without_the_cache_and_with_collisions(begin_calls):
    config = SearchConfig(sims=40, leaves_per_tree=4, eval_cache=0, virtual_loss=3.0)
    assert play_both(config, "Base", 2, 5, seed=11, begin_calls=begin_calls) >= 8


def test_one_call_steps_for_many_games_on_one_numba_thread(begin_calls):
    numba = pytest.importorskip("numba")
    threads = numba.get_num_threads()
    numba.set_num_threads(1)  # then 16 games take the one-call path too
    try:
        assert play_both(SearchConfig(sims=16), "Base", 16, 3, seed=3, begin_calls=begin_calls) >= 40
    finally:
        numba.set_num_threads(threads)


@pytest.mark.parametrize("one_call", [True, False])
def test_a_leaf_that_does_not_fit_the_padding_is_a_clear_error_on_both_paths(one_call, begin_calls):
    game = Game("Base")  # the first move: 4 placements at the root, many more at every leaf
    mcts = BatchedMCTS(SearchConfig(sims=8), 1, game.expansions, hashed_evaluate, max_legal=5)
    mcts.one_call_steps = one_call
    with pytest.raises(EncodingError, match="max_legal=5"):
        mcts.search(game.board[None], game.hist[None], [0], add_noise=False)
    assert bool(begin_calls) == one_call
