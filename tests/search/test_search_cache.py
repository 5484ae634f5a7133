"""The search's evaluation cache (search.cache) and the kept root that is not evaluated again."""

from __future__ import annotations

import numpy as np
import pytest

from hive_env import Game
from hive_env.board import LAST
from hive_env.encode import observe_batch, observe_batch_with_moves
from search.cache import EvalCache, board_keys
from search.mcts import BatchedMCTS, SearchConfig

from helpers import MIDGAME, hashed_evaluate


def play_all(game: Game, moves: list[int]) -> Game | None:
    """``game`` after ``moves``, or None when one is illegal there or the game ends."""
    game = game.copy()
    for m in moves:
        if game.is_over or m not in {int(x) for x in game.legal_moves()}:
            return None
        game.play(m)
    return None if game.is_over else game


def a_transposition(start: Game) -> tuple[Game, Game]:
    """Two games from ``start`` that reach the same board by different move orders: White's
    two moves swapped around the same Black replies (a deterministic search)."""
    mine = [int(m) for m in start.legal_moves()]
    for m1 in mine:
        for m2 in mine:
            if m1 >> 10 == m2 >> 10:  # the same piece: not independent
                continue
            g = play_all(start, [m1])
            for r1 in ([int(x) for x in g.legal_moves()][:8] if g else []):
                for r2 in [int(x) for x in g.legal_moves()][:8]:
                    a = play_all(start, [m1, r1, m2, r2])
                    b = play_all(start, [m2, r1, m1, r2])
                    if a is not None and b is not None and (a.board == b.board).all():
                        return a, b
    raise AssertionError("no transposition found")


def test_a_transposition_shares_its_key_and_other_boards_do_not():
    a, b = a_transposition(Game.from_string(MIDGAME))
    assert a.moves != b.moves
    keys = board_keys(np.stack([a.board, b.board]))
    assert keys[0] == keys[1]
    children = []
    for m in a.legal_moves()[:30]:
        child = a.copy()
        child.play(int(m))
        children.append(child.board)
    child_keys = board_keys(np.stack(children)).tolist()
    assert len(set(child_keys)) == len(children) and keys[0] not in child_keys
    changed = a.board.copy()
    changed[LAST] = (changed[LAST] + 1) % 22
    assert board_keys(changed[None])[0] != keys[0]  # the last moved piece matters (the Pillbug)


class CountingNetwork:
    """``hashed_evaluate`` that records the batch size of each call and every position's features."""

    def __init__(self):
        self.batches: list[int] = []
        self.seen: list[bytes] = []

    def __call__(self, obs):
        self.batches.append(len(obs["n_legal"]))
        self.seen += [features(obs, i) for i in range(len(obs["n_legal"]))]
        return hashed_evaluate(obs)


def features(obs, i: int) -> bytes:
    n = int(obs["n_nodes"][i])
    return obs["node_feat"][i, :n].tobytes() + obs["global_feat"][i].tobytes()


def test_the_cache_asks_the_network_only_for_new_positions_and_returns_the_same():
    games = [Game.from_string(MIDGAME), Game("Base"), Game.from_string(MIDGAME)]
    boards = np.stack([g.board for g in games])
    obs, moves = observe_batch_with_moves(boards)
    net = CountingNetwork()
    cache = EvalCache(10)
    logits, values = cache.evaluate(net, obs, boards, moves)
    ref_logits, ref_values = hashed_evaluate(obs)
    legal = np.arange(logits.shape[1])[None] < obs["n_legal"][:, None]
    np.testing.assert_array_equal(logits[legal], ref_logits[legal])
    np.testing.assert_array_equal(values, ref_values)
    assert net.batches == [3] and len(cache) == 2  # the repeated position stored once
    again = cache.evaluate(net, obs, boards, moves)
    assert net.batches == [3]  # all three from the cache
    np.testing.assert_array_equal(again[0][legal], ref_logits[legal])
    np.testing.assert_array_equal(again[1], ref_values)
    assert (again[0][~legal] <= -1e8).all()
    assert cache.hits == 3 and cache.misses == 3


def test_the_cache_is_bounded_and_drops_the_oldest_first():
    positions = [Game.from_string(MIDGAME)]
    for m in positions[0].legal_moves()[:6]:
        child = positions[0].copy()
        child.play(int(m))
        positions.append(child)
    boards = np.stack([g.board for g in positions])
    obs, moves = observe_batch_with_moves(boards)
    net = CountingNetwork()
    cache = EvalCache(4)
    for i in range(len(positions)):
        cache.evaluate(net, {k: v[i:i + 1] for k, v in obs.items()}, boards[i:i + 1], moves[i:i + 1])
    assert len(cache) == 4
    cache.evaluate(net, {k: v[-1:] for k, v in obs.items()}, boards[-1:], moves[-1:])  # newest: kept
    assert net.batches == [1] * len(positions)
    cache.evaluate(net, {k: v[:1] for k, v in obs.items()}, boards[:1], moves[:1])  # oldest: dropped
    assert net.batches == [1] * (len(positions) + 1)
    off = EvalCache(0)
    off.evaluate(net, obs, boards, moves)
    off.evaluate(net, obs, boards, moves)
    assert len(off) == 0 and net.batches[-2:] == [len(positions)] * 2


def test_a_kept_expanded_root_is_not_evaluated_again():
    game = Game.from_string(MIDGAME)
    root = features(observe_batch(game.board[None]), 0)
    for cache in (0, 1000):  # without the cache too: the root is simply not asked for
        net = CountingNetwork()
        mcts = BatchedMCTS(SearchConfig(sims=20, dirichlet_eps=0.0, eval_cache=cache), 1, 0, net)
        mcts.search(game.board[None], game.hist[None], [0], add_noise=False)
        assert net.seen[0] == root and net.seen.count(root) == 1
        first = len(net.seen)
        mcts.search(game.board[None], game.hist[None], [0], add_noise=False)
        assert root not in net.seen[first:] and len(net.seen) > first  # new leaves only
        assert mcts.root_visits(0) == 41


def test_a_new_network_empties_the_cache():
    game = Game.from_string(MIDGAME)
    net = CountingNetwork()
    mcts = BatchedMCTS(SearchConfig(sims=8, dirichlet_eps=0.0), 1, 0, net)
    mcts.search(game.board[None], game.hist[None], [0], add_noise=False)
    assert len(mcts.cache) > 0
    mcts.evaluate = net  # the same evaluator with new weights: forget its old outputs
    assert len(mcts.cache) == 0
    mcts.search(game.board[None], game.hist[None], [0], add_noise=False)
    assert len(mcts.cache) > 0
    mcts.clear_cache()
    assert len(mcts.cache) == 0


def test_batched_and_separate_searches_agree_with_the_cache():
    games = [Game.from_string(MIDGAME), Game("Base"), Game.from_string(MIDGAME)]
    cfg = SearchConfig(sims=24)
    boards = np.stack([g.board for g in games])
    hists = np.stack([g.hist for g in games])
    seeds = np.array([1, 2, 3])
    batched = BatchedMCTS(cfg, 3, 0, hashed_evaluate).search(boards, hists, seeds, add_noise=True)
    for i in range(3):
        alone = BatchedMCTS(cfg, 1, 0, hashed_evaluate).search(boards[i:i + 1], hists[i:i + 1],
                                                               seeds[i:i + 1], add_noise=True)
        np.testing.assert_array_equal(batched.visits[i], alone.visits[0])


def test_the_search_with_the_cache_equals_the_search_without():
    game = Game.from_string(MIDGAME)
    results = []
    for cache in (0, 1000):
        cfg = SearchConfig(sims=64, dirichlet_eps=0.0, eval_cache=cache, leaves_per_tree=2)
        mcts = BatchedMCTS(cfg, 1, 0, hashed_evaluate)
        for _ in range(2):  # the tree dropped: the second search meets the first one's leaves again
            mcts.reset()
            res = mcts.search(game.board[None], game.hist[None], [0], add_noise=False)
        results.append((res.visits.copy(), res.chosen.copy(), mcts.cache.hits))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_array_equal(results[0][1], results[1][1])
    assert results[0][2] == 0 and results[1][2] > 0


def _insert_random(table, rng, key: int, n: int) -> tuple:
    """Insert ``key`` with ``n`` random moves, action ids and logits; returns what was stored."""
    from search.cache import insert

    moves = rng.integers(0, 1 << 20, n).astype(np.int32)
    actions = rng.integers(0, 5000, n).astype(np.int32)
    logits = rng.standard_normal(n).astype(np.float32)
    value = np.float32(rng.standard_normal())
    insert(table, np.uint64(key), value, moves, actions, logits, n)
    return moves, actions, logits, value


def _read(table, key: int):
    from search.cache import MAX_MOVES, find, read_into

    slot = find(table, np.uint64(key))
    if slot < 0:
        return None
    moves, actions = np.zeros(MAX_MOVES, np.int32), np.zeros(MAX_MOVES, np.int32)
    logits = np.zeros(MAX_MOVES, np.float32)
    n = read_into(table, slot, moves, actions, logits)
    return moves[:n], actions[:n], logits[:n], table.values[slot]


@pytest.mark.parametrize("seed", range(6))
def test_the_table_keeps_a_suffix_of_what_was_inserted_and_every_entry_whole(seed):
    """Random keys (many sharing an index home, as a small table's do) and move counts around and
    far above the arena's mean: what is held is always the newest entries, in insertion order,
    each exactly as stored, and at most ``capacity``; with small entries exactly the last ``capacity``."""
    from search.cache import ARENA_MOVES, STATE_SIZE, allocate_table

    rng = np.random.default_rng(seed)
    capacity = int(rng.integers(1, 40))
    table = allocate_table(capacity)
    stored, order = {}, []
    big = seed % 2 == 0  # odd seeds: every entry within the arena's mean
    for _ in range(600):
        key = int(rng.integers(1, 2**63)) if rng.random() < 0.7 else int(rng.integers(0, 64)) * 2**32
        if key in stored:  # a key already held is left as it is
            continue
        n = int(rng.integers(1, 4 * ARENA_MOVES if big else ARENA_MOVES + 1))
        stored[key] = _insert_random(table, rng, key, n)
        order.append(key)
        held = [k for k in order if _read(table, k) is not None]
        assert held == order[len(order) - len(held):] and held[-1] == key
        assert len(held) == int(table.state[STATE_SIZE]) <= capacity
        if not big:
            assert len(held) == min(capacity, len(order))
        for k in held[-3:] + held[:2]:
            got = _read(table, k)
            for a, b in zip(got, stored[k], strict=True):
                np.testing.assert_array_equal(a, b)
        for k in order[:len(order) - len(held)]:
            del stored[k]
        order = held


def test_the_compiled_leaf_pass_gives_each_leaf_what_the_encoder_and_network_give_it():
    """``search.step``: the leaves of one step, served from the cache or gathered, encoded,
    evaluated and scattered back, hold the full encoder's moves and action ids and the network's
    outputs in their own rows; a second pass over the same leaves is all hits; rows that are not
    ``LEAF_EVAL`` get nothing and only count."""
    from hive_env.encode import MAX_LEGAL
    from search.leaves import LeafEncoder, allocate_leaves
    from search.step import allocate_outputs, gather_leaves, scatter_misses
    from search.tree import LEAF_COLLISION, LEAF_EVAL, LEAF_TERMINAL

    from helpers import real_game_positions

    positions = real_game_positions("Base")[:10]
    R, L = 12, 3  # 4 games of 3 leaves
    leaves = allocate_leaves(R)
    status = [LEAF_EVAL] * 10 + [LEAF_TERMINAL, LEAF_COLLISION]
    for i in range(R):
        leaves.boards[i] = positions[min(i, 9)].board
        leaves.status[i] = status[i]
    leaves.boards[9] = leaves.boards[2]  # the same position twice in one step
    cache, out, encoder = EvalCache(100), allocate_outputs(R, MAX_LEGAL), LeafEncoder(R, 0, MAX_LEGAL)
    obs_ref, moves_ref = observe_batch_with_moves(leaves.boards[:10])
    logits_ref, values_ref = hashed_evaluate(obs_ref)
    for rounds in range(2):
        sims, counts = np.zeros(R // L, np.int64), np.zeros(2, np.int64)
        k = gather_leaves(cache.table, True, leaves.boards, leaves.status, leaves.row, out, sims, counts)
        assert k == (10 if rounds == 0 else 0)
        if k:
            obs, moves = encoder.encode(out.miss_boards[:k])
            logits, values = hashed_evaluate(obs)
            scatter_misses(cache.table, True, k, out, logits, values, moves, obs["legal_actions"],
                           obs["n_legal"])
        assert sims.tolist() == [3, 3, 3, 2] and counts.tolist() == [11, 1]
        assert leaves.row.tolist() == list(range(10)) + [-1, -1] and out.n_legal[10:].tolist() == [0, 0]
        for i in range(10):
            n = int(obs_ref["n_legal"][i])
            assert out.n_legal[i] == n
            np.testing.assert_array_equal(out.moves[i, :n], moves_ref[i, :n])
            np.testing.assert_array_equal(out.actions[i, :n], obs_ref["legal_actions"][i, :n])
            np.testing.assert_array_equal(out.logits[i, :n], logits_ref[i, :n])
            assert out.values[i] == values_ref[i]
    distinct = len(set(board_keys(leaves.boards[:10]).tolist()))
    assert distinct < 10 and len(cache) == distinct and cache.hits == 10 and cache.misses == 10
