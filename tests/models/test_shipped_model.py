"""The network shipped with the package: the default ``alphazero`` player everywhere."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from arena.arena import run_arena
from arena.config import ArenaConfig, ArenaError
from arena.game import check_players
from hive_env import Game
from models import shipped
from players import PlayerSpecError, make_player
from players.uhp_server import UhpEngine
from search.checkpoint import read_checkpoint

from helpers import ROOT, whole


@pytest.mark.parametrize("game_type", shipped.available())
def test_each_shipped_network_is_small_loads_on_cpu_and_has_its_card(game_type):
    net = shipped.network(game_type)
    assert net.checkpoint.stat().st_size <= 10 * 2**20
    state = read_checkpoint(net.checkpoint)  # weights only, the current encoding
    weights = {"model", "model_config", "encoding", "step"}
    assert weights <= set(state) <= weights | {"lineage"}
    card = shipped.card(game_type)
    assert card["step"] == state["step"] and card["model"] == state["model_config"]
    assert card["bytes"] == net.checkpoint.stat().st_size and card.get("game_type", "Base") == game_type
    assert card.get("lineage") == state.get("lineage")
    for key in ("command", "git", "seed", "wall_minutes"):
        assert key in card["run"]
    assert "pretrain" not in card["run"]  # no warm start exists: the card reports no such flag
    command = card["run"]["command"]  # as a user types it, no path of the machine
    sweep_job = "hive-train -m " in command and "hydra.sweep.dir=sweeps/" in command
    assert "run_dir=runs/" in command or sweep_job
    assert "=/" not in command
    rows = {r["opponent"]: r for r in card["ladder"]["rows"]}
    assert {"random", "greedy", "alphabeta:depth=2"} <= set(rows)
    assert all(r["wins"] + r["draws"] + r["losses"] == r["games"] > 0 for r in rows.values())
    text = net.model_card.read_text()
    assert card["run"]["command"] in text and "| greedy |" in text
    from training.model_card import markdown

    assert text == markdown(card) + "\n"  # the card for people is drawn from its .json, never edited


def test_a_sweep_jobs_card_gives_the_sweep_of_that_job_alone(tmp_path):
    from training.model_card import run_facts

    job = tmp_path / "study" / "seed=3+train.max_minutes=5"
    (job / "hydra").mkdir(parents=True)
    (job / "config.yaml").write_text("# git: abc1234\nseed: 3\nname: cpu\nenv:\n  game_type: Base\n")
    (job / "hydra" / "overrides.yaml").write_text("- experiment=cpu\n- seed=3\n- train.max_minutes=5\n")
    assert run_facts(job)["command"] == "hive-train experiment=cpu seed=3 train.max_minutes=5"
    (tmp_path / "study" / "sweep.json").write_text("{}")
    assert run_facts(job)["command"] == ("hive-train -m experiment=cpu seed=3 train.max_minutes=5 "
                                         "hydra.sweep.dir=sweeps/study")


def test_every_game_type_has_a_place_for_its_network():
    # models import no hive_env (the import contracts): its list of types is held to the engine's here
    from hive_env import GAME_TYPES

    assert shipped.GAME_TYPES == GAME_TYPES and list(shipped.NETWORKS) == list(GAME_TYPES)
    files = [p for n in shipped.NETWORKS.values() for p in (n.checkpoint, n.card, n.model_card)]
    assert len(set(files)) == 3 * len(GAME_TYPES) and all(p.parent == shipped.HERE for p in files)
    assert shipped.NETWORKS["Base+M"].checkpoint.name == "base_m.pt"


def test_the_base_network_is_the_default():
    state = read_checkpoint(shipped.CHECKPOINT)
    player = make_player("alphazero:sims=8,device=cpu", seed=0)  # no ckpt=: the shipped one
    assert player.step == state["step"] and next(player.model.parameters()).device.type == "cpu"


def test_alphazero_without_ckpt_plays_the_network_of_the_games_type(unshipped):
    player = make_player("alphazero:sims=8,device=cpu", seed=0)
    assert player.game_type == "Base"
    for game_type in shipped.available():
        move = player.choose(Game(game_type))
        assert move in Game(game_type).legal_moves() and player.game_type == game_type
        assert player.step == read_checkpoint(shipped.network(game_type).checkpoint)["step"]
    unshipped("Base+M")
    with pytest.raises(PlayerSpecError, match="^player 'alphazero': no network is shipped for Base.M ") as e:
        player.choose(Game("Base+M"))
    assert "\n" not in str(e.value)
    mine = make_player(f"alphazero:ckpt={shipped.CHECKPOINT},sims=8,device=cpu", seed=0)
    assert mine.choose(Game("Base+M")) in Game("Base+M").legal_moves()  # ckpt=: any type, as asked


def test_a_type_without_a_shipped_network_is_refused_before_the_game(unshipped):
    unshipped("Base+L")
    with pytest.raises(ArenaError, match="no network is shipped for Base\\+L"):
        check_players(ArenaConfig("gauntlet", ("alphazero:sims=8,device=cpu", "random"), 2, "Base+L"))
    engine = UhpEngine("alphazero:sims=8,device=cpu")
    engine.handle("newgame Base+L")
    reply = engine.handle("bestmove")
    assert reply[0].startswith("err player 'alphazero': no network is shipped for Base+L")
    assert reply[-1] == "ok"
    engine.close()
    # hive-play in a process of its own, in which Base+L's network is made absent the same way
    play = ("import sys; from dataclasses import replace; from models import shipped; "
            "n = shipped.NETWORKS['Base+L']; "
            "shipped.NETWORKS['Base+L'] = replace(n, checkpoint=n.checkpoint.with_name('not-shipped.pt')); "
            "sys.argv = ['hive-play', '--game-type', 'Base+L']; "
            "import runpy; runpy.run_module('scripts.play', run_name='__main__')")
    done = subprocess.run([sys.executable, "-c", play], input="resign\n", cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "hive-play: error: player 'alphazero': no network is shipped" in done.stderr


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
    assert "you are White against alphazero (Base, level 10, 1 s a move)" in done.stdout  # its top level
    uhp = subprocess.run([sys.executable, "-m", "scripts.uhp_engine"], cwd=ROOT, capture_output=True,
                         text=True, input="options set Player alphazero\nnewgame Base\nbestmove depth 1\n",
                         timeout=120)
    lines = uhp.stdout.splitlines()
    assert "Player;enum;alphazero;alphazero;alphabeta;alphazero;greedy;random" in lines
    assert lines[-2] in ("wA1", "wB1", "wG1", "wQ", "wS1"), uhp.stdout  # the first move's tiles


def head_to_head_dir(path, candidate: str, incumbent: str, scores: list[float]):
    """An arena's results directory (as ``hive-arena gauntlet`` writes them) of ``candidate``
    against ``incumbent``: the candidate's ``scores``, colours alternated."""
    path.mkdir()
    settings = {"mode": "gauntlet", "players": [candidate, incumbent], "games_per_pairing": len(scores),
                "game_type": "Base", "openings": "random:4", "seed": 7, "ply_cap": 300}
    (path / "config.json").write_text(json.dumps({"version": 1, "settings": settings, "openings": []}))
    (path / "summary.json").write_text(json.dumps({"settings": settings}))
    records = []
    for i, score in enumerate(scores):
        white, black = (candidate, incumbent) if i % 2 == 0 else (incumbent, candidate)
        white_score = score if white == candidate else 1 - score
        records.append(whole({"id": f"g{i}", "white": white, "black": black, "white_index": i % 2,
                              "black_index": 1 - i % 2, "white_score": white_score, "round": i // 2}))
    (path / "games.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


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
    assert set(state) == {"model", "model_config", "encoding", "step", "lineage"} and state["step"] == 20
    assert state["lineage"]["totals"]["steps"] == 20 and state["lineage"]["parent"] is None
    card = json.loads((out / "card.json").read_text())
    assert card["game_type"] == "Base" and card["replaced"] is None and card["lineage"] == state["lineage"]
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
    assert "| random | 4 | 3-1-0 | 87.5% [" in text and "pure self-play from a random network" in text
    assert "The first network shipped for its game type" in text and str(run_dir) not in text
    # a network is shipped now: the next one must beat it head to head first
    ship = [sys.executable, "-m", "scripts.ship", "--run-dir", str(run_dir), "--ladder", str(ladder), "--out",
            str(out), "--ckpt", str(run_dir / "checkpoints" / "ckpt_00000010.pt")]
    refused = subprocess.run(ship, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2
    assert "a Base network is shipped: the candidate must beat it first" in refused.stderr
    assert "hive-arena sprt 'alphazero:ckpt=" in refused.stderr and "--openings random:4" in refused.stderr
    candidate, incumbent = (f"alphazero:ckpt={p},sims=64" for p in (ship[-1], out / "base.pt"))
    lost = head_to_head_dir(tmp_path / "lost", candidate, incumbent, [0.0] * 120 + [1.0] * 80)
    refused = subprocess.run([*ship, "--vs-shipped", str(lost)], cwd=ROOT, capture_output=True, text=True,
                             timeout=120)
    assert refused.returncode == 2 and "the candidate scored 80/200" in refused.stderr
    won = head_to_head_dir(tmp_path / "won", candidate, incumbent, [1.0] * 110 + [0.5] * 10 + [0.0] * 80)
    old = (out / "base.pt").read_bytes()
    (out / "MODEL_CARD.md").unlink()
    (out / "MODEL_CARD.md").mkdir()  # the card cannot be written: the ship stops before the network moves
    stopped = subprocess.run([*ship, "--vs-shipped", str(won)], cwd=ROOT, capture_output=True, text=True,
                             timeout=120)
    assert stopped.returncode == 1 and "the network shipped before is still in place" in stopped.stderr
    assert (out / "base.pt").read_bytes() == old and not list(out.glob("*.new"))
    (out / "MODEL_CARD.md").rmdir()
    done = subprocess.run([*ship, "--vs-shipped", str(won)], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)  # the same command again: the match is still against base.pt
    assert done.returncode == 0, done.stderr
    assert not list(out.glob("*.new"))
    assert read_checkpoint(out / "base.pt")["step"] == 10
    card = json.loads((out / "card.json").read_text())
    row = card["replaced"]["row"]
    assert (row["games"], row["wins"], row["draws"], row["losses"]) == (200, 110, 10, 80)
    assert "## Against the network it replaced" in (out / "MODEL_CARD.md").read_text()
    # the Base network shipped for Base+M too: its own files, its card names the games it learnt from
    done = subprocess.run([*ship[:-2], "--game-type", "Base+M"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert read_checkpoint(out / "base_m.pt")["step"] == 20 and read_checkpoint(out / "base.pt")["step"] == 10
    assert json.loads((out / "base_m.card.json").read_text())["game_type"] == "Base+M"
    assert "- Game type: Base+M (trained on Base games)" in (out / "MODEL_CARD_base_m.md").read_text()
    assert "(trained on" not in (out / "MODEL_CARD.md").read_text()
    bad = subprocess.run([sys.executable, "-m", "scripts.ship", "--run-dir", str(tmp_path / "nowhere"),
                          "--ladder", str(ladder), "--out", str(out)], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert bad.returncode == 2 and bad.stderr.startswith("ship: error:") and "Traceback" not in bad.stderr
