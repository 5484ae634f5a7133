"""The tree structure: allocation, growth that keeps contents, reset of single games."""

from __future__ import annotations

import numpy as np

from search.tree import NO_NODE, ROOT, UNEXPANDED, allocate_tree, grow_tree, reset_trees_


def test_a_fresh_tree_is_a_lone_unexpanded_root():
    tree = allocate_tree(3, nodes=4, edges=5)
    assert (tree.roots == ROOT).all() and (tree.n_nodes == 1).all() and (tree.n_edges == 0).all()
    assert (tree.node_count == UNEXPANDED).all() and (tree.edge_child == NO_NODE).all()
    assert tree.node_capacity == 4 and tree.edge_capacity == 5
    assert tree.node_visits.dtype == np.float32 and tree.edge_child.dtype == np.int32


def test_growth_doubles_and_keeps_every_field():
    tree = allocate_tree(2, nodes=4, edges=5)
    rng = np.random.default_rng(0)
    for name in tree._fields:
        arr = getattr(tree, name)
        arr[...] = rng.integers(0, 3, size=arr.shape).astype(arr.dtype)
    grown = grow_tree(tree, nodes=9, edges=6)
    assert grown.node_capacity == 16 and grown.edge_capacity == 10
    for name in tree._fields:
        old, new = getattr(tree, name), getattr(grown, name)
        if old.ndim == 1:
            np.testing.assert_array_equal(new, old)
        else:
            np.testing.assert_array_equal(new[:, :old.shape[1]], old)
    assert (grown.node_count[:, 4:] == UNEXPANDED).all() and (grown.edge_child[:, 5:] == NO_NODE).all()
    assert grow_tree(grown, nodes=16, edges=10) is grown  # enough room: no copy


def test_reset_touches_only_the_given_games():
    tree = allocate_tree(3, nodes=4, edges=5)
    tree.roots[:] = 2
    tree.n_nodes[:] = 3
    tree.node_visits[:] = 7.0
    reset_trees_(tree, np.array([1]))
    assert tree.roots.tolist() == [2, ROOT, 2] and tree.n_nodes.tolist() == [3, 1, 3]
    assert tree.node_visits[1, ROOT] == 0 and tree.node_visits[0, ROOT] == 7.0


def test_a_reset_root_is_a_fresh_trees_root_in_every_node_field():
    fresh = allocate_tree(2, nodes=4, edges=5)
    tree = allocate_tree(2, nodes=4, edges=5)
    rng = np.random.default_rng(1)
    for name in tree._fields:
        arr = getattr(tree, name)
        arr[...] = rng.integers(1, 3, size=arr.shape).astype(arr.dtype)
    reset_trees_(tree, np.array([0, 1]))
    for name in ("roots", "n_nodes", "n_edges"):
        np.testing.assert_array_equal(getattr(tree, name), getattr(fresh, name))
    for name in tree._fields:
        if name.startswith("node_"):
            np.testing.assert_array_equal(getattr(tree, name)[:, ROOT], getattr(fresh, name)[:, ROOT],
                                          err_msg=name)


def test_the_batched_position_keys_are_the_single_ones_and_the_previous_key_the_ring_s():
    from hive_env import Game
    from hive_env.board import PLY
    from search.leaves import position_key, position_keys, previous_key

    from helpers import GAME_TYPES, real_game_positions

    games = [g for t in GAME_TYPES for g in real_game_positions(t)[:3]] + [Game("Base")]
    boards = np.stack([g.board for g in games])
    hists = np.stack([g.hist for g in games])
    singles = [position_key(b, h) for b, h in zip(boards, hists, strict=True)]
    assert position_keys(boards, hists).tolist() == singles
    hashes = [int(h[(int(b[PLY]) - 1) % 64]) if b[PLY] else None for b, h in zip(boards, hists, strict=True)]
    expected = [-1 if x is None else (x & 0x7FFF_FFFF_FFFF) * 1024 + ((int(b[PLY]) - 1) & 1023)
                for x, b in zip(hashes, boards, strict=True)]
    assert [previous_key(b, h) for b, h in zip(boards, hists, strict=True)] == expected
