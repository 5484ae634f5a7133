"""The vectorized env: contract, ply-by-ply agreement with Game, terminals, errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from hive_env import BLACK_WINS, DRAW, GAME_TYPES, IN_PROGRESS, WHITE_WINS, Game
from hive_env.actions import IllegalActionError, action_to_move, move_to_action, pass_action, string_to_action
from hive_env.board import BOARD_SIZE, HIST, PLY, STATUS
from hive_env.encode import OBS_FIELDS, observe
from hive_env.errors import HiveError
from hive_env.grid import hex_of
from hive_env.pieces import parse_game_type
from hive_env.position import board_from_tiles
from hive_env.vec_env import CHUNK, HiveVecEnv, _reset_parallel, _step_parallel, _step_serial

PASS_POSITION = ("Base;InProgress;White[7];wA1;bS1 wA1-;wQ -wA1;bQ bS1/;wQ \\wA1;bA1 bS1\\;wQ -wA1;"
                 "bA2 bQ\\;wQ \\wA1;bA1 \\wQ;wG1 /wQ;bA2 /wG1")


def random_actions(obs, rng) -> np.ndarray:
    rows = np.arange(len(obs["n_legal"]))
    pick = (rng.random(len(rows)) * obs["n_legal"]).astype(np.int64)
    return obs["legal_actions"][rows, pick]


def test_contract():
    env = HiveVecEnv(3, "Base", ply_cap=50)
    obs, info = env.reset(seed=1)
    assert tuple(obs) == OBS_FIELDS and info == {}
    assert env.boards.shape == (3, BOARD_SIZE) and env.boards.dtype == np.int16
    assert env.hists.shape == (3, HIST) and env.hists.dtype == np.uint64
    assert obs["legal_mask"].shape == (3, 3389) and obs["n_legal"].tolist() == [4, 4, 4]
    assert env.legal_mask is obs["legal_mask"] and env.observe() is obs
    out = env.step(random_actions(obs, np.random.default_rng(0)))
    obs2, rewards, terminated, truncated, info = out
    assert obs2 is obs  # preallocated, overwritten in place
    assert rewards.dtype == np.float32 and rewards.shape == (3,)
    assert terminated.dtype == np.bool_ and truncated.dtype == np.bool_
    assert info["final_status"].dtype == np.int8 and info["episode_length"].dtype == np.int32
    assert env.current_player.tolist() == [1, 1, 1]
    for key, arr in obs.items():
        assert arr.flags["C_CONTIGUOUS"] and np.shares_memory(torch.from_numpy(arr).numpy(), arr), key
    for kernel in (_step_parallel, _step_serial, _reset_parallel):
        assert kernel.targetoptions["nogil"]
    assert _step_parallel.targetoptions["parallel"]


def run_against_games(game_type: str, num_envs: int, steps: int, ply_cap: int, seed: int) -> dict:
    """Step the env and a list of ``Game`` objects side by side; compare every ply."""
    env = HiveVecEnv(num_envs, game_type, ply_cap=ply_cap)
    games = [Game(game_type, ply_cap=ply_cap) for _ in range(num_envs)]
    rng = np.random.default_rng(seed)
    obs, _ = env.reset()
    seen = {"terminated": 0, "truncated": 0}
    for _ in range(steps):
        actions = random_actions(obs, rng)
        moves = [action_to_move(g.board, int(a)) for g, a in zip(games, actions, strict=True)]
        obs, rewards, terminated, truncated, info = env.step(actions)
        for b, (game, move) in enumerate(zip(games, moves, strict=True)):
            mover = game.side_to_move
            game.play(move)  # raises if the env accepted an illegal move
            status = game.status
            assert info["final_status"][b] == status
            if status == IN_PROGRESS:
                assert not terminated[b] and not truncated[b] and rewards[b] == 0
                assert info["episode_length"][b] == 0
            else:
                win = {WHITE_WINS: 0, BLACK_WINS: 1}.get(status)
                assert rewards[b] == (0.0 if win is None else (1.0 if win == mover else -1.0))
                capped = status == DRAW and game.ply >= ply_cap > 0
                assert truncated[b] == capped and terminated[b] == (not capped)
                assert info["episode_length"][b] == game.ply
                seen["truncated" if capped else "terminated"] += 1
                games[b] = game = Game(game_type, ply_cap=ply_cap)
            np.testing.assert_array_equal(env.boards[b], game.board)
            np.testing.assert_array_equal(env.hists[b], game.hist)
        check = int(rng.integers(num_envs))
        single = observe(games[check].board)
        for key in OBS_FIELDS:  # a game's row does not depend on the other games
            np.testing.assert_array_equal(obs[key][check], single[key], err_msg=key)
    return seen


@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_steps_agree_with_game(game_type):
    seen = run_against_games(game_type, num_envs=CHUNK + 3, steps=70, ply_cap=31, seed=7)
    assert seen["truncated"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("game_type", ["Base", "Base+MLP", "Base+P"])
def test_steps_agree_with_game_long(game_type):
    seen = run_against_games(game_type, num_envs=40, steps=600, ply_cap=150, seed=3)
    assert seen["truncated"] > 0


def test_win_loss_and_draw_are_terminations():
    env = HiveVecEnv(3, "Base", ply_cap=100)
    # Black's ant slides into the last cell around the white queen: Black wins.
    win, win_hist = board_from_tiles("Base", [
        ("wQ", 0, 0), ("wS1", 1, -1), ("wS2", 1, 0), ("bS1", 0, 1), ("bS2", -1, 1), ("wB1", -1, 0),
        ("bA1", 1, -2), ("bQ", 0, 2)], ply=9)
    # Black's ant fills the cell both queens share: both surrounded, a draw.
    draw, draw_hist = board_from_tiles("Base", [
        ("wQ", 0, 0), ("bQ", 1, 0), ("wS1", 0, 1), ("wS2", -1, 1), ("wB1", -1, 0), ("wB2", 0, -1),
        ("bS1", 2, -1), ("bS2", 2, 0), ("bB1", 1, 1), ("bA1", 1, -2)], ply=17)
    env.set_state(0, win, win_hist)
    env.set_state(1, draw, draw_hist)
    actions = np.array([
        move_to_action(win, 22 * 1024 + hex_of(0, -1)),  # bA1 is piece 14 + 8
        move_to_action(draw, 22 * 1024 + hex_of(1, -1)),
        int(env.observe()["legal_actions"][2, 0]),
    ])
    _, rewards, terminated, truncated, info = env.step(actions)
    assert info["final_status"].tolist() == [BLACK_WINS, DRAW, IN_PROGRESS]
    assert rewards.tolist() == [1.0, 0.0, 0.0]
    assert terminated.tolist() == [True, True, False] and not truncated.any()
    assert info["episode_length"].tolist() == [10, 18, 0]
    assert env.boards[0, PLY] == 0 and env.boards[1, PLY] == 0 and env.boards[2, PLY] == 1


def test_ply_cap_truncates_and_resets():
    env = HiveVecEnv(4, "Base+M", ply_cap=6)
    obs, _ = env.reset()
    rng = np.random.default_rng(1)
    for _ in range(6):
        obs, rewards, terminated, truncated, info = env.step(random_actions(obs, rng))
    assert truncated.all() and not terminated.any() and (rewards == 0).all()
    assert (info["final_status"] == DRAW).all() and (info["episode_length"] == 6).all()
    assert (env.boards[:, PLY] == 0).all() and (obs["n_legal"] == 5).all()  # 5 kinds to open with


def test_forced_pass():
    game = Game.from_string(PASS_POSITION)
    env = HiveVecEnv(2, "Base")
    env.set_state(1, game.board, game.hist)
    obs = env.observe()
    a = pass_action("Base")
    assert obs["n_legal"][1] == 1 and obs["legal_actions"][1, 0] == a
    assert obs["legal_src"][1, 0] == -1 and obs["legal_dst"][1, 0] == -1
    assert obs["legal_mask"][1].sum() == 1 and obs["legal_mask"][1, a]
    env.step(np.array([int(obs["legal_actions"][0, 0]), a]))
    game.play("pass")
    np.testing.assert_array_equal(env.boards[1], game.board)


def test_illegal_action_raises_and_changes_nothing():
    env = HiveVecEnv(CHUNK + 4, "Base+MLP", ply_cap=100)
    rng = np.random.default_rng(2)
    obs, _ = env.reset()
    for _ in range(9):
        obs, *_ = env.step(random_actions(obs, rng))
    n_actions = env.num_actions
    good = random_actions(obs, rng)
    illegal_canonical = next(a for a in range(n_actions - 1) if not obs["legal_mask"][5, a]
                             and _decodes(env.boards[5], a))
    for bad_index, bad_action in [(5, illegal_canonical), (0, -1), (CHUNK + 3, n_actions), (2, 0)]:
        before = {k: v.copy() for k, v in obs.items()}
        boards, hists = env.boards.copy(), env.hists.copy()
        actions = good.copy()
        actions[bad_index] = bad_action
        with pytest.raises(IllegalActionError, match=f"game {bad_index}: action {bad_action}"):
            env.step(actions)
        np.testing.assert_array_equal(env.boards, boards)
        np.testing.assert_array_equal(env.hists, hists)
        for key in OBS_FIELDS:
            np.testing.assert_array_equal(env.observe()[key], before[key])
    with pytest.raises(IllegalActionError, match="integer actions"):
        env.step(good[:3])
    env.step(good)  # still usable


def _decodes(board, action) -> bool:
    try:
        action_to_move(board, action)
    except IllegalActionError:
        return False
    return True


def test_get_and_set_state():
    env = HiveVecEnv(3, "Base+LP", ply_cap=80)
    rng = np.random.default_rng(4)
    obs, _ = env.reset()
    for _ in range(12):
        obs, *_ = env.step(random_actions(obs, rng))
    board, hist = env.get_state(1)
    saved = {k: v[1].copy() for k, v in obs.items()}
    for _ in range(3):
        obs, *_ = env.step(random_actions(obs, rng))
    env.set_state(1, board, hist)
    np.testing.assert_array_equal(env.boards[1], board)
    for key in OBS_FIELDS:
        np.testing.assert_array_equal(obs[key][1], saved[key], err_msg=key)
    top0 = int(env.boards[1, 0])
    board[0] = 123  # set_state copied: the env is unaffected
    assert env.boards[1, 0] == top0
    finished = env.get_state(2)[0]
    finished[STATUS] = WHITE_WINS
    with pytest.raises(HiveError, match="finished"):
        env.set_state(0, finished, hist)
    with pytest.raises(HiveError, match="another game type"):
        env.set_state(0, Game("Base").board, hist)
    assert parse_game_type("Base+LP") == env.expansions


def test_string_actions_in_env():
    env = HiveVecEnv(1, "Base")
    env.step(np.array([string_to_action(env.boards[0], "wS1")]))
    env.step(np.array([string_to_action(env.boards[0], "bG1 wS1-")]))
    want = Game.from_string("Base;InProgress;White[2];wS1;bG1 wS1-", ply_cap=env.ply_cap)
    np.testing.assert_array_equal(env.boards[0], want.board)
