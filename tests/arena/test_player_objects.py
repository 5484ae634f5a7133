"""A Player object plays in the arena beside spec strings (``run_arena``, gauntlets, ladders):
named by its ``name`` or its class, played in the arena's process, never closed by the arena."""

from __future__ import annotations

import json

import pytest

from arena.arena import run_arena
from arena.config import ArenaConfig, ArenaError
from arena.ladder import ladder_config
from hive_env import Game
from players import Budget, player_label


class FirstMove:
    """Plays its first legal move; counts what the arena asks of it. No ``name``: its class names it."""

    def __init__(self) -> None:
        self.chosen = 0
        self.closed = False
        self.budgets: list[Budget | None] = []

    def choose(self, game: Game, budget: Budget | None = None) -> int:
        self.chosen += 1
        self.budgets.append(budget)
        return int(game.legal_moves()[0])

    def close(self) -> None:
        self.closed = True


class Named(FirstMove):
    name = "first-mover"


def test_a_player_object_plays_a_gauntlet_and_its_results_resume(tmp_path):
    me = FirstMove()
    config = ArenaConfig("gauntlet", (me, "random"), 4, ply_cap=30, openings="random:2", depth=2)
    assert config.players == ("FirstMove", "random") and config.player_objects == {"FirstMove": me}
    report = run_arena(config, tmp_path, progress=False)  # was: 'FirstMove' object has no attribute 'strip'
    records = [json.loads(x) for x in (tmp_path / "games.jsonl").read_text().splitlines()]
    assert len(records) == 4 and {r["white"] for r in records} == {"FirstMove", "random"}
    mine = sum(1 for r in records for ply in range(2, r["plies"])
               if ply % 2 == (0 if r["white"] == "FirstMove" else 1))
    assert me.chosen == mine > 0  # one object played every game of its side
    assert not me.closed  # the arena never closes an object it was given
    assert set(me.budgets) == {Budget(depth=2)}
    assert report.names == ["FirstMove", "random"] and report.pairings[0][2].games == 4
    settings = json.loads((tmp_path / "config.json").read_text())["settings"]
    assert settings["players"] == ["FirstMove", "random"]
    again = FirstMove()
    run_arena(ArenaConfig("gauntlet", (again, "random"), 4, ply_cap=30, openings="random:2", depth=2),
              tmp_path, progress=False)
    assert again.chosen == 0  # resumed: every game is recorded already


def test_a_player_object_is_named_by_its_name_and_may_be_the_anchor(tmp_path):
    me = Named()
    config = ArenaConfig("roundrobin", ("greedy", me, "random"), 2, ply_cap=20, openings="random:2")
    assert config.players == ("greedy", "first-mover", "random") and player_label(me) == "first-mover"
    report = run_arena(config, tmp_path, anchor=me, progress=False)
    assert report.config.players[report.anchor] == "first-mover" and me.chosen > 0


def test_a_ladder_takes_a_player_object():
    config = ladder_config(Named(), depths=(1,), games_per_pairing=2)
    assert config.players == ("first-mover", "random", "greedy", "alphabeta:depth=1")
    assert isinstance(config.player_objects["first-mover"], Named)


def test_player_objects_are_refused_where_they_cannot_play(tmp_path):
    with pytest.raises(ArenaError, match="in this process only"):
        run_arena(ArenaConfig("gauntlet", (FirstMove(), "random"), 2), tmp_path, workers=2, progress=False)
    with pytest.raises(ArenaError, match=r"a player is a spec string .* not 3$"):
        ArenaConfig("gauntlet", (3, "random"), 2)
    with pytest.raises(ArenaError, match="named twice: FirstMove, FirstMove .*name attribute"):
        ArenaConfig("gauntlet", (FirstMove(), FirstMove()), 2)
    assert not list(tmp_path.iterdir())  # nothing written
