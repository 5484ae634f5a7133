"""The network shipped with the package: the default ``alphazero`` player everywhere."""

from __future__ import annotations

import json
import subprocess
import sys

from arena.arena import run_arena
from arena.config import ArenaConfig
from models import shipped
from players import make_player
from search.checkpoint import read_checkpoint

from helpers import ROOT


def test_the_shipped_network_is_small_loads_on_cpu_and_has_its_card():
    assert shipped.CHECKPOINT.stat().st_size <= 10 * 2**20
    state = read_checkpoint(shipped.CHECKPOINT)  # weights only, the current encoding
    assert set(state) == {"model", "model_config", "encoding", "step"}
    card = shipped.card()
    assert card["step"] == state["step"] and card["model"] == state["model_config"]
    assert card["bytes"] == shipped.CHECKPOINT.stat().st_size
    for key in ("command", "git", "seed", "wall_minutes"):
        assert key in card["run"]
    assert "pretrain" not in card["run"]  # no warm start exists: the card reports no such flag
    assert "run_dir=runs/" in card["run"]["command"]  # as a user types it, no path of the machine
    rows = {r["opponent"]: r for r in card["ladder"]["rows"]}
    assert {"random", "greedy", "alphabeta:depth=2"} <= set(rows)
    assert all(r["wins"] + r["draws"] + r["losses"] == r["games"] > 0 for r in rows.values())
    text = shipped.MODEL_CARD.read_text()
    assert card["run"]["command"] in text and "| greedy |" in text
    player = make_player("alphazero:sims=8,device=cpu", seed=0)  # no ckpt=: the shipped one
    assert player.step == state["step"] and next(player.model.parameters()).device.type == "cpu"


def test_the_shipped_network_beats_greedy_in_a_short_match(tmp_path):
    config = ArenaConfig("gauntlet", ("alphazero:sims=32,device=cpu", "greedy"), games_per_pairing=8,
                         seed=3, ply_cap=300)
    report = run_arena(config, tmp_path / "match", progress=False)
    (_, _, stats), = report.pairings
    assert stats.score > 0.5, (stats.wins, stats.draws, stats.losses)
    summary = json.loads((tmp_path / "match" / "summary.json").read_text())
    assert summary  # the arena's usual files


def test_hive_play_and_hive_uhp_default_to_it(tmp_path):
    done = subprocess.run([sys.executable, "-m", "scripts.play", "--out", str(tmp_path / "g.txt")],
                          input="resign\n", cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "you are White against alphazero (Base)" in done.stdout
    uhp = subprocess.run([sys.executable, "-m", "scripts.uhp_engine"], cwd=ROOT, capture_output=True,
                         text=True, input="options set Player alphazero\nnewgame Base\nbestmove depth 1\n",
                         timeout=120)
    lines = uhp.stdout.splitlines()
    assert "Player;enum;alphazero;alphabeta;alphabeta;alphazero;greedy;random" in lines
    assert lines[-2] in ("wA1", "wB1", "wG1", "wQ", "wS1"), uhp.stdout  # the first move's tiles


def test_ship_copies_the_weights_and_writes_the_card_from_run_and_ladder(smoke_run, tmp_path):
    run_dir, _, returncode = smoke_run
    assert returncode == 0
    ladder = tmp_path / "ladder"
    ladder.mkdir()
    scores = {"random": {"games": 4, "wins": 3, "draws": 1, "losses": 0, "score": 0.875},
              "alphabeta:depth=2": {"games": 4, "wins": 0, "draws": 0, "losses": 4, "score": 0.0}}
    spec = f"alphazero:ckpt={run_dir}/checkpoints/final.pt,sims=8"
    (ladder / "ladder.json").write_text(json.dumps({
        "summary": f"ladder: {spec}  Elo vs alphabeta:depth=2: -inf", "player": spec,
        "anchor": "alphabeta:depth=2", "elo": None, "lo": None, "hi": None, "equal_time": None,
        "scores": scores}))
    out = tmp_path / "shipped"
    done = subprocess.run([sys.executable, "-m", "scripts.ship", "--run-dir", str(run_dir), "--ladder",
                           str(ladder), "--out", str(out)], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    state = read_checkpoint(out / "base.pt")
    assert set(state) == {"model", "model_config", "encoding", "step"} and state["step"] == 20
    card = json.loads((out / "card.json").read_text())
    assert card["run"]["command"] == f"hive-train experiment=smoke run_dir=runs/{run_dir.name}"
    assert card["run"]["experiment"] == "smoke" and "pretrain" not in card["run"]
    assert len(card["run"]["git"]) >= 7 and card["run"]["wall_minutes"] is not None
    rows = {r["opponent"]: r for r in card["ladder"]["rows"]}
    lo, hi = rows["random"]["score_95"]
    assert rows["random"]["wins"] == 3 and lo < 0.875 < hi
    assert rows["alphabeta:depth=2"]["elo"] == -381.7  # 0 of 4 with the prior's draw: 0.5 of 5 points
    summary = card["ladder"]["summary"]
    assert "the shipped network" in summary and str(run_dir) not in summary
    text = (out / "MODEL_CARD.md").read_text()
    assert "| random | 4 | 3-1-0 | 87.5% [" in text and "pure self-play" in text
    assert str(run_dir) not in text
    bad = subprocess.run([sys.executable, "-m", "scripts.ship", "--run-dir", str(tmp_path / "nowhere"),
                          "--ladder", str(ladder), "--out", str(out)], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert bad.returncode == 2 and bad.stderr.startswith("ship: error:") and "Traceback" not in bad.stderr
