"""Batched tree search: tactics with a uniform prior, batching, masking, Gumbel, reuse."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from hive_env import BLACK_WINS, DRAW, WHITE_WINS, Game
from hive_env.position import board_from_tiles, random_positions
from hive_env.tactics import PROVEN_LOSS, PROVEN_WIN, move_proofs
from search.mcts import BatchedMCTS, SearchConfig, SearchResult, draw_values
from search.network import uniform_evaluate
from search.tree import NO_NODE

from helpers import GAME_TYPES, SHUFFLE, hashed_evaluate, real_game_positions

# White to move; wA2 (3,-1) -> (2,0) closes bQ's last gap (see test_rules_positions).
WIN_IN_ONE = [("bA1", 0, -1), ("bA2", 1, -1), ("bA3", -1, 0), ("wQ", 0, 0), ("bQ", 1, 0),
              ("wS1", 0, 1), ("wG1", 2, -1), ("wA1", 1, 1), ("wA2", 3, -1)]


def setup(tiles, ply, game_type="Base") -> Game:
    return Game.from_board(*board_from_tiles(game_type, tiles, ply))


def search_one(game: Game, config: SearchConfig, seed: int = 0, noise: bool = False):
    mcts = BatchedMCTS(config, 1, game.expansions, uniform_evaluate)
    result = mcts.search(game.board[None], game.hist[None], [seed], add_noise=noise)
    return int(result.moves[0, result.chosen[0]]), result


def outcome(game: Game, move: int) -> int:
    child = game.copy()
    child.play(move)
    return child.status


def test_finds_a_queen_surround_in_one():
    game = setup(WIN_IN_ONE, ply=16)
    move, _ = search_one(game, SearchConfig(sims=100))
    assert outcome(game, move) == WHITE_WINS


def test_parries_a_threat_against_its_own_queen():
    # Colours swapped, White to move: Black threatens bA2 -> (2, 0) around wQ.
    flipped = [(("b" if n[0] == "w" else "w") + n[1:], q, r) for n, q, r in WIN_IN_ONE]
    game = setup(flipped, ply=16)

    def loses(move: int) -> bool:
        child = game.copy()
        child.play(move)
        for reply in child.legal_moves():
            if outcome(child, int(reply)) == BLACK_WINS:
                return True
        return False

    losing = {int(m) for m in game.legal_moves() if loses(int(m))}
    assert 0 < len(losing) < len(game.legal_moves())  # the test means something
    move, _ = search_one(game, SearchConfig(sims=3000, fpu_reduction=0.0))
    assert move not in losing, game.move_string(move)


def test_prefers_a_win_to_a_draw():
    # wQ (0,0) and bQ (1,0) share their last gap (1,-1). wA1 filling it draws; the beetle
    # wB2 filling it from (0,-1) frees a cell next to wQ, so it wins.
    tiles = [("wQ", 0, 0), ("bQ", 1, 0), ("wS1", -1, 0), ("wS2", 2, 0), ("wB2", 0, -1), ("bA2", 2, -1),
             ("bS1", -1, 1), ("bS2", 0, 1), ("wB1", 1, 1), ("wG1", 2, 1), ("wA1", 3, -1)]
    game = setup(tiles, ply=16)
    results = {outcome(game, int(m)) for m in game.legal_moves()}
    assert {WHITE_WINS, DRAW} <= results
    move, _ = search_one(game, SearchConfig(sims=400))
    assert outcome(game, move) == WHITE_WINS


@pytest.mark.parametrize(("gumbel", "leaves"), [(False, 2), (True, 2), (True, 1)])
def test_batched_search_equals_separate_searches(gumbel, leaves):
    # 9 games: at least the parallel-kernel threshold, so both kernel versions are compared.
    # Small edge room forces the arrays to grow during the batched search.
    games = random_positions(9, "Base+MLP", seed=3, min_plies=4, max_plies=30)
    cfg = SearchConfig(sims=40, gumbel=gumbel, gumbel_m=8, leaves_per_tree=leaves, edges_per_node=2)
    seeds = np.arange(100, 109)
    boards = np.stack([g.board for g in games])
    hists = np.stack([g.hist for g in games])
    batched = BatchedMCTS(cfg, 9, 7, hashed_evaluate).search(boards, hists, seeds, add_noise=True)
    for i, g in enumerate(games):
        alone = BatchedMCTS(cfg, 1, 7, hashed_evaluate).search(g.board[None], g.hist[None], seeds[i:i + 1],
                                                               add_noise=True)
        np.testing.assert_array_equal(batched.visits[i], alone.visits[0])
        assert batched.sims_done[i] == alone.sims_done[0] == cfg.sims_per_search(int(g.legal_moves().size))
        np.testing.assert_allclose(batched.policy[i], alone.policy[0], rtol=1e-5)
        assert batched.chosen[i] == alone.chosen[0]


def test_only_legal_moves_get_prior_or_visits():
    games = random_positions(10, "Base+MLP", seed=5)
    cfg = SearchConfig(sims=30, leaves_per_tree=3)
    mcts = BatchedMCTS(cfg, 10, 7, hashed_evaluate)
    res = mcts.search(np.stack([g.board for g in games]), np.stack([g.hist for g in games]),
                      np.arange(10), add_noise=True)
    for i, g in enumerate(games):
        n = res.n_legal[i]
        assert sorted(res.moves[i, :n].tolist()) == sorted(int(m) for m in g.legal_moves())
        assert (res.moves[i, n:] == -1).all()
        assert (res.visits[i, n:] == 0).all() and (res.policy[i, n:] == 0).all()
        assert res.policy[i, :n].sum() == pytest.approx(1.0, abs=1e-5)
        assert res.visits[i].sum() > 0
        tree = mcts.tree
        root = tree.roots[i]
        first, count = tree.node_first[i, root], tree.node_count[i, root]
        assert count == n and tree.edge_prior[i, first:first + count].sum() == pytest.approx(1.0, abs=1e-5)
        assert res.sims_done[i] == cfg.sims


def test_gumbel_root_finds_the_win_and_its_policy_is_a_distribution():
    game = setup(WIN_IN_ONE, ply=16)
    # Without noise (as when playing, not self-playing) sequential halving keeps the win.
    move, res = search_one(game, SearchConfig(sims=64, gumbel=True, gumbel_m=64), noise=False)
    assert outcome(game, move) == WHITE_WINS
    n = res.n_legal[0]
    assert res.policy[0, :n].sum() == pytest.approx(1.0, abs=1e-5)
    assert outcome(game, int(res.moves[0, np.argmax(res.policy[0, :n])])) == WHITE_WINS


def test_tree_reuse_keeps_the_chosen_subtree():
    game = random_positions(1, "Base", seed=11)[0]
    cfg = SearchConfig(sims=200)
    mcts = BatchedMCTS(cfg, 1, 0, hashed_evaluate)
    res = mcts.search(game.board[None], game.hist[None], [0], add_noise=False)
    slot = int(res.chosen[0])
    kept = res.visits[0, slot]
    game.play(int(res.moves[0, slot]))
    assert mcts.child_slot(0, int(res.moves[0, slot])) == slot
    mcts.advance(0, slot, game.board, game.hist)
    assert mcts.root_visits(0) == kept
    res2 = mcts.search(game.board[None], game.hist[None], [0], add_noise=False)
    assert res2.visits[0].sum() >= kept - 1 + cfg.sims - 1
    # A position that does not match the kept root starts afresh.
    other = Game(game.game_type)
    res3 = mcts.search(other.board[None], other.hist[None], [0], add_noise=False)
    assert res3.visits[0].sum() == cfg.sims
    assert res2.sims_done[0] == res3.sims_done[0] == cfg.sims


def test_finished_games_are_skipped():
    game = setup(WIN_IN_ONE, ply=16)
    game.play(game.parse_move("wA2 wA1/"))
    assert game.is_over
    _, res = search_one(game, SearchConfig(sims=10))
    assert res.n_legal[0] == 0 and res.chosen[0] == -1 and res.sims_done[0] == 0


@pytest.mark.parametrize("leaves", [1, 4])
@pytest.mark.parametrize("gumbel", [False, True])
def test_every_search_performs_exactly_its_simulations(gumbel, leaves):
    # Without virtual loss the leaves of a step run into each other's pending nodes: those
    # collisions are retried, so they never lower the count. A Gumbel game follows its own
    # schedule's total.
    games = random_positions(8, "Base", seed=7, min_plies=0, max_plies=12)
    cfg = SearchConfig(sims=24, gumbel=gumbel, gumbel_m=8, leaves_per_tree=leaves, virtual_loss=0.0)
    mcts = BatchedMCTS(cfg, 8, 0, hashed_evaluate)
    res = mcts.search(np.stack([g.board for g in games]), np.stack([g.hist for g in games]),
                      np.arange(8), add_noise=True)
    expected = [cfg.sims_per_search(int(g.legal_moves().size)) for g in games]
    assert res.sims_done.tolist() == expected
    assert mcts.timings["sims"] == sum(expected)
    if leaves > 1:
        assert mcts.timings["collisions"] > 0  # the retry path was taken
    assert (res.visits.sum(axis=1) == res.sims_done).all()  # fresh trees: every visit is this search's


def test_max_nodes_below_one_search_is_refused():
    with pytest.raises(ValueError, match="max_nodes"):
        SearchConfig(sims=64, max_nodes=64)
    assert SearchConfig(sims=64, max_nodes=65).node_limit == 65
    with pytest.raises(ValueError, match="max_nodes"):
        SearchConfig(sims=16, gumbel=True, gumbel_m=16, max_nodes=17)  # the schedule runs 32


def _tactical_positions(game_type: str) -> list[Game]:
    """Positions in progress of the real games of ``game_type`` where a move wins at once or some
    moves let the opponent win at once (``hive_env.tactics``, tested against brute force)."""
    out = []
    for game in real_game_positions(game_type, every=1):
        if game.is_over:
            continue
        _, codes = move_proofs(game.board, game.hist)
        if (codes == PROVEN_WIN).any() or ((codes == PROVEN_LOSS).any() and not (codes == PROVEN_LOSS).all()):
            out.append(game)
    return out


@pytest.mark.parametrize("gumbel", [False, True])
@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_the_search_plays_every_win_in_one_and_parries_every_threat(game_type, gumbel):
    games = _tactical_positions(game_type)
    assert games, game_type
    cfg = SearchConfig(sims=16, gumbel=gumbel, gumbel_m=4, leaves_per_tree=2)
    mcts = BatchedMCTS(cfg, len(games), games[0].expansions, hashed_evaluate)
    res = mcts.search(np.stack([g.board for g in games]), np.stack([g.hist for g in games]),
                      np.arange(len(games)), add_noise=True, temperature=1.0)
    for b, game in enumerate(games):
        moves, codes = move_proofs(game.board, game.hist)
        n = moves.size
        np.testing.assert_array_equal(res.moves[b, :n], moves)
        np.testing.assert_array_equal(res.move_proof[b, :n][codes != 0], codes[codes != 0])
        chosen = int(res.chosen[b])
        if (codes == PROVEN_WIN).any():
            assert codes[chosen] == PROVEN_WIN and res.proof[b] == PROVEN_WIN
        else:
            assert codes[chosen] != PROVEN_LOSS
            assert res.visits[b, :n][codes == PROVEN_LOSS].sum() == 0  # never entered


@pytest.mark.parametrize("gumbel", [False, True])
def test_batched_search_equals_separate_searches_with_proofs(gumbel):
    games = _tactical_positions("Base+MLP")[:12]
    assert len(games) >= 8  # the parallel kernels too
    cfg = SearchConfig(sims=48, gumbel=gumbel, gumbel_m=8, leaves_per_tree=2, edges_per_node=2)
    seeds = np.arange(len(games)) + 7
    batched_mcts = BatchedMCTS(cfg, len(games), 7, hashed_evaluate)
    batched = batched_mcts.search(np.stack([g.board for g in games]), np.stack([g.hist for g in games]),
                                  seeds, add_noise=True)
    proven_below = 0
    for i, g in enumerate(games):
        mcts = BatchedMCTS(cfg, 1, 7, hashed_evaluate)
        alone = mcts.search(g.board[None], g.hist[None], seeds[i:i + 1], add_noise=True)
        np.testing.assert_array_equal(batched.visits[i], alone.visits[0])
        np.testing.assert_array_equal(batched.move_proof[i], alone.move_proof[0])
        assert batched.proof[i] == alone.proof[0] and batched.chosen[i] == alone.chosen[0]
        t, bt = mcts.tree, batched_mcts.tree
        n = int(t.n_nodes[0])
        assert int(bt.n_nodes[i]) == n
        np.testing.assert_array_equal(bt.node_proof[i, :n], t.node_proof[0, :n])
        proven_below += int((t.node_proof[0, 1:n] != 0).sum())
    assert proven_below > 0  # proofs below the roots are compared too


def subtree(tree, b: int, node: int) -> tuple:
    """Game b's subtree at ``node`` as nested tuples of every node and edge statistic (no indices)."""
    count = int(tree.node_count[b, node])
    stats = (count, float(tree.node_visits[b, node]), float(tree.node_wsum[b, node]),
             bool(tree.node_terminal[b, node]), float(tree.node_terminal_value[b, node]),
             int(tree.node_proof[b, node]))
    edges = []
    first = int(tree.node_first[b, node])
    for e in range(first, first + max(count, 0)):
        child = int(tree.edge_child[b, e])
        edges.append((int(tree.edge_move[b, e]), int(tree.edge_action[b, e]), float(tree.edge_prior[b, e]),
                      float(tree.edge_prior_raw[b, e]), int(tree.edge_proof[b, e]),
                      None if child == NO_NODE else subtree(tree, b, child)))
    return stats, tuple(edges)


def nodes_in(sub: tuple) -> int:
    return 1 + sum(nodes_in(edge[5]) for edge in sub[1] if edge[5] is not None)


def test_advance_compacts_the_kept_subtree_and_frees_the_rest():
    games = random_positions(2, "Base", seed=12)
    mcts = BatchedMCTS(SearchConfig(sims=300, max_nodes=2000), 2, 0, hashed_evaluate)
    boards, hists = np.stack([g.board for g in games]), np.stack([g.hist for g in games])
    for _ in range(3):  # three moves played, each tree kept and compacted
        res = mcts.search(boards, hists, [0, 1], add_noise=False)
        t = mcts.tree
        for b in range(2):
            slot = int(res.chosen[b])
            child = int(t.edge_child[b, t.node_first[b, t.roots[b]] + slot])
            kept = subtree(t, b, child)
            nodes_before = int(t.n_nodes[b])
            games[b].play(int(res.moves[b, slot]))
            mcts.advance(b, slot, games[b].board, games[b].hist)
            t = mcts.tree
            assert t.roots[b] == 0 and t.node_parent[b, 0] == NO_NODE
            assert subtree(t, b, 0) == kept  # every statistic of the subtree, in its order
            n = int(t.n_nodes[b])
            assert n == nodes_in(kept) < nodes_before  # the rest freed
            parents = t.node_parent[b, 1:n]
            assert ((parents >= 0) & (parents < n)).all()  # nothing points off the kept nodes
            children = t.edge_child[b, : t.n_edges[b]]
            assert ((children == NO_NODE) | ((children > 0) & (children < n))).all()
        boards, hists = np.stack([g.board for g in games]), np.stack([g.hist for g in games])
    assert mcts.timings["resets"] == 0



def _before_the_repetition() -> tuple[Game, int]:
    """The shuffling record one move before its threefold repetition, and that move."""
    game = Game.from_string(SHUFFLE)
    last = game.moves[-1]
    game.undo(1)
    return game, int(last)


def _searched(game: Game, config: SearchConfig) -> tuple[BatchedMCTS, SearchResult, np.ndarray]:
    """The search of ``game`` with the uniform network, its result and the root's move values
    (the mover's view, 0 unvisited)."""
    mcts = BatchedMCTS(config, 1, game.expansions, uniform_evaluate)
    result = mcts.search(game.board[None], game.hist[None], [0], add_noise=False)
    t, root = mcts.tree, int(mcts.tree.roots[0])
    first, n = int(t.node_first[0, root]), int(t.node_count[0, root])
    q = np.zeros(n)
    for i in range(n):
        child = int(t.edge_child[0, first + i])
        if child != NO_NODE and t.node_visits[0, child] > 0:
            q[i] = -t.node_wsum[0, child] / t.node_visits[0, child]
    return mcts, result, q


def test_contempt_values_a_repetition_at_minus_contempt_for_the_root_side():
    game, repeat = _before_the_repetition()
    _, fair, fair_q = _searched(game, SearchConfig(sims=400))
    _, scornful, q = _searched(game, SearchConfig(sims=400, contempt=0.3))
    slot = list(fair.moves[0, :fair.n_legal[0]]).index(repeat)
    assert fair_q[slot] == 0.0 and fair.visits[0, slot] > 0
    assert q[slot] == pytest.approx(-0.3) and scornful.visits[0, slot] > 0
    assert scornful.visits[0, slot] < fair.visits[0, slot] / 4  # the uniform network values the rest at 0


def test_a_draw_is_worth_minus_contempt_to_the_root_side_and_plus_contempt_to_the_other():
    game, _ = _before_the_repetition()
    black_root = game.copy()
    black_root.undo(1)
    draws = draw_values(np.stack([game.board, black_root.board]), 0.25)
    np.testing.assert_array_equal(draws, [[-0.25, 0.25], [0.25, -0.25]])  # by colour: White, Black
    np.testing.assert_array_equal(draw_values(game.board[None], 0.0), [[0.0, 0.0]])


def test_contempt_values_a_double_surround_too():
    # test_prefers_a_win_to_a_draw's position with a grasshopper for the winning beetle: wA1
    # into the queens' shared gap surrounds both, and no move wins.
    tiles = [("wQ", 0, 0), ("bQ", 1, 0), ("wS1", -1, 0), ("wS2", 2, 0), ("wG2", 0, -1), ("bA2", 2, -1),
             ("bS1", -1, 1), ("bS2", 0, 1), ("wB1", 1, 1), ("wG1", 2, 1), ("wA1", 3, -1)]
    game = setup(tiles, ply=16)
    results = [outcome(game, int(m)) for m in game.legal_moves()]
    assert DRAW in results and WHITE_WINS not in results
    _, fair, fair_q = _searched(game, SearchConfig(sims=400))
    _, scornful, q = _searched(game, SearchConfig(sims=400, contempt=0.4))
    drawn = [i for i in range(fair.n_legal[0]) if outcome(game, int(fair.moves[0, i])) == DRAW]
    assert all(fair_q[i] == 0.0 and fair.visits[0, i] > 1 for i in drawn)
    assert all(q[i] == pytest.approx(-0.4) and 0 < scornful.visits[0, i] < fair.visits[0, i] for i in drawn)


def test_contempt_in_a_batch_equals_contempt_alone():
    # Both colours to move in one batch (each game's draws valued for its own root side), and
    # enough games for the parallel kernels.
    record = Game.from_string(SHUFFLE)
    games = []
    for back in range(1, 10):
        g = record.copy()
        g.undo(back)
        games.append(g)
    cfg = SearchConfig(sims=200, contempt=0.2, leaves_per_tree=2)
    boards, hists = np.stack([g.board for g in games]), np.stack([g.hist for g in games])
    batched = BatchedMCTS(cfg, 9, 0, hashed_evaluate).search(boards, hists, np.arange(9), add_noise=False)
    fair = BatchedMCTS(replace(cfg, contempt=0.0), 9, 0, hashed_evaluate).search(boards, hists, np.arange(9),
                                                                                  add_noise=False)
    assert not np.array_equal(batched.visits, fair.visits)  # the draws were reached
    for i, g in enumerate(games):
        alone = BatchedMCTS(cfg, 1, 0, hashed_evaluate).search(g.board[None], g.hist[None], [i],
                                                               add_noise=False)
        np.testing.assert_array_equal(batched.visits[i], alone.visits[0])
        assert batched.value[i] == pytest.approx(alone.value[0])


def test_contempt_out_of_range_is_refused():
    for bad in (-0.1, 1.5):
        with pytest.raises(ValueError, match="contempt"):
            SearchConfig(contempt=bad)
