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
