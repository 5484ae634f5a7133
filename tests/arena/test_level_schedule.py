"""Who meets whom in the levels' calibration (``arena.level_schedule``), and an arena
that plays an explicit schedule of pairs (``ArenaConfig.pairs``)."""

from __future__ import annotations

import json

import pytest

from arena.arena import run_arena
from arena.config import ArenaConfig, ArenaError
from arena.level_schedule import PARTS, is_timed, part_pairs, player_name, schedule
from arena.schedule import schedule as arena_schedule

LEVELS = [f"alphazero:level={n},device=cpu,name=level-{n}" for n in range(1, 11)]
ANCHORS = ["random", "greedy", *(f"alphabeta:depth={d}" for d in (1, 2, 3, 4)),
           "uhp:cmd=/x/nokamute,time=1,name=nokamute"]
FIELD = LEVELS + ANCHORS


def connected(n: int, pairs: list[tuple[int, int]]) -> bool:
    seen, todo = {0}, [0]
    while todo:
        i = todo.pop()
        for a, b in pairs:
            for x, y in ((a, b), (b, a)):
                if x == i and y not in seen:
                    seen.add(y)
                    todo.append(y)
    return len(seen) == n


def test_names_and_timed_players_are_read_from_the_specs():
    assert player_name(LEVELS[2]) == "level-3" and player_name("alphabeta:depth=2") == "alphabeta:depth=2"
    assert [s for s in FIELD if is_timed(s)] == [LEVELS[9], ANCHORS[-1]]
    assert is_timed("alphabeta:time=0.5") and not is_timed("alphazero:sims=64") and not is_timed("random")


def test_the_schedule_is_connected_near_and_keeps_timed_players_to_their_nearest():
    pairs = schedule(FIELD)
    assert pairs == sorted(set(pairs)) and all(i < j for i, j in pairs)
    assert connected(len(FIELD), pairs)
    names = [{player_name(FIELD[i]), player_name(FIELD[j])} for i, j in pairs]
    assert {"level-4", "level-5"} in names and {"level-9", "level-8"} in names  # neighbours meet
    assert {"random", "level-9"} not in names and {"random", "alphabeta:depth=4"} not in names  # far apart
    for timed in ("level-10", "nokamute"):  # its three nearest by the prior, and the other's choice
        assert 3 <= sum(timed in pair for pair in names) <= 4
    assert {"level-10", "nokamute"} in names and {"level-10", "level-9"} in names
    assert sum(("level-10" in pair or "nokamute" in pair) for pair in names) <= 6
    # every level meets a player on each side of it (its rating is bracketed), but the extremes
    for n in range(2, 10):
        own = [pair - {f"level-{n}"} for pair in names if f"level-{n}" in pair]
        assert len(own) >= 3


def test_neighbours_meet_however_far_apart_the_prior_puts_them():
    specs = ["random", "alphabeta:depth=4", "greedy"]
    assert schedule(specs, prior={"random": 0, "greedy": 1000, "alphabeta:depth=4": 2000},
                    window=10) == [(0, 2), (1, 2)]


def test_the_parts_split_the_schedule_by_timed_players():
    pairs = schedule(FIELD)
    parts = {part: part_pairs(FIELD, pairs, part) for part in PARTS}
    assert sorted(parts["untimed"] + parts["timed"]) == pairs
    assert all(is_timed(FIELD[i]) or is_timed(FIELD[j]) for i, j in parts["timed"])
    assert not any(is_timed(FIELD[i]) or is_timed(FIELD[j]) for i, j in parts["untimed"])


def test_an_arena_plays_only_its_schedules_pairs(tmp_path):
    config = ArenaConfig("roundrobin", ("random", "greedy", "alphabeta:depth=1"), 2, pairs=((1, 2), (0, 1)))
    assert config.pairings() == [(0, 1), (1, 2)]
    openings = ["Base;NotStarted;White[1]"]
    assert {t.id.split("-")[0] for t in arena_schedule(config, openings)} == {"0v1", "1v2"}
    report = run_arena(config, tmp_path / "a", progress=False)
    assert len(report.records) == 4 and {(r["white_index"], r["black_index"]) for r in report.records} \
        == {(0, 1), (1, 0), (1, 2), (2, 1)}
    assert json.loads((tmp_path / "a" / "config.json").read_text())["settings"]["pairs"] == [[0, 1], [1, 2]]
    # the same arena resumes; another schedule is other settings
    assert len(run_arena(config, tmp_path / "a", progress=False).records) == 4
    with pytest.raises(ArenaError, match="other settings"):
        other = ArenaConfig("roundrobin", config.players, 2, pairs=((0, 2),))
        run_arena(other, tmp_path / "a", progress=False)
    # an arena without a schedule keeps its settings as before (older directories resume)
    assert "pairs" not in ArenaConfig("roundrobin", config.players, 2).settings()


@pytest.mark.parametrize(("mode", "pairs", "message"), [
    ("gauntlet", ((0, 1),), "a round robin's"),
    ("roundrobin", ((0, 3),), r"\(0, 3\) is not two players"),
    ("roundrobin", ((1, 1),), r"\(1, 1\) is not two players"),
    ("roundrobin", (), "the schedule is empty"),
    ("roundrobin", (("a", 1),), "player index pairs"),
])
def test_a_bad_schedule_is_refused_in_one_line(mode, pairs, message):
    with pytest.raises(ArenaError, match=message):
        ArenaConfig(mode, ("random", "greedy", "alphabeta:depth=1"), 2, pairs=pairs)
