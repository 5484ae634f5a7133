"""Golden trees: the compiled PUCT search against a tiny pure-Python PUCT written here.

The reference shares nothing with ``search/`` but the formulas: it walks ``Game`` copies,
keeps Python node objects and evaluates each new position alone. Both see the same
deterministic fake network; visit counts must match exactly, values to float32 precision.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from hive_env import BLACK_WINS, DRAW, WHITE_WINS, Game
from hive_env.encode import observe_batch_with_moves
from hive_env.position import board_from_tiles
from search.mcts import BatchedMCTS, SearchConfig
from search.tree import NO_NODE

# White to move (ply 16); wA2 (3,-1) -> (2,0) surrounds bQ: a win in one.
#        bA1 bA2 wG1 wA2
#      bA3 wQ  bQ
#        wS1 wA1
WIN_IN_ONE = [("bA1", 0, -1), ("bA2", 1, -1), ("bA3", -1, 0), ("wQ", 0, 0), ("bQ", 1, 0),
              ("wS1", 0, 1), ("wG1", 2, -1), ("wA1", 1, 1), ("wA2", 3, -1)]
# Colours swapped: White to move must parry bA2 -> (2,0) around wQ (a loss in two plies).
MUST_PARRY = [(("b" if n[0] == "w" else "w") + n[1:], q, r) for n, q, r in WIN_IN_ONE]


def fake_network(obs):
    """Deterministic and row-independent: logits from the moves, a value from the features."""
    feat = obs["node_feat"].sum(axis=(1, 2)).astype(np.float64)
    src = obs["legal_src"].astype(np.float64)
    dst = obs["legal_dst"].astype(np.float64)
    logits = np.sin(src * 1.3 + dst * 0.71 + feat[:, None] * 0.003) * 2.0
    return logits.astype(np.float32), np.tanh(np.cos(feat * 0.37)).astype(np.float32)


class Node:
    def __init__(self, game: Game):
        self.game = game
        self.visits = 0.0
        self.wsum = 0.0
        self.edges = None  # [move, prior, child Node | None] in the encoder's slot order
        self.terminal = game.is_over
        if self.terminal:
            winner = {WHITE_WINS: 0, BLACK_WINS: 1}.get(game.status)
            self.value = 0.0 if game.status == DRAW else (1.0 if winner == game.side_to_move else -1.0)

    def expand(self) -> float:
        obs, moves = observe_batch_with_moves(self.game.board[None])
        logits, values = fake_network(obs)
        n = int(obs["n_legal"][0])
        z = np.exp(logits[0, :n].astype(np.float64) - logits[0, :n].max())
        self.edges = [[int(moves[0, j]), p, None] for j, p in enumerate(z / z.sum())]
        return float(values[0])


def reference_puct(game: Game, sims: int, c_puct: float, fpu: float, root_fpu: float) -> Node:
    root = Node(game.copy())
    root.visits, root.wsum = 1.0, root.expand()  # the root's own evaluation counts as a visit
    for _ in range(sims):
        node, path = root, [root]
        while True:
            if node.terminal:
                value = node.value
                break
            q_parent = node.wsum / node.visits if node.visits > 0 else 0.0
            sq = math.sqrt(max(node.visits, 1.0))
            reduction = root_fpu if node is root else fpu
            best, best_score = None, -math.inf
            for edge in node.edges:
                child = edge[2]
                if child is not None and child.visits > 0:
                    q, n = -child.wsum / child.visits, child.visits
                else:
                    q, n = q_parent - reduction, 0.0
                score = q + c_puct * edge[1] * sq / (1.0 + n)
                if score > best_score:
                    best, best_score = edge, score
            if best[2] is None:
                nxt = node.game.copy()
                nxt.play(best[0])
                best[2] = Node(nxt)
                node = best[2]
                path.append(node)
                value = node.value if node.terminal else node.expand()
                break
            node = best[2]
            path.append(node)
        for v in reversed(path):  # values alternate sides on the way up
            v.visits += 1.0
            v.wsum += value
            value = -value
    return root


@pytest.mark.parametrize("tiles", [WIN_IN_ONE, MUST_PARRY], ids=["win-in-one", "must-parry"])
@pytest.mark.parametrize("sims", [8, 20, 60])
def test_puct_tree_matches_the_reference(tiles, sims):
    game = Game.from_board(*board_from_tiles("Base", tiles, 16))
    cfg = SearchConfig(sims=sims, c_puct=1.5, fpu_reduction=0.2, root_fpu_reduction=0.0, tree_reuse=False)
    mcts = BatchedMCTS(cfg, 1, game.expansions, fake_network)
    res = mcts.search(game.board[None], game.hist[None], [0], add_noise=False)
    ref = reference_puct(game, sims, cfg.c_puct, cfg.fpu_reduction, cfg.root_fpu_reduction)

    n = int(res.n_legal[0])
    assert [e[0] for e in ref.edges] == res.moves[0, :n].tolist()
    ref_visits = [e[2].visits if e[2] is not None else 0.0 for e in ref.edges]
    assert res.visits[0, :n].tolist() == ref_visits
    assert res.sims_done[0] == sims and sum(ref_visits) == sims
    assert sum(v > 0 for v in ref_visits) > 1  # the search branches: the test means something
    tree = mcts.tree
    first = tree.node_first[0, tree.roots[0]]
    for slot, edge in enumerate(ref.edges):
        child = tree.edge_child[0, first + slot]
        if edge[2] is None:
            assert child == NO_NODE
            continue
        assert tree.node_wsum[0, child] == pytest.approx(edge[2].wsum, abs=1e-5)
    assert res.value[0] == pytest.approx(ref.wsum / ref.visits, abs=1e-5)
    assert int(res.chosen[0]) == int(np.argmax(ref_visits))
    if tiles is WIN_IN_ONE and sims == 60:
        assert terminal_nodes(ref) > 0  # the exact-value path is compared too


def terminal_nodes(node: Node) -> int:
    children = [e[2] for e in node.edges or [] if e[2] is not None]
    return int(node.terminal) + sum(terminal_nodes(c) for c in children)
