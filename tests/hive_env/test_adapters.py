"""Gymnasium and PettingZoo adapters (optional extras, skipped when not installed)."""

from __future__ import annotations

import numpy as np
import pytest

from hive_env import Game
from hive_env.actions import IllegalActionError, action_to_move, move_to_action
from hive_env.encode import OBS_FIELDS
from hive_env.errors import HiveError

gymnasium = pytest.importorskip("gymnasium")


def play_gym_episode(env, seed: int) -> tuple[float, bool, bool, int]:
    from gymnasium.utils.passive_env_checker import env_step_passive_checker

    obs, info = env.reset(seed=seed)
    env.action_space.seed(seed)
    shadow = Game(env.game_type, ply_cap=env.ply_cap)
    steps = 0
    while True:
        assert env.observation_space.contains(obs)
        mask = info["action_mask"]
        assert mask.dtype == np.int8 and mask.sum() == len(shadow.legal_moves())
        action = int(env.action_space.sample(mask=mask))
        shadow.play(action_to_move(shadow.board, action))
        obs, reward, terminated, truncated, info = env_step_passive_checker(env, action)
        steps += 1
        np.testing.assert_array_equal(env.game.board, shadow.board)
        if terminated or truncated:
            return reward, terminated, truncated, steps
        assert reward == 0.0


def test_gym_env():
    from gymnasium.utils.passive_env_checker import env_reset_passive_checker

    from hive_env.adapters.gym import HiveGymEnv

    env = HiveGymEnv("Base+MLP", ply_cap=40, render_mode="ansi")
    assert isinstance(env, gymnasium.Env) and env.action_space.n == 5489
    obs, info = env_reset_passive_checker(env, seed=0)
    assert tuple(obs) == OBS_FIELDS and info["current_player"] == 0
    for seed in range(3):
        reward, terminated, truncated, steps = play_gym_episode(env, seed=seed)
        assert terminated != truncated
        if truncated:
            assert reward == 0.0 and steps == 40 and "Base+MLP, Draw, ply 40" in env.render()
        else:
            assert steps < 40 and env.game.is_over
    with pytest.raises(HiveError, match="over"):
        env.step(0)
    env.reset()
    strict = HiveGymEnv("Base", illegal_action="raise")
    strict.reset()
    with pytest.raises(IllegalActionError, match="not legal"):
        strict.step(0)
    assert strict.game.ply == 0


def test_gym_illegal_action_forfeits_and_check_env_passes():
    from gymnasium.utils.env_checker import check_env

    from hive_env.adapters.gym import HiveGymEnv

    check_env(gymnasium.make("Hive-v0", game_type="Base", ply_cap=30).unwrapped)  # random, mostly illegal
    env = HiveGymEnv("Base", ply_cap=30, render_mode="ansi")
    obs, info = env.reset()
    env.step(int(np.flatnonzero(info["action_mask"])[0]))  # White's first tile
    before = env.game.board.copy()
    obs, reward, terminated, truncated, info = env.step(0)  # not legal here
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    np.testing.assert_array_equal(env.game.board, before)  # refused, not played
    assert info["current_player"] == 1 and env.observation_space.contains(obs)
    with pytest.raises(HiveError, match="over"):
        env.step(int(np.flatnonzero(info["action_mask"])[0]))
    _, info = env.reset()
    assert "illegal_action" not in info


def test_gym_make_and_ansi_render_shows_the_board():
    import hive_env.adapters.gym  # noqa: F401 - registers Hive-v0

    env = gymnasium.make("Hive-v0", game_type="Base", render_mode="ansi")
    _, info = env.reset(seed=0)
    assert "NotStarted" in env.render()
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    lines = env.render().splitlines()
    assert lines[-1] == "Base, InProgress, Black[1] to move, ply 1"
    assert any("wS1" in line or "wA1" in line or "wG1" in line or "wB1" in line for line in lines[:-1])
    assert ";" not in env.render()  # a board, not a GameString
    env.close()
    other = gymnasium.make("hive_env.adapters.gym:Hive-v0", game_type="Base+M")  # imports the module itself
    assert other.unwrapped.game_type == "Base+M"


@pytest.mark.parametrize(("mover_ant", "ply", "reward"), [("bA1", 9, 1.0), ("wA1", 10, -1.0)])
def test_gym_env_rewards_are_from_the_movers_view(mover_ant, ply, reward):
    """An ant fills the last cell around the white queen: a win for Black, a loss for White."""
    from hive_env.adapters.gym import HiveGymEnv
    from hive_env.grid import hex_of
    from hive_env.pieces import piece_of
    from hive_env.position import board_from_tiles

    board, hist = board_from_tiles("Base", [
        ("wQ", 0, 0), ("wS1", 1, -1), ("wS2", 1, 0), ("bS1", 0, 1), ("bS2", -1, 1), ("wB1", -1, 0),
        (mover_ant, 1, -2), ("bQ", 0, 2)], ply=ply)
    env = HiveGymEnv("Base", ply_cap=0)
    env.reset(options={"game": Game.from_board(board, hist)})
    colour = 0 if mover_ant[0] == "w" else 1
    action = move_to_action(board, piece_of(colour, 4) * 1024 + hex_of(0, -1))
    _, got, terminated, truncated, info = env.step(action)
    assert (got, terminated, truncated) == (reward, True, False)
    assert info["action_mask"].sum() == 0
    env.reset(options={"game_string": "Base;InProgress;White[2];wS1;bS1 wS1-"})
    assert env.game.ply == 2
    with pytest.raises(HiveError):
        env.reset(options={"game_string": "Base+M;NotStarted;White[1]"})


def test_pettingzoo_api():
    pytest.importorskip("pettingzoo")
    from pettingzoo.test import api_test

    from hive_env.adapters.pettingzoo import HivePettingZooEnv

    env = HivePettingZooEnv("Base", ply_cap=60)
    with pytest.warns(UserWarning):  # PettingZoo nags about dict observations and agent names
        api_test(env, num_cycles=150)


def test_pettingzoo_game_flow():
    pytest.importorskip("pettingzoo")
    from hive_env.adapters.pettingzoo import HivePettingZooEnv

    env = HivePettingZooEnv("Base+MLP", ply_cap=20)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    plies = 0
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        other = "black" if agent == "white" else "white"
        assert env.observe(other)["action_mask"].sum() == 0
        if terminated or truncated:
            env.step(None)
            continue
        assert agent == ("white", "black")[env.game.side_to_move]
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal) == int(obs["observation"]["n_legal"])
        env.step(int(rng.choice(legal)))
        plies += 1
    assert plies == 20 and env.agents == []
    env.reset()
    with pytest.raises(IllegalActionError):
        env.step(0)
