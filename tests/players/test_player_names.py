"""Short player names: ``name=`` in any spec, automatic short forms, unique within an arena."""

from __future__ import annotations

import csv
import json

import pytest

from arena.arena import run_arena
from arena.config import ArenaConfig
from arena.report import Tally, build_report, format_report, write_report
from players import PlayerSpecError, make_player
from players.registry import check_spec, register_player, short_name, short_names

from helpers import whole

CKPT = "runs/smoke/checkpoints/ckpt_00000020.pt"


@pytest.mark.parametrize("spec", ["random:name=r", "greedy:name=g", "alphabeta:depth=1,name=ab1",
                                  "uhp:cmd=mzinga,name=mz", f"alphazero:ckpt={CKPT},sims=16,name=az20"])
def test_every_kind_accepts_name(spec):
    check_spec(spec)  # nothing built, nothing loaded
    assert short_name(spec) == spec.rsplit("name=", 1)[1]


def test_name_is_the_players_name_not_a_factory_option():
    seen = {}

    def factory(seed, name, **params):
        seen.update(params, name=name)
        return make_player("random", seed)

    register_player("named_test", factory, {"n": int})
    make_player("named_test:n=2,name=two")
    assert seen == {"n": 2, "name": "two"}
    assert make_player("random:name=r").name == "r" and make_player("random").name == "random"
    assert make_player("alphabeta:depth=1").name == "alphabeta:depth=1"
    with pytest.raises(PlayerSpecError, match="name"):
        check_spec("random:name=")
    with pytest.raises(PlayerSpecError, match=r"options: .*name"):
        check_spec("random:bogus=1")


def test_automatic_short_forms():
    assert short_name(f"alphazero:ckpt={CKPT},sims=16") == "az@20"
    assert short_name("alphazero:ckpt=runs/smoke/checkpoints/best.pt,sims=16") == "az@best"
    assert short_name("alphazero:ckpt=/abs/runs/smoke/checkpoints/final.pt,sims=8,device=cpu") == "az@final"
    assert short_name("alphazero:ckpt=r/eval/frozen/ckpt_00000010_0a1b2c3d4e5f.pt,sims=8") == "az@10"
    assert short_name("alphazero:ckpt=r/eval/frozen/best_0a1b2c3d4e5f.pt,sims=8") == "az@best"
    assert short_name("uhp:cmd=/opt/engines/MzingaEngine --quiet,depth=2") == "uhp:MzingaEngine,depth=2"
    assert short_name("alphabeta:depth=2") == "alphabeta:depth=2" and short_name("random") == "random"


def test_short_names_never_clash():
    specs = [f"alphazero:ckpt={CKPT},sims=16", f"alphazero:ckpt={CKPT},sims=64",
             "alphazero:ckpt=r/eval/frozen/ckpt_00000020_0a1b2c3d4e5f.pt,sims=16",
             "alphazero:ckpt=other/ckpt_00000020.pt,sims=64", "alphabeta:depth=1,name=greedy", "greedy",
             "alphazero:ckpt=r/eval/frozen/best_0a1b2c3d4e5f.pt,sims=8", "alphazero:ckpt=r/best.pt,sims=8"]
    names = short_names(specs)
    assert len(set(names)) == len(specs), names
    assert names == ["az@20(sims=16)", specs[1], "az@20#0a1b2c(sims=16)", specs[3], specs[4], "greedy",
                     "az@best#0a1b2c(sims=8)", "az@best(sims=8)"]
    assert short_names(["random", "random:"]) == ["random", "random:"]  # equal players, different specs
    assert short_names([f"alphazero:ckpt={CKPT},sims=16", "random"]) == ["az@20", "random"]


def test_report_tables_and_csvs_use_short_names_files_keep_specs(tmp_path):
    az = f"alphazero:ckpt=/long/path/to/{CKPT},sims=16,device=cpu"
    config = ArenaConfig("gauntlet", (az, "random", "alphabeta:depth=1,name=ab1"), 2)
    records = [whole({"white_index": 0, "black_index": 1, "white_score": 1.0, "round": 0}),
               whole({"white_index": 1, "black_index": 0, "white_score": 0.5, "round": 0}),
               whole({"white_index": 2, "black_index": 0, "white_score": 0.0, "round": 1})]
    report = build_report(config, tmp_path, 1, records, 4)
    assert report.names == ["az@20", "random", "ab1"]
    text = format_report(report)
    assert f"az@20 = {az}" in text and "ab1 = alphabeta:depth=1,name=ab1" in text  # the legend
    table = text[text.index("Elo (maximum"):]
    assert "alphazero" not in table and max(map(len, table.splitlines())) < 100
    assert "anchor random = 0" in table
    assert Tally(config, records).postfix(config.players, "gauntlet") == "az@20 +2 =1 -0 83%"
    write_report(report)
    with open(tmp_path / "ratings.csv") as f:
        ratings = {r["player"]: r for r in csv.DictReader(f)}
    assert set(ratings) == {"az@20", "random", "ab1"} and ratings["az@20"]["spec"] == az
    with open(tmp_path / "pairings.csv") as f:
        pairs = {(r["player"], r["opponent"]) for r in csv.DictReader(f)}
    assert pairs == {("az@20", "random"), ("az@20", "ab1")}
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["anchor"] == "random" and summary["settings"]["players"] == list(config.players)
    assert {r["player"]: r["spec"] for r in summary["ratings"]}["ab1"] == "alphabeta:depth=1,name=ab1"


def test_an_arena_with_named_players_stores_specs(tmp_path):
    config = ArenaConfig("gauntlet", ("greedy:name=g", "random:name=r"), 2, ply_cap=20)
    report = run_arena(config, tmp_path, progress=False)
    assert report.complete and report.names == ["g", "r"]
    games = [json.loads(line) for line in (tmp_path / "games.jsonl").read_text().splitlines()]
    assert {g["white"] for g in games} == {"greedy:name=g", "random:name=r"}
    assert json.loads((tmp_path / "config.json").read_text())["settings"]["players"] == list(config.players)
    text = format_report(report)
    last = text[:text.index("\n\nHow the games ended")].splitlines()[-1].split()
    assert last[:2] == ["g", "r"] and last[last.index("of") + 1] == "2"  # the pairing row, by names
