"""Self-play: playout-cap randomisation, proven targets, final queen pressure, avoiding repetitions."""

from __future__ import annotations

import numpy as np
import pytest

from hive_env import BLACK_WINS, DRAW, WHITE_WINS, Game
from hive_env.board import PLY, repeats
from hive_env.outcome import adjudicate, queen_pressure
from hive_env.tactics import PROVEN_DRAW, PROVEN_LOSS, PROVEN_WIN, UNPROVEN
from search.mcts import SearchConfig
from training.selfplay import SelfPlay, SelfPlayConfig, sharpen_targets, unrepeated_choice

from helpers import SHUFFLE


def play_out(config: SelfPlayConfig, sims: int = 8, ply_cap: int = 24, seed: int = 0):
    """Self-play with the hashed fake network until every game finished once."""
    from helpers import hashed_evaluate

    sp = SelfPlay(config, SearchConfig(sims=sims), "Base", ply_cap, hashed_evaluate, seed=seed)
    finished, steps = [], 0
    while len(finished) < config.games:
        finished += sp.step()
        steps += 1
    return sp, finished, steps


def test_playout_cap_randomisation_records_only_full_searches():
    full = SelfPlayConfig(games=4)
    sp_full, games_full, steps = play_out(full)
    assert all(len(g.samples) == g.plies for g in games_full)
    assert sp_full.mcts.timings["sims"] == 8 * 4 * steps  # every move a full search
    pcr = SelfPlayConfig(games=4, full_search_prob=0.3, fast_sims=2)
    sp, games, steps = play_out(pcr)
    recorded = sum(len(g.samples) for g in games)
    plies = sum(g.plies for g in games)
    assert 0 < recorded < 0.6 * plies
    assert sp.mcts.timings["sims"] < 8 * 4 * steps  # the fast moves ran 2 simulations
    for g in games:
        s = g.samples
        assert (s.plies_left + s.board[:, PLY] == g.plies).all()  # plies left of each recorded ply
        assert s.q.dtype == np.float16 and (np.abs(s.q.astype(np.float32)) <= 1).all()
        assert len(Game.from_string(g.game_string).moves) == g.plies  # the record keeps every move
    with pytest.raises(ValueError, match="fast_sims"):
        SelfPlay(SelfPlayConfig(full_search_prob=0.5, fast_sims=16), SearchConfig(sims=8), "Base", 24,
                 None, seed=0)


def test_sharpened_targets_follow_the_proofs():
    u, lo, dr, w = UNPROVEN, PROVEN_LOSS, PROVEN_DRAW, PROVEN_WIN
    policy = np.array([0.4, 0.3, 0.2, 0.1, 0.0], np.float32)  # 4 legal moves, one padding slot
    won, q = sharpen_targets(policy, 0.2, np.array([u, w, lo, w, 0], np.int8), 4, w)
    np.testing.assert_allclose(won, [0, 0.5, 0, 0.5, 0])
    assert q == 1.0
    drawn, q = sharpen_targets(policy, 0.2, np.array([lo, dr, lo, lo, 0], np.int8), 4, dr)
    np.testing.assert_allclose(drawn, [0, 1, 0, 0, 0])
    assert q == 0.0
    open_, q = sharpen_targets(policy, 0.2, np.array([u, lo, u, lo, 0], np.int8), 4, u)
    np.testing.assert_allclose(open_, [2 / 3, 0, 1 / 3, 0, 0], rtol=1e-6)
    assert q == pytest.approx(0.2)
    lost, q = sharpen_targets(policy, 0.2, np.array([lo, lo, lo, lo, 0], np.int8), 4, lo)
    np.testing.assert_allclose(lost, policy)
    assert q == -1.0


def test_proven_targets_change_only_the_labels_of_proven_positions():
    changed = 0
    for seed in (0, 1):  # two seeds' games, so that some hold a proven position whatever the streams
        plain = play_out(SelfPlayConfig(games=8), ply_cap=60, seed=seed)[1]
        sharp = play_out(SelfPlayConfig(games=8, proven_targets=True), ply_cap=60, seed=seed)[1]
        assert [g.game_string for g in plain] == [g.game_string for g in sharp]  # the same games
        changed += proven_label_changes(plain, sharp)
    assert changed > 0


def proven_label_changes(plain: list, sharp: list) -> int:
    """How many positions' labels differ between the same games played without and with proven
    targets; asserts that the sharp labels stay distributions and a proven win's is a win."""
    changed = 0
    for a, b in zip(plain, sharp, strict=True):
        differs = (a.samples.policy != b.samples.policy).any(axis=1) | (a.samples.q != b.samples.q)
        changed += int(differs.sum())
        np.testing.assert_allclose(b.samples.policy.astype(np.float32).sum(axis=1), 1.0, atol=2e-3)
        if a.status in (WHITE_WINS, BLACK_WINS) and differs[-1]:
            assert b.samples.q[-1] == 1.0  # the winning move's position: proven won
    return changed


def test_samples_carry_the_final_queen_pressure_of_both_sides():
    _, games, _ = play_out(SelfPlayConfig(games=6, adjudicate_margin=1), ply_cap=40)
    assert any(g.samples.pressure.max() > 0 for g in games)
    for g in games:
        final = Game.from_string(g.game_string).board  # the position the game ended in
        white, black = queen_pressure(final, 0), queen_pressure(final, 1)
        mover = g.samples.board[:, PLY] & 1
        np.testing.assert_array_equal(g.samples.pressure[:, 0], np.where(mover == 0, white, black))
        np.testing.assert_array_equal(g.samples.pressure[:, 1], np.where(mover == 0, black, white))
        if g.truncated:  # a capped game's label is the adjudication of that position
            assert g.status == adjudicate(final, 1)


# ----- trainer ---------------------------------------------------------------------------------


def test_the_choice_avoids_a_move_that_repeats_a_position_when_another_exists():
    record = Game.from_string(SHUFFLE)
    game = Game("Base")
    for move in record.moves[:-1]:  # white to move, the last move returns to a position seen
        game.play(move)
    legal = game.legal_moves()
    back = int(np.flatnonzero(legal == record.moves[-1])[0])
    assert repeats(game.board, game.hist, int(legal[back]))
    policy = np.linspace(1.0, 2.0, len(legal)).astype(np.float32)[None]  # the last slot most likely...
    policy[0, back] = 5.0  # ...after the repeating move, which the search chose
    args = (game.board[None], game.hist[None], legal[None], policy, np.array([len(legal)]))
    expected = max((s for s in range(len(legal)) if not repeats(game.board, game.hist, int(legal[s]))),
                   key=lambda s: policy[0, s])
    assert unrepeated_choice(*args, np.array([back]))[0] == expected
    assert unrepeated_choice(*args, np.array([0]))[0] == 0  # a choice that repeats nothing stays
    only = (game.board[None], game.hist[None], legal[None, [back]], policy[:, [back]], np.array([1]))
    assert unrepeated_choice(*only, np.array([0]))[0] == 0  # the only move is played even so


def repetition_draws(games) -> int:
    return sum(g.status == DRAW and not g.truncated for g in games)


def test_avoiding_repetitions_turns_shuffling_games_into_played_out_ones():
    shuffling = SelfPlayConfig(games=8, temperature_plies=0)
    _, games, _ = play_out(shuffling, ply_cap=80)
    assert repetition_draws(games) >= 2  # the hashed network's choices cycle
    _, games, _ = play_out(SelfPlayConfig(games=8, temperature_plies=0, avoid_repetition=True), ply_cap=80)
    assert repetition_draws(games) == 0
    for g in games:  # no position seen twice with the same side to move
        replay, seen = Game("Base"), set()
        for move in Game.from_string(g.game_string).moves:
            assert (replay.hash, replay.ply % 2) not in seen, g.game_string
            seen.add((replay.hash, replay.ply % 2))
            replay.play(move)
