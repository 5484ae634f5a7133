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
from search.leaves import PROVEN_WIN, UNPROVEN
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


def _mover_value(game: Game, mover: int) -> float:
    """Exact value of a finished ``game`` for ``mover``."""
    if game.status == DRAW:
        return 0.0
    return 1.0 if {WHITE_WINS: 0, BLACK_WINS: 1}[game.status] == mover else -1.0


def _wins_at_once(game: Game) -> bool:
    """Whether the side to move has a move that wins at once (every move played: no filter)."""
    mover = game.side_to_move
    for move in game.legal_moves():
        nxt = game.copy()
        nxt.play(int(move))
        if nxt.is_over and _mover_value(nxt, mover) == 1.0:
            return True
    return False


def _prove(edges: list) -> float | None:
    """MCTS-Solver: a win when a move wins, the best when every move is proven, else None."""
    proofs = [e[3] for e in edges]
    if 1.0 in proofs:
        return 1.0
    return None if None in proofs else max(proofs)


class Node:
    def __init__(self, game: Game, parent: Node | None = None):
        self.game = game
        self.parent = parent
        self.visits = 0.0
        self.wsum = 0.0
        self.edges = None  # [move, prior, child Node | None, proof, ends the game] in slot order
        self.terminal = game.is_over
        self.proof = None  # exact value for the side to move, once proven
        if self.terminal:
            self.value = _mover_value(game, game.side_to_move)
            self.proof = self.value

    def expand(self, root: bool = False) -> float:
        """Evaluate, make the edges, prove the moves that end the game at once (at the root
        also those after which the opponent wins at once) and the node from them."""
        obs, moves = observe_batch_with_moves(self.game.board[None])
        logits, values = fake_network(obs)
        n = int(obs["n_legal"][0])
        z = np.exp(logits[0, :n].astype(np.float64) - logits[0, :n].max())
        self.edges = []
        mover = self.game.side_to_move
        for j, p in enumerate(z / z.sum()):
            nxt = self.game.copy()
            nxt.play(int(moves[0, j]))
            proof = _mover_value(nxt, mover) if nxt.is_over else None
            if proof is None and root and _wins_at_once(nxt):
                proof = -1.0
            self.edges.append([int(moves[0, j]), p, None, proof, nxt.is_over])
        self.proof = _prove(self.edges)
        return float(values[0]) if self.proof is None else self.proof


def _pass_up(node: Node, root: Node) -> None:
    """``node`` was just proven: its parent's edge and, while new proofs appear, the ancestors."""
    while node is not root:
        parent = node.parent
        edge = next(e for e in parent.edges if e[2] is node)
        edge[3] = -node.proof
        if parent.proof is not None:
            return
        parent.proof = _prove(parent.edges)
        if parent.proof is None:
            return
        node = parent


def reference_puct(game: Game, sims: int, c_puct: float, fpu: float, root_fpu: float) -> Node:
    root = Node(game.copy())
    root.visits, root.wsum = 1.0, root.expand(root=True)  # the root's own evaluation counts as a visit
    for _ in range(sims):
        node, path = root, [root]
        while True:
            if node.proof is not None and (node.terminal or node is not root):  # its exact value
                value = node.proof
                break
            q_parent = node.wsum / node.visits if node.visits > 0 else 0.0
            sq = math.sqrt(max(node.visits, 1.0))
            reduction = root_fpu if node is root else fpu
            best, best_score = None, -math.inf
            # a proven-lost move is never entered while another exists
            for edge in [e for e in node.edges if e[3] != -1.0] or node.edges:
                child = edge[2]
                n = child.visits if child is not None else 0.0
                if edge[3] is not None:
                    q = edge[3]
                elif n > 0:
                    q = -child.wsum / child.visits
                else:
                    q = q_parent - reduction
                score = q + c_puct * edge[1] * sq / (1.0 + n)
                if score > best_score:
                    best, best_score = edge, score
            if best[2] is None:
                nxt = node.game.copy()
                nxt.play(best[0])
                best[2] = Node(nxt, node)
                node = best[2]
                path.append(node)
                value = node.value if node.terminal else node.expand()
                if node.proof is not None:
                    _pass_up(node, root)
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
    assert res.sims_done[0] == sims
    assert sum(ref_visits) == sims
    if tiles is MUST_PARRY:
        assert sum(v > 0 for v in ref_visits) > 1  # the search branches: the test means something
    tree = mcts.tree
    first = tree.node_first[0, tree.roots[0]]
    for slot, edge in enumerate(ref.edges):
        child = tree.edge_child[0, first + slot]
        if edge[2] is None:
            assert child == NO_NODE
            continue
        assert tree.node_wsum[0, child] == pytest.approx(edge[2].wsum, abs=1e-5)
        assert tree.node_proof[0, child] == _code(edge[2].proof)
    assert tree.edge_proof[0, first:first + n].tolist() == [_code(e[3]) for e in ref.edges]
    assert res.proof[0] == _code(ref.proof)
    # a win in one first (the most visited), else any proven win
    wins = [slot for slot, e in enumerate(ref.edges) if e[3] == 1.0 and e[4]] or \
        [slot for slot, e in enumerate(ref.edges) if e[3] == 1.0]
    wins.sort(key=lambda slot: -ref_visits[slot])  # stable: first on ties
    assert res.value[0] == pytest.approx(ref.wsum / ref.visits, abs=1e-5)
    allowed = [v if e[3] != -1.0 else -1.0 for v, e in zip(ref_visits, ref.edges, strict=True)]
    assert int(res.chosen[0]) == (wins[0] if wins else int(np.argmax(allowed)))
    if tiles is WIN_IN_ONE:
        assert wins and res.proof[0] == PROVEN_WIN  # the root is proven won at once
    else:  # most moves lose to bA2's surround; the search never enters them
        lost = [slot for slot, e in enumerate(ref.edges) if e[3] == -1.0]
        assert len(lost) > n // 2 and all(ref_visits[slot] == 0 for slot in lost)
        if sims == 60:
            assert proven_nodes(ref) > 1  # proofs below the root are compared too


def _code(proof: float | None) -> int:
    """The kernels' proof code of a reference proof (None: unproven)."""
    return UNPROVEN if proof is None else int(proof) + 2


def proven_nodes(node: Node) -> int:
    children = [e[2] for e in node.edges or [] if e[2] is not None]
    return int(node.proof is not None) + sum(proven_nodes(c) for c in children)
