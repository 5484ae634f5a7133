"""The alphabeta search sees forced wins, parries threats, and beats random and greedy.

Positions are built tile by tile (axial q, r; E = (q+1, r), SE = (q, r+1), NE = (q+1, r-1)).
Expected move sets are written out and also re-derived by brute force with the Game API.
"""

from __future__ import annotations

import subprocess
import sys
import time

import numpy as np
import pytest

from hive_env import Game
from hive_env.position import board_from_tiles
from players import Budget, Player, alphabeta, make_player, search_stats
from players.alphabeta import MATE_BOUND, AlphaBeta, AlphaBetaPlayer, _speed_sample
from players.heuristic import DEFAULT_WEIGHTS, WIN_SCORE, evaluate, make_weights, score_moves

from helpers import MIDGAME, ROOT
from helpers import WIN_IN_ONE_TILE_MOVES as WIN_IN_ONE_MOVES
from helpers import WIN_IN_ONE_TILES as WIN_IN_ONE

# WIN_IN_ONE (helpers.WIN_IN_ONE_TILES): Black's Queen at the origin with five neighbours; its NE
# cell (1, -1) is the hole.
#
#            wG1   (hole)  wB2
#         bG1    bQ     wQ    wA1
#            wS1    bB1
#               bA1

# White's Queen at the origin with five neighbours; bA1 can slide into the hole at NE (1, -1)
# next move. White has no win of its own and its Queen is gated in.
#
#            wA1   (hole)  bA1
#         bB1    wQ     wS1    bS1
#      bQ    wG1    bG1
#                wB1
THREAT = [("wQ", 0, 0), ("wS1", 1, 0), ("bG1", 0, 1), ("wG1", -1, 1), ("bB1", -1, 0), ("wA1", 0, -1),
          ("bA1", 2, -1), ("bQ", -2, 1), ("bS1", 2, 0), ("wB1", 0, 2)]
PARRIES = {"wA1 -bB1", "wA1 -bQ", "wA1 /bG1", "wA1 /bQ", "wA1 /bS1", "wA1 /wB1", "wA1 /wG1", "wA1 \\bA1",
           "wA1 \\bB1", "wA1 bA1/", "wA1 bS1-", "wA1 bS1/", "wA1 bS1\\", "wA1 wB1-", "wA1 wB1\\", "wG1 -bQ",
           "wG1 -wA1", "wG1 /bS1"}


def position(tiles: list[tuple[str, int, int]], ply: int = 14) -> Game:
    return Game.from_board(*board_from_tiles("Base", tiles, ply))


def winning_moves(game: Game) -> set[str]:
    """Moves that end the game in the mover's favour (slow reference)."""
    mover = "WhiteWins" if game.side_to_move == 0 else "BlackWins"
    out = set()
    for m in game.legal_moves():
        child = game.copy()
        child.play(int(m))
        if child.state == mover:
            out.add(game.move_string(m))
    return out


def parrying_moves(game: Game) -> set[str]:
    """Moves after which the opponent has no immediate win (slow reference)."""
    out = set()
    for m in game.legal_moves():
        child = game.copy()
        child.play(int(m))
        if not child.is_over and not winning_moves(child):
            out.add(game.move_string(m))
    return out


def test_reference_sets_are_right():
    assert winning_moves(position(WIN_IN_ONE)) == WIN_IN_ONE_MOVES
    threat = position(THREAT)
    assert winning_moves(threat) == set()
    assert parrying_moves(threat) == PARRIES
    assert len(threat.legal_moves()) > len(PARRIES)  # most moves lose


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_alphabeta_plays_the_win_in_one(depth):
    game = position(WIN_IN_ONE)
    result = AlphaBeta(tt_bits=16).search(game.board, game.hist, depth=depth)
    assert game.move_string(result.move) in WIN_IN_ONE_MOVES
    assert result.score == WIN_SCORE - 1


@pytest.mark.parametrize("depth", [2, 3])
def test_alphabeta_parries_a_threat_against_its_queen(depth):
    game = position(THREAT)
    result = AlphaBeta(tt_bits=16).search(game.board, game.hist, depth=depth)
    assert game.move_string(result.move) in PARRIES
    assert result.score > -MATE_BOUND


def test_alphabeta_sees_the_loss_when_nothing_parries():
    # the same threat, but White's only parrying pieces are gone (A and G replaced by pinned ones)
    tiles = [t for t in THREAT if t[0] not in ("wA1", "wG1")] + [("bG2", 0, -1), ("bA2", -1, 1)]
    game = position(tiles)
    assert parrying_moves(game) == set()
    result = AlphaBeta(tt_bits=16).search(game.board, game.hist, depth=2)
    assert result.score == -(WIN_SCORE - 2)


@pytest.mark.slow  # asserts wall-clock time: run in the slow CI step
def test_time_limit_and_no_mutation():
    game = Game.from_string("Base;InProgress;White[9];wB1;bG1 wB1/;wG1 -wB1;bA1 \\bG1;wQ wB1\\;bQ -bA1;"
                            "wA1 /wG1;bQ \\bA1;wB2 -wG1;bB1 /bQ;wA1 -bB1;bB2 bG1-;wG2 /wG1;bQ bA1/;wG3 /wB2;"
                            "bG2 -bQ")
    board, hist = game.board.copy(), game.hist.copy()
    search = AlphaBeta(tt_bits=18)
    search.search(game.board, game.hist, depth=1)  # load the kernels
    start = time.perf_counter()
    result = search.search(game.board, game.hist, time_s=0.3)
    assert time.perf_counter() - start < 0.3 + 0.15  # margin for a loaded machine
    assert result.depth >= 2 and result.move in game.legal_moves()
    assert np.array_equal(board, game.board) and np.array_equal(hist, game.hist)


@pytest.mark.slow  # asserts wall-clock time: run in the slow CI step
def test_a_machine_slower_than_measured_still_stops_at_the_deadline(monkeypatch):
    """The node budget and the choice to start another depth come from a speed measured earlier;
    on a machine that got busier since, a search ran past its time (2.17 s for ``bestmove time
    00:00:02`` in CI). The deadline timer stops the kernel whatever the estimates say."""
    game = Game.from_string(MIDGAME)
    search = AlphaBeta(tt_bits=18)
    search.search(game.board, game.hist, depth=1)  # load the kernels
    # estimates as wrong as they get: a budget that never runs out, every depth "fits"
    search.nps = 1e12
    monkeypatch.setattr(alphabeta, "_speed_sample", lambda *args: False)
    start = time.perf_counter()
    result = search.search(game.board, game.hist, time_s=1.0)
    assert time.perf_counter() - start < 1.0 + 0.15
    assert result.move in game.legal_moves() and result.depth >= 2


@pytest.mark.slow  # asserts wall-clock time: run in the slow CI step
def test_a_timed_search_uses_its_share_of_the_time():
    """It stopped at 0.9 t - 0.03 s and started no depth once half of that was gone: 0.59 s a
    move at 1 s. Now it deepens while time is left (an unfinished depth gives its best move)."""
    game = Game.from_string(MIDGAME)
    search = AlphaBeta(tt_bits=18)
    spent = []
    for _ in range(3):
        start = time.perf_counter()
        search.search(game.board, game.hist, time_s=0.5)
        spent.append(time.perf_counter() - start)
    assert min(spent) > 0.8 * alphabeta.TIME_SHARE * 0.5, spent
    assert max(spent) < 0.5 + 0.15, spent


@pytest.mark.slow  # a fresh process: the kernels load from the cache
def test_the_first_timed_move_of_a_fresh_process_searches():
    """Building the player loads the kernels; the first timed move took 5 s at depth 0 before."""
    code = ("import time; from hive_env import Game; from players.alphabeta import AlphaBetaPlayer; "
            f"from players import Budget; p = AlphaBetaPlayer(); g = Game.from_string({MIDGAME!r}); "
            "t = time.perf_counter(); p.choose(g, Budget(time_s=0.5)); "
            "print(p.last.depth, time.perf_counter() - t)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    depth, seconds = out.stdout.split()
    assert int(depth) >= 2 and float(seconds) < 0.5 + 0.15, out.stdout


def test_building_the_player_warms_its_kernels(monkeypatch):
    monkeypatch.setattr(alphabeta, "_warmed", False)
    AlphaBetaPlayer(tt_bits=10)
    assert alphabeta._warmed


def test_forced_move_is_returned_without_search():
    game = position(THREAT)
    game.play("wA1 -bQ")
    search = AlphaBeta(tt_bits=12)
    legal = game.legal_moves()
    result = search.search(game.board, game.hist, depth=3)
    assert result.move in legal
    with pytest.raises(ValueError, match="depth or a time"):
        search.search(game.board, game.hist)


def test_the_player_reports_the_nodes_of_each_search():
    game = Game.from_string(MIDGAME)
    shallow, deep = (AlphaBetaPlayer(Budget(depth=d), tt_bits=16) for d in (1, 3))
    assert search_stats(shallow) == {}  # nothing searched yet
    shallow.choose(game)
    deep.choose(game)
    # depth 1: the root and each of its children once
    assert search_stats(shallow) == {"nodes": 1 + len(game.legal_moves())} == {"nodes": shallow.last.nodes}
    assert deep.last_stats["nodes"] > 10 * shallow.last_stats["nodes"]
    other = position(THREAT)
    shallow.choose(other)  # each choose replaces the count
    assert shallow.last_stats == {"nodes": 1 + len(other.legal_moves())}
    assert len(other.legal_moves()) != len(game.legal_moves())


def test_a_slow_first_search_does_not_starve_later_time_limited_ones():
    """A first call that loads the compiled kernels (26 nodes in 34 ms) set the speed estimate to its
    floor, 1000 nodes/s; every later node budget then ran under 10 ms, too short to measure the speed
    again, and alphabeta searched depth 1 in a millisecond a move whatever time it was given."""
    assert not _speed_sample(26, 0.034, aborted=False)  # a cold start says nothing about the speed
    assert _speed_sample(240, 0.0006, aborted=True) and _speed_sample(5000, 0.02, aborted=False)
    game = Game.from_string(MIDGAME)
    search = AlphaBeta(tt_bits=16)
    search.nps = 1000.0  # as such a first call left it
    search.search(game.board, game.hist, time_s=0.3)
    result = search.search(game.board, game.hist, time_s=0.3)
    assert search.nps > 5000 and result.depth >= 2 and result.nodes > 1000, (search.nps, result)


def test_a_speed_estimate_too_low_does_not_end_the_move_early():
    """A depth cut by its node budget, not by the clock, ended the move: a speed measured too low
    (a slow early depth: a fresh table's page faults) returned a 0.3 s move in 0.06 s. The depth
    now runs again with the speed it measured, until the time is up."""
    game = Game.from_string(MIDGAME)
    search = AlphaBeta(tt_bits=16)
    search.search(game.board, game.hist, depth=1)  # the kernels loaded
    search.nps = 1000.0  # the floor: the first depths' budgets run out at once
    start = time.perf_counter()
    search.search(game.board, game.hist, time_s=0.3)
    spent = time.perf_counter() - start
    assert 0.8 * alphabeta.TIME_SHARE * 0.3 < spent < 0.3 + 0.15, spent


def test_heuristic_is_antisymmetric_in_pressure_and_greedy_scores_wins():
    game = position(WIN_IN_ONE)
    moves = game.legal_moves()
    out = np.empty(len(moves), dtype=np.int64)
    score_moves(game.board.copy(), game.hist.copy(), moves, DEFAULT_WEIGHTS, out)
    assert {game.move_string(m) for m in moves[out == WIN_SCORE]} == WIN_IN_ONE_MOVES
    # Black's queen is nearly surrounded: good for White to move, bad for Black to move
    assert evaluate(game.board, DEFAULT_WEIGHTS) > 0
    flipped = position(WIN_IN_ONE, ply=15)
    assert evaluate(flipped.board, DEFAULT_WEIGHTS) < 0
    with pytest.raises(ValueError):
        make_weights(queen_pressure=(1, 2))


# ----- matches --------------------------------------------------------------------------------
def play_game(white: Player, black: Player, ply_cap: int = 200) -> str:
    """One game; its final state (a draw at the ply cap)."""
    game = Game("Base", ply_cap=ply_cap)
    players = (white, black)
    while not game.is_over:
        game.play(players[game.side_to_move].choose(game))
    return game.state


def match(spec: str, opponent: str, games: int) -> tuple[float, float]:
    """Score of ``spec`` (win 1, draw 1/2) over ``games`` with colours alternated; seconds per game."""
    score = 0.0
    start = time.perf_counter()
    for i in range(games):
        a, b = make_player(spec, seed=i), make_player(opponent, seed=10_000 + i)
        white = i % 2 == 0
        state = play_game(a, b) if white else play_game(b, a)
        score += 0.5 if state == "Draw" else float((state == "WhiteWins") == white)
    return score / games, (time.perf_counter() - start) / games


def test_alphabeta_beats_random_and_greedy_quick():
    assert match("alphabeta:depth=2", "random", 4)[0] >= 0.75
    assert match("alphabeta:depth=3", "greedy", 4)[0] > 0.5


@pytest.mark.slow
@pytest.mark.parametrize("depth", [2, 3])
def test_alphabeta_match_figures(depth):
    """The closing-note figures: 50 games each, colours alternated, 200-ply cap."""
    vs_random, t_random = match(f"alphabeta:depth={depth}", "random", 50)
    vs_greedy, t_greedy = match(f"alphabeta:depth={depth}", "greedy", 50)
    print(f"\nalphabeta depth {depth}: vs random {vs_random:.0%} ({t_random:.2f} s/game), "
          f"vs greedy {vs_greedy:.0%} ({t_greedy:.2f} s/game)")
    assert vs_random >= 0.9
    assert vs_greedy > 0.5
