"""The ``alphazero`` player's levels (``players.levels``): the table, ``level=`` in a
spec and its refusals, the draw among the likeliest moves, a seeded game replayed move for move,
the exact tactics from level 4 up (every win in one and every defence of the tactics suite),
``hive-play --level`` and hive-uhp's ``Level`` option; in the slow suite, the levels' order in
games (a fast statistical check; ``scripts/calibrate_levels.py`` measures them)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from arena import tactics_suite
from arena.arena import run_arena
from arena.config import ArenaConfig
from hive_env import Game
from hive_env.suite_file import read_suite
from players import Budget, PlayerSpecError, make_player
from players.levels import DEFAULT_LEVEL, LEVELS, TACTICS_FROM, TOP_LEVEL_SECONDS, Level, level, pick
from players.registry import check_spec, with_level
from players.uhp_server import UhpEngine

from helpers import ROOT, WIN_IN_ONE, WIN_IN_ONE_MOVE

SUITE = ROOT / "tests" / "data" / "tactics.txt"
SHIPPED = ROOT / "models" / "shipped" / "base.pt"
BY_VISITS = Level(5, sims=8, time_s=None, sample="visits", top_k=2, temperature=0.5)
"""A level drawn between the search's two most visited moves (the table has none at present)."""
"""One network for every game type of the suite (as tests/arena/test_tactics_suite.py plays it)."""


# ----- the table --------------------------------------------------------------------------------
def test_the_table_runs_from_near_random_to_the_full_player():
    assert [lv.number for lv in LEVELS] == list(range(1, 11)) and DEFAULT_LEVEL == 10
    top = level(10)
    assert top.time_s == TOP_LEVEL_SECONDS == 1.0 and top.sims is None and not top.softened and top.tactics
    assert top.describe() == "level 10: 1 s a move" and top.short() == "level 10, 1 s a move"
    assert [lv.tactics for lv in LEVELS] == [lv.number >= TACTICS_FROM for lv in LEVELS] and TACTICS_FROM == 4
    sims = [lv.sims for lv in LEVELS[:-1]]
    assert sims == sorted(sims) and sims[0] == 1 and sims[-1] < 4000  # well under a second's (~12,000)
    softened = [lv for lv in LEVELS if lv.softened]
    assert [lv.top_k for lv in softened] == sorted((lv.top_k for lv in softened), reverse=True)
    assert [lv.temperature for lv in softened] == sorted((lv.temperature for lv in softened), reverse=True)
    assert level(1).top_k >= 10 and level(1).temperature >= 3  # near random, among the likeliest moves
    assert "may miss a win in one" in level(3).describe() and "may miss" not in level(4).describe()
    with pytest.raises(ValueError, match="from 1 to 10"):
        level(11)


@pytest.mark.parametrize("spec", ["alphazero:level=1", "alphazero:level=10",
                                  "alphazero:ckpt=x.pt,level=4,leaves=2",
                                  "alphazero:level=7,device=cpu,cpuct=2,hard=0"])
def test_level_specs_are_accepted(spec):
    check_spec(spec)  # nothing is loaded


@pytest.mark.parametrize(("spec", "why"), [
    ("alphazero:level=0", "bad level='0': must be a whole number from 1 to 10"),
    ("alphazero:level=11", "bad level='11': must be a whole number from 1 to 10"),
    ("alphazero:level=two", "bad level='two': must be a whole number from 1 to 10"),
    ("alphazero:level=3,sims=64",
     "level= sets the budget and the move choice: give level= or sims=, not both"),
    ("alphazero:time=1,level=3", "give level= or time=, not both"),
    ("alphazero:level=3,gumbel=1", "give level= or gumbel=, not both"),
    ("greedy:level=3", "player 'greedy' has no option 'level'"),
])
def test_bad_level_specs_are_refused_in_one_line(spec, why):
    with pytest.raises(PlayerSpecError, match="^.*" + why.replace("(", r"\(").replace(")", r"\)")) as e:
        check_spec(spec)
    assert "\n" not in str(e.value)
    with pytest.raises(PlayerSpecError):
        make_player(spec)  # refused before any network is loaded


@pytest.mark.parametrize("kw,why", [({"top_k": 0}, "top_k must be >= 1, got 0"),
                                    ({"top_k": 2, "temperature": -1.0}, "temperature must be >= 0, got -1.0"),
                                    ({"sample": "value"}, "sample must be one of prior, visits"),
                                    ({"time_s": 1.0}, "give sims or time_s, exactly one"),
                                    ({"top_k": 2}, "a draw among 2 moves needs a temperature > 0")])
def test_a_bad_level_is_refused_naming_what(kw, why):
    with pytest.raises(ValueError, match=f"^level 5: {why}"):
        Level(5, **{"sims": 8, "time_s": None, **kw})


def test_with_level_replaces_the_budget_of_a_spec():
    assert with_level("alphazero", 3) == "alphazero:level=3"
    assert with_level("alphazero:sims=64,leaves=2,time=1,gumbel=1", 5) == "alphazero:leaves=2,level=5"
    assert with_level("alphazero:level=2,ckpt=a.pt", 9) == "alphazero:ckpt=a.pt,level=9"
    with pytest.raises(PlayerSpecError, match="from 1 to 10"):
        with_level("alphazero", 0)


# ----- the draw ---------------------------------------------------------------------------------
def _draws(lv, visits, prior, lost=None, proven=False, chosen=0, n=400, seed=0) -> list[int]:
    rng = np.random.default_rng(seed)
    lost = np.zeros(len(prior), bool) if lost is None else lost
    visits = np.asarray(visits, np.float32)
    return [pick(lv, visits, np.asarray(prior), lost, proven, chosen, rng) for _ in range(n)]


def test_an_unsoftened_level_plays_the_searchs_choice():
    prior = np.linspace(1, 2, 30)
    for number in range(5, 11):
        assert set(_draws(level(number), np.arange(30), prior / prior.sum(), chosen=17, n=20)) == {17}


def test_a_softened_level_draws_only_among_its_likeliest_moves():
    rng = np.random.default_rng(3)
    prior = rng.dirichlet(np.ones(40))
    by_prior = np.argsort(-prior)
    for number in (1, 2, 3):
        lv = level(number)
        picks = set(_draws(lv, np.zeros(40), prior))
        assert picks <= set(by_prior[:lv.top_k].tolist()) and len(picks) > 1, (number, picks)
    first = _draws(level(1), np.zeros(40), prior)
    assert len(set(first)) >= 10  # near random among the 12 likeliest
    assert first == _draws(level(1), np.zeros(40), prior)  # the same generator, the same draws
    # a level drawn by the search's visits ranks by them, not by the prior
    visits = np.zeros(40)
    visits[[by_prior[-1], by_prior[-2], by_prior[0]]] = [5, 2, 1]
    assert set(_draws(BY_VISITS, visits, prior)) == {by_prior[-1], by_prior[-2]}


def test_from_level_4_proven_moves_decide():
    prior = np.array([0.5, 0.3, 0.1, 0.1])
    lost = np.array([True, False, False, False])  # the likeliest move lets the opponent win at once
    for lv in (level(4), BY_VISITS):
        assert 0 not in _draws(lv, [0, 3, 2, 1], prior, lost=lost)
        assert set(_draws(lv, [0, 3, 2, 1], prior, proven=True, chosen=2, n=20)) == {2}
    assert 0 in _draws(level(3), [0, 3, 2, 1], prior, lost=lost)  # below 4 it may
    everything = np.ones(4, bool)  # every move lost: any is allowed
    assert set(_draws(level(4), [0, 0, 0, 0], prior, lost=everything)) <= {0, 1, 2, 3}


# ----- the player -------------------------------------------------------------------------------
def test_the_bare_spec_is_the_top_level_and_levels_only_search_less():
    top = make_player("alphazero:device=cpu")
    assert top.level == level(DEFAULT_LEVEL) and top.default_budget == Budget(time_s=1.0) and top.sims is None
    assert top.budget_for(None) == Budget(time_s=1.0)
    assert top.budget_for(Budget(time_s=3.0, max_time_s=9.0)) == Budget(time_s=3.0, max_time_s=9.0)
    assert top.budget_for(Budget(depth=3, time_s=60.0)) == Budget(time_s=1.0)  # hive-uhp's bestmove depth
    timed = make_player("alphazero:device=cpu,time=1")
    assert timed.level is None and timed.default_budget == Budget(time_s=1.0)
    five = make_player("alphazero:device=cpu,level=5")
    assert five.sims == 16 and five.default_budget == Budget(sims=16)
    assert five.budget_for(Budget(time_s=0.5, max_time_s=2.0)) == Budget(sims=16, time_s=0.5)
    assert five.budget_for(Budget(sims=100)) == Budget(sims=16)
    assert five.budget_for(Budget(sims=3)) == Budget(sims=3)
    fixed = make_player("alphazero:device=cpu,sims=40")
    assert fixed.level is None
    assert fixed.budget_for(Budget(depth=2, time_s=60.0)) == Budget(sims=40, time_s=60.0)


def _game(white: str, black: str, seeds: tuple[int, int], plies: int = 24) -> str:
    players = [make_player(white, seed=seeds[0]), make_player(black, seed=seeds[1])]
    game = Game("Base")
    while not game.is_over and game.ply < plies:
        game.play(players[game.ply % 2].choose(game))
    return game.game_string()


def test_a_seeded_game_between_levels_replays_move_for_move():
    white, black = "alphazero:device=cpu,level=1", "alphazero:device=cpu,level=5"
    first = _game(white, black, (7, 8))
    assert _game(white, black, (7, 8)) == first
    assert _game(white, black, (9, 8)) != first  # another seed, another game


@pytest.mark.parametrize("number", range(TACTICS_FROM, 11))
def test_from_level_4_a_level_never_misses_a_win_in_one(number):
    player = make_player(f"alphazero:device=cpu,level={number}", seed=0)
    seeds = range(3) if number < 10 else range(1)  # level 10 thinks a second
    for seed in seeds:
        player.seed = seed
        game = Game.from_string(WIN_IN_ONE)
        assert game.move_string(player.choose(game)) == WIN_IN_ONE_MOVE, (number, seed)


@pytest.mark.parametrize("kind", ["win1", "defend"])
def test_level_4_solves_every_win_in_one_and_defence_of_the_suite(kind):
    """The weakest level that keeps the tactics, drawing among the policy's 4 likeliest moves,
    on every position of the project's tactics suite: it never misses a win in one and never
    lets one through."""
    suite = [row for row in read_suite(SUITE) if row[0] == kind]
    solved, total, _ = tactics_suite.score(f"alphazero:ckpt={SHIPPED},device=cpu,level=4", suite)[kind]
    assert solved == total == len(suite), f"{kind}: {solved}/{total}"


def test_level_3_may_miss_a_win_in_one():
    """Below level 4 the draw is free of the tactics: over the suite's wins in one, the policy's
    6 likeliest moves at temperature 1.5 sometimes miss (never by playing outside them)."""
    suite = [row for row in read_suite(SUITE) if row[0] == "win1"][:60]
    solved, total, _ = tactics_suite.score(f"alphazero:ckpt={SHIPPED},device=cpu,level=3", suite)["win1"]
    assert 0 < solved < total


# ----- the tools --------------------------------------------------------------------------------
def _play(*args: str, stdin: str = "resign\n") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scripts.play", *args], cwd=ROOT, input=stdin,
                          capture_output=True, text=True, timeout=300)


def test_hive_play_takes_a_level(tmp_path):
    done = _play("--level", "3", "--colour", "black", "--out", str(tmp_path / "g.txt"))
    assert done.returncode == 0, done.stderr
    assert "you are Black against alphazero:level=3 (Base, level 3, 1 simulation a move)" in done.stdout
    assert "alphazero:level=3 plays " in done.stdout  # the opponent moved first
    for args, why in ((["--level", "11"], "bad level='11': must be a whole number from 1 to 10"),
                      (["--level", "3", "--opponent", "greedy"], "--level is for an alphazero opponent"),
                      (["--level", "3", "--opponent", "alphazero:sims=8"], "give level= or sims=, not both")):
        refused = _play(*args, "--out", str(tmp_path / "x.txt"))
        assert refused.returncode == 2 and why in refused.stderr, refused.stderr
        assert refused.stderr.count("\n") == 1, refused.stderr


def test_hive_uhp_takes_a_level_option():
    engine = UhpEngine("alphazero:sims=8,device=cpu")
    try:
        assert "Level;int;0;0;0;10" in engine.handle("options")
        assert engine.handle("options set Level 11") == ["err Level must be between 0 and 10, not 11", "ok"]
        assert engine.handle("options set Level 4") == ["Level;int;4;0;0;10", "ok"]
        engine.handle(f"newgame {WIN_IN_ONE}")
        assert engine.handle("bestmove") == [WIN_IN_ONE_MOVE, "ok"]
        player = engine._current_player()
        assert player.level == level(4) and player.name == "alphazero:device=cpu,level=4"
        engine.handle("options set Level 0")  # the spec's own again: 8 simulations
        assert engine._current_player().level is None and engine._current_player().sims == 8
        engine.handle("options set Player greedy")
        engine.handle("options set Level 2")  # other players ignore it
        assert engine.handle("bestmove") == [WIN_IN_ONE_MOVE, "ok"]
    finally:
        engine.close()


# ----- the levels' order (slow) -----------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize(("high", "low", "at_least"), [(10, 1, 3.5), (7, 3, 3.0)])
def test_a_higher_level_wins_clearly(tmp_path, high, low, at_least):
    """A fast statistical check of the order: 4 games (openings random:4, colours alternated);
    the full calibration is ``python -m scripts.calibrate_levels``."""
    specs = (f"alphazero:device=cpu,level={high}", f"alphazero:device=cpu,level={low}")
    config = ArenaConfig("gauntlet", specs, games_per_pairing=4, seed=5)
    report = run_arena(config, tmp_path / "arena", progress=False)
    points = sum(r["white_score"] if r["white_index"] == 0 else 1 - r["white_score"] for r in report.records)
    assert len(report.records) == 4 and points >= at_least, (high, low, points)
