"""Replay storage: atomic shards, window sampling, augmentation, older shard versions."""

from __future__ import annotations

import time

import numpy as np
import pytest

from hive_env import PASS
from hive_env.rules import MAX_MOVES, generate_moves
from hive_env.symmetry import transform_move
from training.replay import FIELDS, ReplayStore, augment_samples

from helpers import random_samples


def test_shards_are_written_atomically_and_damage_is_skipped(tmp_path):
    store = ReplayStore(tmp_path)
    a = store.write_shard(0, random_samples(30, seed=1), {"game_plies": np.array([30])})
    store.write_shard(0, random_samples(20, seed=2))
    assert not list(tmp_path.glob("*.tmp"))
    (tmp_path / "shard_001_000000.npz.tmp").write_bytes(b"partial")  # a writer died mid-write
    assert store.count() == 50
    assert store.stats(a)["game_plies"].tolist() == [30]
    (tmp_path / "shard_002_000000.npz").write_bytes(b"garbage")
    fresh = ReplayStore(tmp_path)
    with pytest.warns(UserWarning, match="damaged"):
        assert fresh.count() == 50


def test_window_sampling_draws_only_recent_positions(tmp_path):
    store = ReplayStore(tmp_path)
    old = random_samples(40, seed=3)
    old.z[:] = 1
    store.write_shard(0, old)
    time.sleep(0.01)
    new = random_samples(40, seed=4)
    new.z[:] = -1
    store.write_shard(0, new)
    rng = np.random.default_rng(0)
    batch = store.sample(256, window=40, rng=rng, augment=False)
    assert (batch.z == -1).all()
    batch = store.sample(512, window=80, rng=rng, augment=False)
    assert set(np.unique(batch.z)) == {-1, 1}
    assert len(store.window(50)) == 50


def test_augmentation_moves_policy_targets_with_their_moves():
    samples = random_samples(40, seed=5)
    syms = np.arange(40) % 12
    aug = augment_samples(samples, syms)
    buf = np.empty(MAX_MOVES, np.int32)
    for i in range(40):
        n = generate_moves(samples.board[i], buf)
        orig = {int(buf[j]): float(samples.policy[i, j]) for j in range(n)}
        m = generate_moves(aug.board[i], buf)
        moved = {int(buf[j]): float(aug.policy[i, j]) for j in range(m)}
        assert n == m == samples.n_legal[i]
        for move, p in orig.items():
            image = move if move == PASS else transform_move(move, int(syms[i]))
            assert moved[image] == p
    np.testing.assert_array_equal(aug.z, samples.z)


@pytest.mark.parametrize("version", [1, 2, 3])
def test_older_shards_read_with_what_they_lack_as_defaults(tmp_path, version):
    """Version 1 shards lack q (read as the result), 1 and 2 the queen pressure (read as -1)."""
    samples = random_samples(12, seed=7)
    lacks = {1: ("q", "pressure"), 2: ("pressure",), 3: ()}[version]
    np.savez(tmp_path / "shard_000_000000.npz", version=np.int32(version),
             **{k: getattr(samples, k) for k in FIELDS if k not in lacks})
    loaded = ReplayStore(tmp_path).window(100)
    assert len(loaded) == 12
    np.testing.assert_array_equal(loaded.q, samples.z.astype(np.float16) if "q" in lacks else samples.q)
    np.testing.assert_array_equal(loaded.pressure, -1 if "pressure" in lacks else samples.pressure)
    assert loaded.pressure.shape == (12, 2) and loaded.pressure.dtype == np.int8
    np.testing.assert_array_equal(loaded.board, samples.board)


# ----- self-play -------------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["truncated", "flipped"])
def test_a_damaged_shard_is_warned_about_once_and_never_read_again(tmp_path, monkeypatch, how):
    writer = ReplayStore(tmp_path)
    writer.write_shard(0, random_samples(30, seed=1), {"game_plies": np.array([30])})
    bad = writer.write_shard(1, random_samples(20, seed=2), {"game_plies": np.array([20])})
    data = bytearray(bad.read_bytes())
    if how == "truncated":
        del data[len(data) // 2:]
    else:
        data[len(data) // 2] ^= 0xFF  # in the middle of the samples: the zip's CRC finds it
    bad.write_bytes(bytes(data))
    warned: list[str] = []
    store = ReplayStore(tmp_path, warn=warned.append)
    assert store.count() == 30
    reads: list[str] = []
    real_load = np.load
    monkeypatch.setattr(np, "load", lambda file, *a, **k: reads.append(str(file)) or real_load(file, *a, **k))
    for seed in range(3):
        assert len(store.sample(8, 100, np.random.default_rng(seed), augment=False)) == 8
    assert store.stats(bad) == {} and store.count() == 30 and store.window(100) is not None
    assert str(bad) not in reads  # found once, never read again
    (line,) = warned
    assert line.startswith(f"skipping damaged replay shard {bad}: ") and "\n" not in line
    assert list(store.damaged) == [bad.name]


def test_stats_of_a_damaged_shard_report_it_as_load_does(tmp_path):
    """The trainer reads a new shard's stats first (its games for TensorBoard): the damage is
    found there, warned about once, and the shard's samples stay out of the window."""
    bad = ReplayStore(tmp_path).write_shard(0, random_samples(20, seed=2), {"game_plies": np.array([20])})
    bad.write_bytes(bad.read_bytes()[:100])
    warned: list[str] = []
    store = ReplayStore(tmp_path, warn=warned.append)
    assert store.stats(bad) == {} and list(store.damaged) == [bad.name]
    assert store.load(bad) is None and store.count() == 0 and store.window(10) is None
    assert len(warned) == 1 and str(bad) in warned[0]


def test_game_records_after_a_torn_last_line_start_on_a_new_line(tmp_path):
    store = ReplayStore(tmp_path)
    store.append_games(0, ["Base;NotStarted;White[1]", "Base;Draw;White[2]"])
    path = tmp_path / "games_000.txt"
    path.write_bytes(path.read_bytes() + b"Base;InProg")  # a worker killed in the middle of an append
    store.append_games(0, ["Base;WhiteWins;Black[9]"])
    assert path.read_text().splitlines() == ["Base;NotStarted;White[1]", "Base;Draw;White[2]", "Base;InProg",
                                             "Base;WhiteWins;Black[9]"]
    store.append_games(0, ["Base;BlackWins;White[9]"])  # after a whole line: no empty line
    assert path.read_text().endswith("Black[9]\nBase;BlackWins;White[9]\n")
