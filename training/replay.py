"""Replay storage: self-play samples in atomically written shards, sampled as a sliding window.

A *sample* is one position searched in self-play (:class:`Samples`); a *shard*
(``shard_<worker>_<seq>.npz``) holds some finished games' samples and is written atomically, so
readers never see a partial one, and a damaged one is skipped with one warning. Game records go
to ``games_<worker>.txt`` beside the shards. :class:`ReplayStore` is the only channel from
self-play to the trainer (with the checkpoint store back).

See docs/training.md and docs/reliability.md (damaged files).
"""

from __future__ import annotations

import os
import re
import struct
import tokenize
import warnings
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import njit, prange

from hive_env.board import BOARD_SIZE, HIST, PASS, move_dest, move_of, move_piece
from hive_env.files import atomic_open, naming
from hive_env.parallel import launching
from hive_env.rules import MAX_MOVES, generate_moves
from hive_env.symmetry import HEX_MAPS, N_SYMMETRIES, transform_board

SHARD_VERSION = 3
FIELDS = ("board", "policy", "n_legal", "z", "plies_left", "q", "pressure")
FIELD_SINCE = {"q": 2, "pressure": 3}
"""The shard version that added each field (the others: version 1)."""
_SHARD_RE = re.compile(r"^shard_(\d+)_(\d+)\.npz$")
DAMAGE = (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, zlib.error, struct.error,
          NotImplementedError, SyntaxError, tokenize.TokenError, MemoryError)
"""What reading a damaged shard raises (a truncated archive, a bad CRC, a flipped byte in a
compressed stream, a header or a compression method; numpy's parse of a bad array header, or
an array shape too large to allocate)."""


@dataclass
class Samples:
    """A batch of samples (arrays with a leading sample axis). One sample is::

        board      [BOARD_SIZE] int16   the position (hive_env.board layout)
        policy     [M] float16          search policy over the position's legal-move slots, in
                                        move-generation order (= the observation's legal order)
        n_legal    int16                number of legal moves (slots used in ``policy``)
        z          int8                 final result from the side to move's view (+1/0/-1)
        plies_left int16                plies until the game ended (auxiliary target)
        q          float16              the search's root value, side to move's view (value
                                        targets may mix it with z, ``train.value_target_q``)
        pressure   [2] int8             occupied neighbours of the side to move's queen, then of
                                        the other queen, at the end of the game (auxiliary target)
    """

    board: np.ndarray
    policy: np.ndarray
    n_legal: np.ndarray
    z: np.ndarray
    plies_left: np.ndarray
    q: np.ndarray
    pressure: np.ndarray

    def __len__(self) -> int:
        return len(self.z)

    @staticmethod
    def empty(max_legal: int) -> Samples:
        """No samples, with the field shapes and dtypes of real ones."""
        return Samples(np.zeros((0, BOARD_SIZE), np.int16), np.zeros((0, max_legal), np.float16),
                       np.zeros(0, np.int16), np.zeros(0, np.int8), np.zeros(0, np.int16),
                       np.zeros(0, np.float16), np.zeros((0, 2), np.int8))

    @staticmethod
    def concat(parts: list[Samples]) -> Samples:
        return Samples(*(np.concatenate([getattr(p, f) for p in parts]) for f in FIELDS))

    def take(self, idx: np.ndarray) -> Samples:
        return Samples(*(getattr(self, f)[idx] for f in FIELDS))


@dataclass
class Shard:
    """What one self-play worker hands the replay store at a time: the samples of some finished
    games, per-game stats (``stat_*`` arrays in the shard file) and the games' UHP GameStrings."""

    samples: Samples
    stats: dict[str, np.ndarray]
    games: list[str]


class ReplayStore:
    """A directory of shards.

    A shard ``shard_<worker>_<seq>.npz`` holds the :class:`Samples` arrays with a leading sample
    axis plus ``version`` (version 1 shards, from before ``q``, are read with ``q = z``; versions
    1 and 2, from before ``pressure``, with ``pressure = -1``: unknown); it is written atomically
    (``hive_env.files``). A shard damaged on disk (truncated, bytes flipped: the zip archive's
    CRCs, its arrays' shapes) is skipped with one warning naming it (through ``warn``) and
    remembered in :attr:`damaged`, so it is neither read nor warned about again (the run counts
    them in TensorBoard, ``replay/damaged_shards``). Game records (UHP GameStrings) go to
    ``games_<worker>.txt``, appended and synced per shard; an append after a torn last line (a
    worker killed in the middle of one) starts on a new line. A distributed backend can replace
    the store with the same three methods.

    Args:
        directory: the shards' directory (created).
        warn: where the one warning about each damaged shard goes (the run: its log; default
            ``warnings.warn``).
    """

    def __init__(self, directory: str | Path, warn: Callable[[str], None] | None = None):
        self.dir = Path(directory)
        self.dir.mkdir(parents=True, exist_ok=True)
        self._cache: dict[str, Samples] = {}
        self._lengths: dict[str, int] = {}
        self.warn = warn
        self.damaged: dict[str, str] = {}
        """Damaged shards found by this store: file name -> what is wrong (each warned about once)."""

    # ----- writing ------------------------------------------------------------------------
    def write_shard(self, worker: int, samples: Samples, stats: dict[str, np.ndarray] | None = None) -> Path:
        """Write a shard atomically; its sequence number follows the worker's last one.

        ``stats`` (per-game arrays such as lengths and results) is stored beside the
        samples for logging, read back by :meth:`stats`.
        """
        seq = max((s for w, s, _ in self._shards() if w == worker), default=-1) + 1
        path = self.dir / f"shard_{worker:03d}_{seq:06d}.npz"
        with atomic_open(path, "wb") as f:
            np.savez_compressed(f, version=np.int32(SHARD_VERSION),
                                **{k: getattr(samples, k) for k in FIELDS},
                                **{f"stat_{k}": np.asarray(v) for k, v in (stats or {}).items()})
        return path

    def append_games(self, worker: int, game_strings: list[str]) -> None:
        """Append game records (one GameString per line) for a worker, synced. A torn last line
        (a worker killed in the middle of an append) is ended first, so the new records start on
        a line of their own; a full disk names the file."""
        if not game_strings:
            return
        path = self.dir / f"games_{worker:03d}.txt"
        text = "".join(g + "\n" for g in game_strings).encode("utf-8")
        with naming(path), open(path, "ab+") as f:
            if f.tell() > 0:
                f.seek(-1, os.SEEK_END)
                if f.read(1) != b"\n":
                    text = b"\n" + text
            f.write(text)
            f.flush()
            os.fsync(f.fileno())

    def add(self, worker: int, shard: Shard) -> Path:
        """Write a worker's shard and append its games' records."""
        path = self.write_shard(worker, shard.samples, shard.stats)
        self.append_games(worker, shard.games)
        return path

    def remove_temp(self, worker: int) -> list[Path]:
        """Delete the temp files of ``worker``'s unfinished shard writes (``.shard_<w>_*.tmp``,
        left by a worker killed in the middle of a write; only while it is not running).
        Returns them."""
        gone = sorted(self.dir.glob(f".shard_{worker:03d}_*.tmp"))
        for p in gone:
            p.unlink(missing_ok=True)
        return gone

    # ----- reading ------------------------------------------------------------------------
    def shard_count(self, worker: int) -> int:
        """How many shards ``worker`` has written."""
        return sum(1 for w, _, _ in self._shards() if w == worker)

    def _shards(self) -> list[tuple[int, int, Path]]:
        out = []
        for p in self.dir.iterdir():
            m = _SHARD_RE.match(p.name)
            if m:
                out.append((int(m.group(1)), int(m.group(2)), p))
        return out

    def shard_paths(self) -> list[Path]:
        """All complete shards, oldest first: by sequence number, then worker.

        Each worker numbers its shards 0, 1, 2, ...; workers write at similar rates, so this
        order follows time without trusting file times (copies and restores change those)."""
        shards = self._shards()
        shards.sort(key=lambda t: (t[1], t[0]))
        return [p for _, _, p in shards]

    def load(self, path: Path) -> Samples | None:
        """One shard (cached), or None when it is damaged (:meth:`_found_damaged`: one warning,
        never read again)."""
        key = path.name
        if key in self.damaged:
            return None
        if key not in self._cache:
            try:
                with np.load(path) as data:
                    version = int(data["version"])
                    if not 1 <= version <= SHARD_VERSION:
                        raise ValueError(f"shard version {version}, expected {SHARD_VERSION}")
                    arrays = {k: data[k] for k in FIELDS if version >= FIELD_SINCE.get(k, 1)}
                    arrays.setdefault("q", arrays["z"].astype(np.float16))
                    arrays.setdefault("pressure", np.full((len(arrays["z"]), 2), -1, np.int8))
                    samples = Samples(**arrays)
                    if len({len(getattr(samples, f)) for f in FIELDS}) != 1:
                        raise ValueError("its arrays differ in length")
                    self._cache[key] = samples
            except DAMAGE as e:
                self._found_damaged(path, e)
                return None
        return self._cache[key]

    def stats(self, path: Path) -> dict[str, np.ndarray]:
        """The per-game stats stored with a shard (empty when it has none). A damaged shard is
        reported as :meth:`load` does (one warning, :attr:`damaged`) and gives none."""
        if path.name in self.damaged:
            return {}
        try:
            with np.load(path) as data:
                return {k[5:]: data[k] for k in data.files if k.startswith("stat_")}
        except DAMAGE as e:
            self._found_damaged(path, e)
            return {}

    def _found_damaged(self, path: Path, error: BaseException) -> None:
        """Remember a damaged shard (its samples leave the window) and warn once, naming it."""
        what = " ".join(str(error).split()) or type(error).__name__
        self.damaged[path.name] = what
        self._cache.pop(path.name, None)
        self._lengths[path.name] = 0
        message = f"skipping damaged replay shard {path}: {what}"
        if self.warn is None:
            warnings.warn(message, stacklevel=3)
        else:
            self.warn(message)

    def count(self) -> int:
        """Samples in all readable shards (each shard's size is read once)."""
        total = 0
        for p in self.shard_paths():
            if p.name not in self._lengths:
                s = self.load(p)
                self._lengths[p.name] = 0 if s is None else len(s)
            total += self._lengths[p.name]
        return total

    def _recent(self, size: int) -> list[Samples]:
        """Whole shards, oldest first, that hold the most recent ``size`` samples; the cache
        keeps just these (and the next few to come)."""
        parts, total = [], 0
        paths = self.shard_paths()
        for p in reversed(paths):
            s = self.load(p)
            if s is None:
                continue
            parts.append((p.name, s))
            total += len(s)
            if total >= size:
                break
        keep = {name for name, _ in parts}
        for name in list(self._cache):
            if name not in keep:
                del self._cache[name]
        return [s for _, s in reversed(parts)]

    def window(self, size: int) -> Samples | None:
        """The most recent ``size`` samples as one array set (tests, analysis), or None."""
        parts = self._recent(size)
        if not parts:
            return None
        pool = Samples.concat(parts)
        return pool.take(np.arange(max(0, len(pool) - size), len(pool)))

    def sample(self, batch: int, window: int, rng: np.random.Generator, augment: bool) -> Samples | None:
        """``batch`` samples drawn uniformly from the most recent ``window`` samples.

        Rows are gathered shard by shard (no copy of the window). With ``augment`` each
        sample goes through a random one of the 12 hex symmetries, its policy target
        following its moves (see :func:`augment_samples`).
        """
        parts = self._recent(window)
        if not parts:
            return None
        sizes = np.array([len(p) for p in parts])
        ends = np.cumsum(sizes)
        total = int(ends[-1])
        idx = rng.integers(max(0, total - window), total, size=batch)
        which = np.searchsorted(ends, idx, side="right")
        local = idx - (ends[which] - sizes[which])
        first = parts[0]
        out = Samples(*(np.empty((batch, *getattr(first, f).shape[1:]), getattr(first, f).dtype)
                        for f in FIELDS))
        for w in np.unique(which):
            rows = which == w
            for f in FIELDS:
                getattr(out, f)[rows] = getattr(parts[w], f)[local[rows]]
        if augment:
            out = augment_samples(out, rng.integers(0, N_SYMMETRIES, size=batch))
        return out


# ----- augmentation ---------------------------------------------------------------------------


@njit(cache=True)
def _remap_policy(board, moved_board, hmap, policy, n, out):
    """Policy slots of ``board`` -> slots of its image ``moved_board`` under ``hmap``."""
    a = np.empty(MAX_MOVES, np.int32)
    b = np.empty(MAX_MOVES, np.int32)
    na = generate_moves(board, a)
    nb = generate_moves(moved_board, b)
    out[:] = 0
    if na != n or nb != n:
        return False
    for i in range(n):
        m = a[i]
        image = m if m == PASS else move_of(move_piece(m), hmap[move_dest(m)])
        found = False
        for j in range(n):
            if b[j] == image:
                out[j] = policy[i]
                found = True
                break
        if not found:
            return False
    return True


@njit(cache=True, parallel=True)
def _remap_all(boards, moved, syms, hmaps, policy, n_legal, out, ok):
    for i in prange(boards.shape[0]):
        ok[i] = _remap_policy(boards[i], moved[i], hmaps[syms[i]], policy[i], n_legal[i], out[i])


def augment_samples(samples: Samples, syms: np.ndarray) -> Samples:
    """Samples moved by hex symmetries ``syms`` [S]: boards transformed, policy slots remapped.

    Legal moves are listed in generation order, which depends on directions, so the target
    of move ``m`` moves to the slot of its image in the transformed board's list.
    """
    boards = samples.board
    moved = np.empty_like(boards)
    for i in range(len(boards)):
        moved[i] = boards[i] if syms[i] == 0 else transform_board(boards[i], np.zeros(HIST, np.uint64),
                                                                  int(syms[i]))[0]
    policy = samples.policy.astype(np.float32)
    out = np.zeros_like(policy)
    ok = np.zeros(len(boards), np.bool_)
    n_legal = samples.n_legal.astype(np.int64)
    with launching():
        _remap_all(boards, moved, syms.astype(np.int64), HEX_MAPS, policy, n_legal, out, ok)
    if not ok.all():
        raise RuntimeError("symmetry augmentation lost a move: engine symmetry broken")
    return Samples(moved, out.astype(samples.policy.dtype), samples.n_legal, samples.z, samples.plies_left,
                   samples.q, samples.pressure)

