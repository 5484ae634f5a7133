"""The AlphaZero player behind every front end: the player interface, hive-uhp, hive-play."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import pytest
import torch

from hive_env import Game
from models.gnn import build_model
from players import Budget, PlayerSpecError, make_player
from search.checkpoint import save_checkpoint

from helpers import WIN_IN_ONE

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory) -> Path:
    torch.manual_seed(0)
    return save_checkpoint(tmp_path_factory.mktemp("az") / "net.pt", build_model("tiny"), step=7)


def test_plays_legal_moves_and_reuses_its_tree(ckpt):
    player = make_player(f"alphazero:ckpt={ckpt},sims=16,device=cpu", seed=1)
    opponent = make_player("random", seed=2)
    game = Game("Base+MLP")
    for _ in range(16):
        mover = player if game.side_to_move == 0 else opponent
        move = mover.choose(game)
        assert move in game.legal_moves()
        game.play(move)
    # After its move and the reply, the kept tree is the current position's.
    assert player._mcts.root_visits(0) >= 1
    assert player.choose(game, Budget(sims=4)) in game.legal_moves()
    assert player.choose(game, Budget(time_s=0.3)) in game.legal_moves()


def test_same_seed_same_moves(ckpt):
    games = []
    for _ in range(2):
        player = make_player(f"alphazero:ckpt={ckpt},sims=12,gumbel=1,device=cpu", seed=5)
        game = Game("Base")
        for _ in range(6):
            game.play(player.choose(game))
        games.append(game.game_string())
    assert games[0] == games[1]


def test_bad_specs_are_refused(ckpt, tmp_path):
    with pytest.raises(PlayerSpecError, match="no checkpoint"):
        make_player(f"alphazero:ckpt={tmp_path / 'missing.pt'}")
    with pytest.raises(PlayerSpecError, match="sims"):
        make_player(f"alphazero:ckpt={ckpt},sims=zero")
    with pytest.raises(PlayerSpecError, match="cpuct"):
        make_player("alphazero:cpuct=-1")
    assert make_player("alphazero:sims=4").sims == 4  # no ckpt=: the shipped network (test_shipped_model)
    for bad in ("-0.1", "2", "much"):
        with pytest.raises(PlayerSpecError, match="contempt"):
            make_player(f"alphazero:ckpt={ckpt},contempt={bad}")


def test_records_the_value_it_moved_on(ckpt):
    player = make_player(f"alphazero:ckpt={ckpt},sims=16,device=cpu", seed=1)
    player.choose(Game.from_string(WIN_IN_ONE))
    assert set(player.last_stats) == {"sims", "value_milli"} and player.last_stats["sims"] == player.last_sims
    assert player.last_stats["value_milli"] > 500  # the root's mean: most of its visits found the win
    player.choose(Game("Base"))
    assert -500 < player.last_stats["value_milli"] < 500


@pytest.mark.parametrize("contempt", [0.0, 0.2])
def test_a_tree_searched_for_the_other_side_is_kept_only_without_contempt(ckpt, contempt, monkeypatch):
    player = make_player(f"alphazero:ckpt={ckpt},sims=32,device=cpu,contempt={contempt}", seed=1)
    assert player.config.contempt == contempt
    game = Game("Base")
    game.play(player.choose(game))
    dropped = []
    monkeypatch.setattr(player._mcts, "reset", lambda *games: dropped.append(games))
    player.choose(game)  # the other side's move (one player for both, as hive-web's hints)
    assert (() in dropped) == bool(contempt)


def test_answers_bestmove_through_hive_uhp(ckpt):
    spec = f"alphazero:ckpt={ckpt},sims=8,device=cpu"
    script = "newgame Base+MLP\nplay wS1\nbestmove depth 1\nbestmove time 00:00:01\n"
    out = subprocess.run([sys.executable, "-m", "scripts.uhp_engine", "--player", spec], cwd=ROOT,
                         input=script, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    replies = [lines[i - 1] for i, line in enumerate(lines) if line == "ok"][1:]  # after info
    game = Game.from_string(replies[1])
    for reply in replies[2:]:
        assert game.parse_move(reply) in game.legal_moves()


def test_plays_through_hive_play(ckpt, tmp_path):
    record = tmp_path / "game.txt"
    out = subprocess.run([sys.executable, "-m", "scripts.play", "--opponent", f"alphazero:ckpt={ckpt},sims=4",
                          "--game-type", "Base", "--out", str(record)], cwd=ROOT, input="wS1\nmoves\nquit\n",
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    game = Game.from_string(record.read_text().strip())
    assert game.ply == 2 and game.move_strings[0] == "wS1"


def test_warns_once_past_the_ply_cap_its_network_learnt_under(tmp_path):
    path = save_checkpoint(tmp_path / "capped.pt", build_model("tiny"), step=1, lineage={"ply_cap": 6})
    player = make_player(f"alphazero:ckpt={path},sims=4,device=cpu", seed=0)
    assert player.trained_ply_cap == 6
    game = Game()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning before the cap
        for _ in range(6):
            game.play(player.choose(game))
    with pytest.warns(UserWarning, match="a game past ply 6, the ply cap of the games its network"):
        game.play(player.choose(game))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # once
        player.choose(game)
    plain = save_checkpoint(tmp_path / "plain.pt", build_model("tiny"))
    assert make_player(f"alphazero:ckpt={plain},sims=4,device=cpu", seed=0).trained_ply_cap is None
