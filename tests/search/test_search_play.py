"""Search correctness at play time: tree reuse only on the exact position, budgets and caps,
per-game Gumbel roots in a batch, and capped positions valued as self-play labels them."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from hive_env import DRAW, IN_PROGRESS, WHITE_WINS, Game
from hive_env.board import PLY, PLY_CAP, STATUS
from hive_env.outcome import adjudicate, is_real_draw, terminal_value
from hive_env.position import board_from_tiles
from models.gnn import build_model
from players import Budget, PlayerSpecError, make_player
from players.uhp_server import UhpEngine
from search.alphazero_player import DEFAULT_LEAVES, HARD_SHARE, TIME_SHARE, VALUE_DROP
from search.checkpoint import save_checkpoint
from search.leaves import adjudicated_value, play
from search.mcts import BatchedMCTS, SearchConfig
from search.network import uniform_evaluate
from search.root_policy import child_stats
from training.selfplay import SelfPlay, SelfPlayConfig

from helpers import MIDGAME, WIN_IN_ONE, hashed_evaluate


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory) -> Path:
    torch.manual_seed(0)
    return save_checkpoint(tmp_path_factory.mktemp("play") / "net.pt", build_model("tiny"), step=1)


class FakeClock:
    """A clock that moves ``step`` seconds each time it is read."""

    def __init__(self, step: float):
        self.step, self.now, self.reads = step, 0.0, 0

    def __call__(self) -> float:
        self.now += self.step
        self.reads += 1
        return self.now


def steps_until(step: float, time_s: float) -> int:
    """Search steps a ``time_s`` budget runs under ``FakeClock(step)``: the player reads the start,
    then the clock after each step, and stops when the next step, as long as the longest so far
    (here ``step``), would end past ``TIME_SHARE`` of the budget."""
    clock = FakeClock(step)
    last = start = clock()
    deadline = start + TIME_SHARE * time_s
    longest, steps = 0.0, 0
    while True:
        steps += 1
        now = clock()
        longest, last = max(longest, now - last), now
        if now + longest >= deadline:
            return steps


# ----- 1. tree reuse only on the exact position -------------------------------------------------


def test_a_kept_tree_is_followed_only_from_the_position_it_was_grown_for(ckpt):
    # The player suggests a move, the user plays another one, the opponent replies with a move
    # whose code (tile, destination) is also an edge of the kept root: that subtree belongs to
    # another position, so it must not be reused (it used to suggest moves that are illegal).
    player = make_player(f"alphazero:ckpt={ckpt},sims=64,device=cpu", seed=0)
    start = Game("Base")
    suggested = player.choose(start)
    tried = 0
    for first in [m for m in start.legal_moves() if m != suggested][:2]:
        after_first = start.copy()
        after_first.play(int(first))
        for reply in after_first.legal_moves():
            if after_first.move_string(reply)[:3] not in ("bB1", "bS1"):
                continue  # keep the test short: beetle and spider replies
            assert player._mcts.child_slot(0, int(reply)) is not None  # a same-coded edge: a trap
            game = after_first.copy()
            game.play(int(reply))
            move = player.choose(game)
            assert move in game.legal_moves(), (game.move_strings, game.move_string(move))
            tried += 1
            assert player.choose(start) == suggested  # the kept tree is the suggestion's subtree again
    assert tried == 2 * 12


def test_the_tree_still_follows_the_game_it_was_grown_for(ckpt):
    player = make_player(f"alphazero:ckpt={ckpt},sims=48,device=cpu", seed=0)
    game = Game("Base")
    game.play(player.choose(game))
    mcts = player._mcts
    t = mcts.tree
    first, n = int(t.node_first[0, t.roots[0]]), int(t.node_count[0, t.roots[0]])
    children = t.edge_child[0, first:first + n]
    visits = np.where(children >= 0, t.node_visits[0, np.maximum(children, 0)], 0.0)
    reply = int(t.edge_move[0, first + int(np.argmax(visits))])
    assert visits.max() > 1
    game.play(reply)
    # The opponent's reply from the very position the tree was kept for: its subtree is kept.
    assert player._kept_tree(game).root_visits(0) == visits.max()
    assert player.choose(game) in game.legal_moves() and player.last_sims == 48


# ----- 2. budgets: the player's own sims, time budgets that use the time, caps -----------------


def test_a_bare_choice_performs_the_specs_simulations(ckpt):
    player = make_player(f"alphazero:ckpt={ckpt},sims=37,device=cpu", seed=0)
    game = Game.from_string(MIDGAME)
    player.choose(game)
    assert player.last_sims == 37
    player.choose(game, Budget(depth=1))  # depth means nothing to this search: its own sims
    assert player.last_sims == 37
    player.choose(game, Budget(sims=9))
    assert player.last_sims == 9


def test_a_cap_that_does_not_bind_changes_nothing(ckpt):
    # Looking at the clock between steps changes nothing in the tree (PUCT, no noise).
    game = Game.from_string(MIDGAME)
    plain = make_player(f"alphazero:ckpt={ckpt},sims=50,device=cpu,leaves=1", seed=0)
    capped = make_player(f"alphazero:ckpt={ckpt},sims=50,device=cpu,leaves=1", seed=0)
    capped.clock = FakeClock(1e-6)
    assert plain.choose(game) == capped.choose(game, Budget(sims=50, time_s=3600.0))
    assert plain.last_sims == capped.last_sims == 50
    assert capped.clock.reads >= 50  # it did look: after every step
    np.testing.assert_array_equal(plain._mcts.tree.node_visits[0, :60], capped._mcts.tree.node_visits[0, :60])


def test_a_time_budget_searches_until_the_time_is_up(ckpt):
    # A fake clock moving 0.01 s a read: a 2 s budget (1.8 s of search) runs ~178 one-leaf steps,
    # far more than the ~113 simulations a time budget used to stop at, and than the spec's sims.
    player = make_player(f"alphazero:ckpt={ckpt},sims=8,device=cpu,leaves=1", seed=0)
    player.clock = FakeClock(0.01)
    game = Game.from_string(MIDGAME)
    assert player.choose(game, Budget(time_s=2.0)) in game.legal_moves()
    assert player.last_sims == steps_until(0.01, 2.0) > 113


def test_a_hard_position_takes_more_of_a_clocks_allowance_and_never_passes_it(ckpt):
    # The untrained network's flat policy spreads the visits: no move holds HARD_SHARE of them,
    # so the player goes on past its share, in steps of the share, up to TIME_SHARE of the allowance.
    game = Game.from_string(MIDGAME)
    plain = make_player(f"alphazero:ckpt={ckpt},sims=8,device=cpu,leaves=1", seed=0)
    plain.clock = FakeClock(0.01)
    plain.choose(game, Budget(time_s=1.0))
    hard = make_player(f"alphazero:ckpt={ckpt},sims=8,device=cpu,leaves=1", seed=0)
    hard.clock = clock = FakeClock(0.01)
    hard.choose(game, Budget(time_s=1.0, max_time_s=3.0))
    assert hard.last_sims > 2 * plain.last_sims
    share = make_player(f"alphazero:ckpt={ckpt},sims=8,device=cpu,leaves=1,hard=0", seed=0)
    share.clock = FakeClock(0.01)
    share.choose(game, Budget(time_s=1.0, max_time_s=3.0))  # hard=0: keeps to its share
    assert share.last_sims == plain.last_sims
    assert clock.now <= 0.01 + TIME_SHARE * 3.0 + 0.02  # its start, the allowance, the last reads
    assert clock.now >= TIME_SHARE * 3.0 - 1.0  # it went on while time was left for a share


def test_a_move_is_hard_without_a_clear_favourite_or_after_a_fall_of_the_value(ckpt):
    player = make_player(f"alphazero:ckpt={ckpt},sims=8,device=cpu", seed=0)
    game = Game.from_string(MIDGAME)

    def result(visits, value=0.0, proof=0):
        n = len(visits)
        return SimpleNamespace(visits=np.array([visits], np.float32), n_legal=np.array([n]),
                               value=np.array([value], np.float32), proof=np.array([proof], np.int8))

    assert player.is_hard(result([10, 10, 10]), game)
    assert not player.is_hard(result([HARD_SHARE * 100 + 1, 100 - HARD_SHARE * 100 - 1]), game)
    assert not player.is_hard(result([10, 10, 10], proof=1), game)  # proven: nothing to think about
    assert not player.is_hard(result([30]), game)  # one legal move
    player._last_value = (game.ply - 2, 0.5)  # this player's last move saw +0.5
    assert player.is_hard(result([90, 10], value=0.5 - VALUE_DROP - 0.01), game)
    assert not player.is_hard(result([90, 10], value=0.5 - VALUE_DROP / 2), game)
    player._last_value = (game.ply - 4, 0.5)  # not the last move: not compared
    assert not player.is_hard(result([90, 10], value=-0.5), game)


def test_an_easy_position_keeps_to_its_share(ckpt):
    # A win in one: proven at the root, no more time for it however much the clock allows.
    game = Game.from_string(WIN_IN_ONE)
    player = make_player(f"alphazero:ckpt={ckpt},sims=8,device=cpu,leaves=1", seed=0)
    player.clock = clock = FakeClock(0.01)
    player.choose(game, Budget(time_s=1.0, max_time_s=3.0))
    assert clock.now <= 0.01 + TIME_SHARE * 1.0 + 0.03


def test_a_time_cap_stops_a_huge_simulation_budget(ckpt):
    player = make_player(f"alphazero:ckpt={ckpt},sims=10000000,device=cpu,leaves=1", seed=0)
    player.clock = FakeClock(0.1)
    game = Game.from_string(MIDGAME)
    assert player.choose(game, Budget(sims=10**7, time_s=0.5)) in game.legal_moves()
    assert 0 < player.last_sims < 10**7
    assert player.last_sims == steps_until(0.1, 0.5)
    assert player._mcts.tree.node_capacity < 10**5  # the room grows with the search, not with the spec


def test_a_time_cap_stops_a_gumbel_search_between_steps(ckpt):
    # A Gumbel schedule cannot be cut into chunks: the clock stops the one search instead.
    player = make_player(f"alphazero:ckpt={ckpt},sims=10000000,gumbel=1,device=cpu,leaves=1", seed=0)
    player.clock = FakeClock(0.1)  # read at 0.1 for the deadline (0.55), then after every step
    game = Game.from_string(MIDGAME)
    assert player.choose(game, Budget(sims=10**7, time_s=0.5)) in game.legal_moves()
    assert player.last_sims == steps_until(0.1, 0.5) == 4  # after step 4 (0.5), a 5th would end at 0.6


def test_hive_uhp_bestmove_uses_the_players_sims_and_maxtime_only_caps(ckpt):
    engine = UhpEngine(f"alphazero:ckpt={ckpt},sims=23,device=cpu,leaves=1")
    try:
        player = engine._current_player()
        engine.handle("newgame Base")
        for command in ("bestmove", "bestmove depth 1"):  # MaxTime (60 s) caps, it does not decide
            reply = engine.handle(command)
            assert reply[-1] == "ok" and not reply[0].startswith("err"), reply
            assert player.last_sims == 23, command
        player.clock = FakeClock(0.1)
        engine.handle("bestmove time 00:00:01")
        assert player.last_sims == steps_until(0.1, 1.0)
    finally:
        engine.close()
    engine = UhpEngine(f"alphazero:ckpt={ckpt},sims=10000000,device=cpu,leaves=1")
    try:
        player = engine._current_player()
        player.clock = FakeClock(0.1)
        engine.handle("newgame Base")
        assert engine.handle("options set MaxTime 0.5")[0].startswith("MaxTime;double;0.5")
        assert engine.handle("bestmove")[0] in {"wS1", "wB1", "wG1", "wA1"}
        assert 0 < player.last_sims < 10**7
    finally:
        engine.close()


# ----- 3. the Gumbel root's m is per game ------------------------------------------------------


@pytest.mark.parametrize("noise", [False, True])
def test_gumbel_search_of_a_game_is_the_same_alone_and_beside_a_wider_game(noise):
    # The opening has 4 legal moves (m = 4), the middle game dozens (m = 16): sharing a batch
    # must not give the narrow game the wide game's m (its schedule, visits and choice).
    narrow, wide = Game("Base"), Game.from_string(MIDGAME)
    assert len(narrow.legal_moves()) < 16 < len(wide.legal_moves())
    cfg = SearchConfig(sims=32, gumbel=True, gumbel_m=16)
    seeds = np.array([3, 4])
    boards, hists = np.stack([narrow.board, wide.board]), np.stack([narrow.hist, wide.hist])
    batched = BatchedMCTS(cfg, 2, 0, hashed_evaluate).search(boards, hists, seeds, add_noise=noise)
    for i, game in enumerate((narrow, wide)):
        alone = BatchedMCTS(cfg, 1, 0, hashed_evaluate).search(game.board[None], game.hist[None],
                                                               seeds[i:i + 1], add_noise=noise)
        np.testing.assert_array_equal(batched.visits[i], alone.visits[0])
        np.testing.assert_allclose(batched.policy[i], alone.policy[0], rtol=1e-6)
        assert batched.chosen[i] == alone.chosen[0]
        assert batched.sims_done[i] == alone.sims_done[0] == cfg.sims_per_search(len(game.legal_moves()))


# ----- 5. capped positions are valued as self-play labels them ---------------------------------

#        wG1  wS2
#    bS1  bQ  wS1  wQ          bQ has 5 occupied neighbours, wQ 1: White is far ahead
#      bG1  (.)                (.) can be reached by no White tile that was not already next to bQ
PRESSURE = [("bQ", 0, 0), ("wS1", 1, 0), ("wS2", 1, -1), ("wG1", 0, -1), ("bS1", -1, 0), ("bG1", -1, 1),
            ("wQ", 2, 0)]
CAP = 31  # White to move at ply 30: every move reaches the cap
MARGIN = 2  # one move changes the pressure difference (4) by at most 2


def capped_position() -> tuple[np.ndarray, np.ndarray]:
    board, hist = board_from_tiles("Base", PRESSURE, ply=CAP - 1)
    board[PLY_CAP] = CAP
    assert board[STATUS] == IN_PROGRESS and board[PLY] & 1 == 0
    return board, hist


def test_a_capped_position_gets_the_adjudicated_value():
    board, hist = capped_position()
    for move in Game.from_board(board, hist).legal_moves():
        b, h = board.copy(), hist.copy()
        play(b, h, int(move))
        assert b[STATUS] == DRAW and not is_real_draw(b, h)
        assert adjudicate(b, MARGIN) == WHITE_WINS
        assert terminal_value(b) == 0.0
        assert adjudicated_value(b, h, MARGIN) == -1.0  # Black to move there: lost
        assert adjudicated_value(b, h, 0) == 0.0


def test_the_search_and_the_self_play_labels_score_the_cap_alike():
    board, hist = capped_position()
    sp = SelfPlay(SelfPlayConfig(games=1, temperature_plies=0, adjudicate_margin=MARGIN),
                  SearchConfig(sims=24), "Base", CAP, uniform_evaluate, seed=0)
    sp.env.set_state(0, board, hist)
    # The search self-play built values every capped child as a White win, not a draw.
    res = sp.mcts.search(sp.env.boards, sp.env.hists, np.array([0]), add_noise=False)
    n = int(res.n_legal[0])
    visits, q = child_stats(sp.mcts.tree, 0, n)
    assert visits.sum() == 24 and (q[visits > 0] == 1.0).all()
    assert res.value[0] > 0.9
    plain = BatchedMCTS(SearchConfig(sims=24), 1, 0, uniform_evaluate)  # no margin: draws
    res0 = plain.search(board[None], hist[None], [0], add_noise=False)
    assert (child_stats(plain.tree, 0, n)[1] == 0.0).all() and abs(res0.value[0]) < 0.2
    _, _, terminated, truncated, _ = sp.env.step(res.actions[[0], res.chosen])
    assert truncated[0] and not terminated[0]


# ----- 5. honest time: a clock that moves with the network, leaves, backends, the kept tree ------


class NetworkClock:
    """Time that passes only inside the network: ``seconds`` a call plus ``per_position`` a
    position (the player's own reads of the clock cost nothing)."""

    def __init__(self, evaluate, seconds: float, per_position: float = 0.0):
        self.evaluate, self.seconds, self.per_position = evaluate, seconds, per_position
        self.now, self.calls = 0.0, 0

    def __call__(self) -> float:
        return self.now

    def network(self, obs):
        self.calls += 1
        self.now += self.seconds + self.per_position * len(obs["n_legal"])
        return self.evaluate(obs)


def timed_player(ckpt, spec: str, seconds: float, per_position: float = 0.0):
    player = make_player(f"alphazero:ckpt={ckpt},device=cpu{spec}", seed=0)
    clock = NetworkClock(player.evaluate, seconds, per_position)
    player.clock, player.evaluate = clock, clock.network
    return player, clock


@pytest.mark.parametrize("leaves", [1, 4])
def test_the_player_never_exceeds_its_time_budget(ckpt, leaves):
    player, clock = timed_player(ckpt, f",leaves={leaves}", seconds=0.004, per_position=0.002)
    game = Game.from_string(MIDGAME)
    for budget in (0.05, 0.3, 1.0, 0.02, 0.6):
        start = clock.now
        move = player.choose(game, Budget(time_s=budget))
        spent = clock.now - start
        assert spent <= budget, (budget, spent)
        assert spent >= 0.5 * budget or player.last_sims <= 2, (budget, spent)  # and it uses the time
        assert player.last_stats["sims"] == player.last_sims >= 1
        game.play(move)
        if not game.is_over:
            game.play(int(game.legal_moves()[0]))
        if game.is_over:
            game = Game.from_string(MIDGAME)


def test_a_kept_tree_outlives_the_moves_of_a_time_budget(ckpt):
    # 1 s a move at ~1,000 simulations a second: far more nodes than the spec's 200 sims would
    # size the kept tree for; the limit follows the measured rate, so reuse does not lapse.
    player, clock = timed_player(ckpt, ",sims=200", seconds=0.001)
    game = Game.from_string(MIDGAME)
    kept = []
    for _ in range(4):
        move = player.choose(game, Budget(time_s=1.0))
        assert player.last_sims > 600
        game.play(move)
        replies = [int(m) for m in game.legal_moves() if not _ends(game, int(m))]
        if not replies:  # the player won (it finds wins in one): the moves so far must do
            break
        game.play(replies[0])
        kept.append(player._kept_tree(game).root_visits(0))
    assert len(kept) >= 2
    assert player._mcts.timings["resets"] == 0
    assert max(kept) > 1  # the opponent's reply had been searched: its subtree carried over
    assert player._mcts.config.node_limit > 3 * 600


def test_leaves_and_backend_in_the_spec(ckpt):
    game = Game.from_string(MIDGAME)
    player = make_player(f"alphazero:ckpt={ckpt},sims=32,leaves=8,backend=torch,device=cpu", seed=0)
    assert player.config.leaves_per_tree == 8 and player.evaluate.backend == "torch"
    assert player.choose(game) in game.legal_moves()
    assert player.last_sims == 32  # exactly the budget, 8 leaves a network call
    assert make_player(f"alphazero:ckpt={ckpt},device=cpu", seed=0).evaluate.backend == "packed"
    with pytest.raises(PlayerSpecError, match="unknown inference backend 'gpu'"):
        make_player(f"alphazero:ckpt={ckpt},backend=gpu", seed=0)
    with pytest.raises(PlayerSpecError, match="leaves"):
        make_player(f"alphazero:ckpt={ckpt},leaves=0", seed=0)


def _ends(game: Game, move: int) -> bool:
    probe = game.copy()
    probe.play(move)
    return probe.is_over


def test_hive_uhp_leaves_option_and_seconds_budget(ckpt):
    engine = UhpEngine(f"alphazero:ckpt={ckpt},sims=40,device=cpu")
    try:
        assert engine.handle("options get Leaves")[0] == "Leaves;int;0;0;0;256"
        assert engine._current_player().config.leaves_per_tree == DEFAULT_LEAVES
        assert engine.handle("options set Leaves 8")[0] == "Leaves;int;8;0;0;256"
        player = engine._current_player()
        assert player.config.leaves_per_tree == 8 and player.sims == 40  # the rest of the spec kept
        engine.handle("newgame Base")
        assert engine.handle("bestmove")[-1] == "ok" and player.last_sims == 40
        player.clock = FakeClock(0.01)
        assert not engine.handle("bestmove seconds 0.25")[0].startswith("err")
        steps = steps_until(0.01, 0.25)
        assert 4 * steps < player.last_sims <= 8 * steps  # up to 8 leaves a step (less on collisions)
        for bad in ("bestmove seconds -1", "bestmove seconds soon", "options set Leaves 999"):
            reply = engine.handle(bad)
            assert reply[0].startswith("err") and reply[-1] == "ok", bad
    finally:
        engine.close()
    engine = UhpEngine("greedy")  # players without leaves ignore the option
    try:
        engine.handle("options set Leaves 4")
        engine.handle("newgame Base")
        assert engine.handle("bestmove")[0] in {"wS1", "wB1", "wG1", "wA1", "wQ"}
    finally:
        engine.close()
