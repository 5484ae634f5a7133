"""Graph observations: contract, a pure-Python reference, batching, symmetries."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch

from hive_env import GAME_TYPES, Game, encode
from hive_env.actions import action_to_move, move_to_action, transform_actions
from hive_env.board import BELOW, EXPANSIONS, LAST, PASS, PLY, POS, TOP
from hive_env.encode import (
    F_BUG,
    F_COVERED,
    F_GROUND_BUG,
    F_GROUND_OWN,
    F_HEIGHT,
    F_LAST_MOVED,
    F_MOVES_FROM,
    F_MOVES_TO,
    F_NEIGHBOURS,
    F_NEXT_OPP_QUEEN,
    F_NEXT_OWN_QUEEN,
    F_OPP_TILES,
    F_OWN,
    F_OWN_TILES,
    F_PINNED,
    F_PLACE_OPP,
    F_PLACE_OWN,
    F_RESERVE_COUNT,
    F_TYPE,
    GF_BLACK_TO_MOVE,
    GF_FIRST_TURN,
    GF_LADYBUG,
    GF_MOSQUITO,
    GF_OPP_QUEEN,
    GF_OPP_QUEEN_FREE,
    GF_OPP_RESERVE,
    GF_OWN_QUEEN,
    GF_OWN_QUEEN_FREE,
    GF_OWN_RESERVE,
    GF_PASSED,
    GF_PILLBUG,
    GF_QUEEN_DUE,
    GF_TURN,
    GF_UNUSED,
    MAX_LEGAL,
    N_GLOBAL_FEATURES,
    N_NODE_FEATURES,
    NODE_EMPTY,
    NODE_PAD,
    NODE_RESERVE,
    NODE_STACK,
    OBS_FIELDS,
    TURN_HORIZON,
    EncodingError,
    allocate_observation,
    graph_dims,
    observe,
    observe_batch,
    transform_observation,
)
from hive_env.grid import NEIGH, ORIGIN
from hive_env.outcome import DEFAULT_PLY_CAP
from hive_env.pieces import BUG_COUNT, PIECE_BUG, PIECE_COLOUR, bug_in_game, parse_game_type, piece_of
from hive_env.pinned import articulation_hexes
from hive_env.position import board_from_tiles
from hive_env.rules import MAX_MOVES, generate_moves
from hive_env.symmetry import HEX_MAPS, transform_board

from helpers import ROOT, random_games

DTYPES = {
    "node_feat": np.float32, "node_type": np.int8, "neighbours": np.int16, "node_mask": np.bool_,
    "node_hex": np.int16, "n_nodes": np.int32, "global_feat": np.float32, "legal_mask": np.bool_,
    "legal_actions": np.int32, "legal_src": np.int16, "legal_dst": np.int16, "n_legal": np.int32,
    "current_player": np.int8,
}


def shapes(game_type: str, batch: int) -> dict[str, tuple]:
    d = graph_dims(parse_game_type(game_type))
    N, A, M = d["N"], d["A"], d["M"]
    return {
        "node_feat": (batch, N, N_NODE_FEATURES), "node_type": (batch, N), "neighbours": (batch, N, 6),
        "node_mask": (batch, N), "node_hex": (batch, N), "n_nodes": (batch,),
        "global_feat": (batch, N_GLOBAL_FEATURES), "legal_mask": (batch, A), "legal_actions": (batch, M),
        "legal_src": (batch, M), "legal_dst": (batch, M), "n_legal": (batch,), "current_player": (batch,),
    }


@pytest.mark.parametrize(("game_type", "n_nodes", "n_actions"), [("Base", 80, 3389), ("Base+MLP", 104, 5489)])
def test_contract_shapes_dtypes_torch(game_type, n_nodes, n_actions):
    d = graph_dims(parse_game_type(game_type))
    assert (d["N"], d["A"], d["M"], d["F"], d["G"]) == (n_nodes, n_actions, MAX_LEGAL, 37, 15)
    boards = np.stack([g.board for g in random_games(game_type, seed=1, n_games=1, every=9, ply_cap=200)[:3]])
    obs = observe_batch(boards)
    assert tuple(obs) == OBS_FIELDS
    want = shapes(game_type, 3)
    for key, arr in obs.items():
        assert arr.dtype == DTYPES[key], key
        assert arr.shape == want[key], key
        assert arr.flags["C_CONTIGUOUS"], key
        tensor = torch.from_numpy(arr)
        assert np.shares_memory(tensor.numpy(), arr)
    single = observe(boards[0])
    for key, arr in single.items():
        assert arr.shape == want[key][1:] and arr.dtype == DTYPES[key]


TABLE_ROW = re.compile(r"^\| (\d+)(?:-(\d+))? \| ([A-Z_]+) \|")
"""A row of a feature table of docs/encoding.md: first index, last index (of a one-hot), name."""


def docstring_table(title: str) -> list[tuple[int, int, str]]:
    """(first, last, name) of the rows of the feature table after ``title`` in docs/encoding.md
    (the encoding's specification)."""
    lines = (ROOT / "docs" / "encoding.md").read_text().split(title, 1)[1].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    end = next(i for i in range(start, len(lines)) if not lines[i].startswith("|"))
    rows = [TABLE_ROW.match(line) for line in lines[start:end]]
    return [(int(m[1]), int(m[2] or m[1]), m[3]) for m in rows if m]


@pytest.mark.parametrize(("title", "prefix", "size"), [("Node features (", "F_", N_NODE_FEATURES),
                                                        ("Global features (", "GF_", N_GLOBAL_FEATURES)])
def test_feature_constants_match_the_tables_of_the_specification(title, prefix, size):
    rows = docstring_table(title)
    # the rows cover 0 .. size-1 in order, each index exactly once
    assert [first for first, _, _ in rows] == [0] + [last + 1 for _, last, _ in rows[:-1]]
    assert rows[-1][1] == size - 1
    # one constant PREFIX<name> per row, equal to its first index, and no other
    constants = {name.removeprefix(prefix): value for name, value in vars(encode).items()
                 if name.startswith(prefix)}
    assert constants == {name: first for first, _, name in rows}


def reference_graph(board: np.ndarray):
    """Slow pure-Python observation: features by node key, neighbours, legal triples, globals."""
    exp, ply = int(board[EXPANSIONS]), int(board[PLY])
    me, opp = ply & 1, 1 - (ply & 1)
    kinds = [bug for bug in range(8) if bug_in_game(bug, exp)]
    K = len(kinds)
    half = sum(int(BUG_COUNT[b]) for b in kinds)
    feats: dict = {}
    in_reserve = [0, 0]
    for side, colour in ((0, me), (1, opp)):
        for k, bug in enumerate(kinds):
            count = sum(board[POS + piece_of(colour, bug, j + 1)] < 0 for j in range(int(BUG_COUNT[bug])))
            in_reserve[side] += count
            f = np.zeros(N_NODE_FEATURES, np.float32)
            f[F_TYPE + NODE_RESERVE], f[F_BUG + bug], f[F_OWN + side], f[F_RESERVE_COUNT] = 1, 1, 1, count
            feats["reserve", side * K + k] = f
    occupied = [h for h in range(1024) if board[TOP + h] >= 0]
    pinned = np.zeros(1024, np.bool_)
    articulation_hexes(board, pinned)
    for h in occupied:
        stack, p = [], int(board[TOP + h])
        while p >= 0:
            stack.append(p)
            p = int(board[BELOW + p])
        top, ground = stack[0], stack[-1]
        own = sum(PIECE_COLOUR[p] == me for p in stack)
        f = np.zeros(N_NODE_FEATURES, np.float32)
        f[F_TYPE + NODE_STACK], f[F_BUG + PIECE_BUG[top]], f[F_OWN + (PIECE_COLOUR[top] != me)] = 1, 1, 1
        f[F_HEIGHT], f[F_OWN_TILES], f[F_OPP_TILES] = len(stack), own, len(stack) - own
        f[F_GROUND_BUG + PIECE_BUG[ground]], f[F_GROUND_OWN + (PIECE_COLOUR[ground] != me)] = 1, 1
        f[F_PINNED] = len(stack) == 1 and pinned[h]
        f[F_COVERED] = len(stack) > 1
        f[F_LAST_MOVED] = top == board[LAST]
        feats["hex", h] = f
    frontier = sorted({int(NEIGH[h, d]) for h in occupied for d in range(6)} - set(occupied))
    if not occupied:
        frontier = [ORIGIN]
    in_play = [any(board[POS + c * 14 + i] >= 0 for i in range(14)) for c in (me, opp)]
    queens = [int(board[POS + me * 14]), int(board[POS + opp * 14])]
    for h in frontier:
        f = np.zeros(N_NODE_FEATURES, np.float32)
        f[F_TYPE + NODE_EMPTY] = 1
        feats["hex", h] = f
    neighbours = {}
    for h in occupied + frontier:
        f = feats["hex", h]
        around = [int(NEIGH[h, d]) for d in range(6)]
        neighbours[h] = around
        tops = [int(board[TOP + c]) for c in around if board[TOP + c] >= 0]
        f[F_NEIGHBOURS] = len(tops)
        f[F_NEXT_OWN_QUEEN] = queens[0] in around
        f[F_NEXT_OPP_QUEEN] = queens[1] in around
        if h in frontier:
            own_tops = sum(PIECE_COLOUR[t] == me for t in tops)
            if not occupied:
                f[F_PLACE_OWN] = 1
            else:
                touching = len(tops) > 0
                f[F_PLACE_OWN] = (own_tops > 0 and own_tops == len(tops)) or (not in_play[0] and touching)
                f[F_PLACE_OPP] = (own_tops == 0 and touching) or (not in_play[1] and touching)
    buf = np.empty(MAX_MOVES, np.int32)
    n = generate_moves(board, buf)
    legal = set()
    for move in buf[:n]:
        move = int(move)
        action = move_to_action(board, move)
        if move == PASS:
            legal.add((action, None, None))
            continue
        piece = move >> 10
        src = (("reserve", kinds.index(PIECE_BUG[piece])) if board[POS + piece] < 0
               else ("hex", int(board[POS + piece])))
        dst = ("hex", move & 1023)
        feats[src][F_MOVES_FROM] += 1 / 16
        feats[dst][F_MOVES_TO] += 1 / 16
        legal.add((action, src, dst))
    turn = ply // 2 + 1
    g = np.zeros(N_GLOBAL_FEATURES, np.float32)
    g[GF_BLACK_TO_MOVE], g[GF_OWN_QUEEN], g[GF_OPP_QUEEN] = me, queens[0] >= 0, queens[1] >= 0
    g[GF_QUEEN_DUE], g[GF_FIRST_TURN] = queens[0] < 0 and turn == 4, turn == 1
    g[GF_TURN] = min(turn, TURN_HORIZON) / TURN_HORIZON
    for index, queen in ((GF_OWN_QUEEN_FREE, queens[0]), (GF_OPP_QUEEN_FREE, queens[1])):
        if queen >= 0:
            g[index] = sum(board[TOP + NEIGH[queen, d]] < 0 for d in range(6)) / 6
    g[GF_OWN_RESERVE], g[GF_OPP_RESERVE] = in_reserve[0] / half, in_reserve[1] / half
    g[GF_PASSED] = ply > 0 and board[LAST] < 0
    g[GF_MOSQUITO], g[GF_LADYBUG], g[GF_PILLBUG] = exp & 1, (exp >> 1) & 1, (exp >> 2) & 1
    return feats, neighbours, legal, g, 2 * K, len(occupied), len(frontier)


def node_keys(obs) -> list:
    keys = []
    for i in range(int(obs["n_nodes"])):
        if obs["node_type"][i] == NODE_RESERVE:
            keys.append(("reserve", i))
        else:
            keys.append(("hex", int(obs["node_hex"][i])))
    return keys


@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_matches_python_reference(game_type):
    for game in random_games(game_type, seed=GAME_TYPES.index(game_type), n_games=2, every=9, ply_cap=200):
        board = game.board
        obs = observe(board)
        feats, neighbours, legal, glob, n_res, n_stack, n_empty = reference_graph(board)
        n_nodes = int(obs["n_nodes"])
        assert n_nodes == n_res + n_stack + n_empty == len(feats)
        assert obs["node_mask"][:n_nodes].all() and not obs["node_mask"][n_nodes:].any()
        types = [NODE_RESERVE] * n_res + [NODE_STACK] * n_stack + [NODE_EMPTY] * n_empty
        assert obs["node_type"][:n_nodes].tolist() == types
        assert (obs["node_type"][n_nodes:] == NODE_PAD).all()
        assert (obs["node_feat"][n_nodes:] == 0).all() and (obs["neighbours"][n_nodes:] == -1).all()
        keys = node_keys(obs)
        index = {k: i for i, k in enumerate(keys)}
        assert len(index) == n_nodes
        for i, key in enumerate(keys):
            np.testing.assert_allclose(obs["node_feat"][i], feats[key], err_msg=str(key))
            if key[0] == "reserve":
                assert (obs["neighbours"][i] == -1).all()
            else:
                want = [index.get(("hex", c), -1) for c in neighbours[key[1]]]
                assert obs["neighbours"][i].tolist() == want
        # stacks come in relative order of their top tile (own tiles first)
        tops = [int(board[TOP + k[1]]) for k in keys[n_res:n_res + n_stack]]
        me = int(board[PLY]) & 1
        rel = [(PIECE_COLOUR[t] != me, t % 14) for t in tops]
        assert rel == sorted(rel)
        n_legal = int(obs["n_legal"])
        assert n_legal == len(legal) == len(game.legal_moves()) == int(obs["legal_mask"].sum())
        got = set()
        for m in range(n_legal):
            src, dst = int(obs["legal_src"][m]), int(obs["legal_dst"][m])
            got.add((int(obs["legal_actions"][m]), keys[src] if src >= 0 else None,
                     keys[dst] if dst >= 0 else None))
        assert got == legal
        assert obs["legal_mask"][obs["legal_actions"][:n_legal]].all()
        assert (obs["legal_actions"][n_legal:] == -1).all()
        np.testing.assert_allclose(obs["global_feat"], glob)
        assert int(obs["current_player"]) == me


@pytest.mark.parametrize("game_type", ["Base", "Base+MLP"])
def test_batch_rows_equal_single_observations(game_type):
    games = random_games(game_type, seed=21, n_games=2, every=9, ply_cap=200)
    boards = np.stack([g.board for g in games])
    batch = observe_batch(boards)
    rng = np.random.default_rng(0)
    shuffled = rng.permutation(len(games))
    batch2 = observe_batch(boards[shuffled])
    for i, game in enumerate(games):
        single = observe(game.board)
        j = int(np.flatnonzero(shuffled == i)[0])
        for key in OBS_FIELDS:
            np.testing.assert_array_equal(batch[key][i], single[key], err_msg=key)
            np.testing.assert_array_equal(batch2[key][j], single[key], err_msg=key)


def test_a_batch_of_several_game_types_encodes_each_as_its_own_type():
    # a network learning several types trains on mixed batches: the arrays fit the union of
    # the types, each row is the board's own observation, then padding
    games = [g for t in ("Base+M", "Base", "Base+LP", "Base+P") for g in random_games(t, seed=5, n_games=1,
                                                                                    every=13, ply_cap=60)]
    boards = np.stack([g.board for g in games])
    assert len({int(b[EXPANSIONS]) for b in boards}) == 4
    batch = observe_batch(boards)
    assert batch["node_feat"].shape[1] == encode.graph_dims(parse_game_type("Base+MLP"))["N"]
    padding = allocate_observation(1, parse_game_type("Base+MLP"))
    for i, game in enumerate(games):
        single = observe(game.board)
        for key in OBS_FIELDS:
            got, want = batch[key][i], single[key]
            if want.ndim == 0:
                assert got == want, key
                continue
            head = tuple(slice(0, n) for n in want.shape)
            np.testing.assert_array_equal(got[head], want, err_msg=key)
            rest = np.ones(got.shape, bool)
            rest[head] = False
            np.testing.assert_array_equal(got[rest], padding[key][0][rest], err_msg=key)


def legal_triples(obs, k: int, remap: np.ndarray) -> set:
    """(action, source node, destination node) of the k legal slots, nodes renamed by remap."""
    return {(int(obs["legal_actions"][m]), int(remap[obs["legal_src"][m]]), int(remap[obs["legal_dst"][m]]))
            for m in range(k)}


@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_symmetries(game_type):
    """observe(transform_board(P)) == transform_observation(observe(P)) up to node order."""
    games = random_games(game_type, seed=40 + GAME_TYPES.index(game_type), n_games=1, every=9, ply_cap=200)
    for game in games[1::2]:
        obs = observe(game.board)
        n = int(obs["n_nodes"])
        for sym in range(12):
            image, _ = transform_board(game.board, game.hist, sym)
            want = observe(image)
            got = transform_observation(obs, sym, board=game.board)
            # the transformed observation describes the same cells, mapped
            hexes = obs["node_hex"][:n]
            mapped = np.where(hexes >= 0, HEX_MAPS[sym][np.maximum(hexes, 0)], -1)
            assert (got["node_hex"][:n] == mapped).all()
            where = {int(h): j for j, h in enumerate(want["node_hex"][:n]) if h >= 0}
            perm = np.array([where[int(h)] if h >= 0 else i for i, h in enumerate(got["node_hex"][:n])])
            assert int(want["n_nodes"]) == n and sorted(perm) == list(range(n))
            np.testing.assert_array_equal(got["node_feat"][:n], want["node_feat"][perm])
            np.testing.assert_array_equal(got["node_type"][:n], want["node_type"][perm])
            remap = np.append(perm, -1)  # index -1 stays -1
            np.testing.assert_array_equal(remap[got["neighbours"][:n]], want["neighbours"][perm])
            np.testing.assert_array_equal(got["global_feat"], want["global_feat"])
            np.testing.assert_array_equal(got["legal_mask"], want["legal_mask"])
            k = int(obs["n_legal"])
            assert legal_triples(got, k, remap) == legal_triples(want, k, np.append(np.arange(n), -1))


def test_transform_observation_batched_and_without_board():
    games = random_games("Base+MLP", seed=3, n_games=1, every=9, ply_cap=200)[2:5]
    boards = np.stack([g.board for g in games])
    obs = observe_batch(boards)
    got = transform_observation(obs, 7, board=boards)
    for i, game in enumerate(games):
        one = transform_observation(observe(game.board), 7, board=game.board)
        for key in OBS_FIELDS:
            np.testing.assert_array_equal(got[key][i], one[key], err_msg=key)
    plain = transform_observation(obs, 7)
    np.testing.assert_array_equal(plain["legal_actions"], obs["legal_actions"])
    n = int(obs["n_legal"][0])
    assert transform_actions(boards[0], obs["legal_actions"][0, :n], 0).tolist() == \
        obs["legal_actions"][0, :n].tolist()


def test_global_features_do_not_depend_on_the_ply_cap_nor_on_the_colour_at_a_turn():
    # Self-play always has a cap, arena and UHP play none: the network must see the same input.
    # GF_TURN counts turns and saturates at TURN_HORIZON, cap or no cap.
    for ply_cap in (0, 31, 200, DEFAULT_PLY_CAP):
        for game in random_games("Base", seed=17, n_games=2, max_plies=60, every=7, ply_cap=ply_cap):
            if game.is_over:
                continue
            free = Game.from_string(game.game_string())  # the same moves, no cap
            assert free.board[PLY] == game.board[PLY] and free.hash == game.hash
            want = observe(free.board)["global_feat"]
            np.testing.assert_array_equal(observe(game.board)["global_feat"], want)
    for ply, clock in ((0, 1 / TURN_HORIZON), (1, 1 / TURN_HORIZON), (DEFAULT_PLY_CAP - 2, 1.0),
                       (DEFAULT_PLY_CAP - 1, 1.0), (2 * DEFAULT_PLY_CAP, 1.0), (148, 75 / TURN_HORIZON)):
        board, _ = board_from_tiles("Base", [("wQ", 0, 0), ("bQ", 1, 0)], ply=ply)
        g = observe(board)["global_feat"]
        assert g[GF_TURN] == pytest.approx(clock) and g[GF_UNUSED] == 0
    # White and Black to move at the same turn: only feature 0 (and what each side owns) differs
    white, _ = board_from_tiles("Base", [("wQ", 0, 0), ("bQ", 1, 0)], ply=40)
    black, _ = board_from_tiles("Base", [("wQ", 0, 0), ("bQ", 1, 0)], ply=41)
    differ = np.flatnonzero(observe(white)["global_feat"] != observe(black)["global_feat"])
    assert differ.tolist() == [GF_BLACK_TO_MOVE]


def test_placement_cells_are_marked():
    for game in random_games("Base+LP", seed=9, n_games=2, every=9, ply_cap=200):
        obs = observe(game.board)
        place = {int(obs["node_hex"][i]) for i in range(int(obs["n_nodes"]))
                 if obs["node_feat"][i, F_PLACE_OWN]}
        for m in range(int(obs["n_legal"])):
            move = action_to_move(game.board, int(obs["legal_actions"][m]))
            if move != PASS and game.board[POS + (move >> 10)] < 0:
                assert (move & 1023) in place


def test_encoding_errors_are_clear():
    # 14 tiles that touch nothing: far more empty cells than a connected hive can have
    tiles = [(name, 3 * (i % 5), 3 * (i // 5)) for i, name in enumerate(
        ["wQ", "wS1", "wS2", "wB1", "wB2", "wG1", "wG2", "wG3", "wA1", "wA2", "wA3", "bQ", "bS1", "bS2"])]
    board, _ = board_from_tiles("Base", tiles, ply=20)
    with pytest.raises(EncodingError, match="game 0: .*empty cells"):
        observe(board)
    game = random_games("Base", seed=2, n_games=1, every=9, ply_cap=200)[3]
    with pytest.raises(EncodingError, match="max_legal=4"):
        observe(game.board, max_legal=4)
