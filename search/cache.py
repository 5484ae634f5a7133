"""A bounded cache of network outputs by position, for the search.

In Hive many move orders reach the same position (placements transpose), and a search that
is cut into parts, or a kept tree's root, meets positions it has already evaluated. The
network's output is a function of the board alone (``hive_env.encode`` reads nothing else), so
:class:`EvalCache` keeps, for up to ``capacity`` positions, each one's legal-move logits and
value, keyed by :func:`board_keys`: a 64-bit hash of the whole board but its top-tile table
(which the pieces' positions and stacking determine): every piece's hex, level and the piece
under it, the ply, the last moved piece (the Pillbug's rule depends on it), the status, the
game type and the ply cap. Two boards share a key only by a 64-bit hash collision.

Bounded: past ``capacity`` entries the oldest are dropped first (insertion order; about 1 KB
an entry with its logits, legal moves and action ids). Capacity 0 turns it off.

A leaf the cache holds is not even encoded (:meth:`EvalCache.evaluate_leaves`): its entry keeps
the legal moves and action ids that expanding it needs, so only the misses go through the
encoder and the network.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable

import numpy as np
from numba import njit

from .leaves import BOARD_SIZE, MAX_MOVES, POS

NO_LOGIT = np.float32(-1e9)
"""The logit of a padding slot (``models.gnn.NEG_INF``; search never imports torch)."""

_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)


@njit(cache=True, nogil=True)
def board_keys(boards: np.ndarray) -> np.ndarray:
    """[K] uint64 keys of ``boards [K, BOARD_SIZE] int16`` (FNV-1a over the board from ``POS``,
    then a splitmix64 finaliser so that near boards spread)."""
    k = boards.shape[0]
    out = np.empty(k, np.uint64)
    for i in range(k):
        h = _FNV_OFFSET
        for j in range(POS, BOARD_SIZE):
            h = (h ^ np.uint64(np.int64(boards[i, j]) & 0xFFFF)) * _FNV_PRIME
        h ^= h >> np.uint64(30)
        h *= np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(27)
        h *= np.uint64(0x94D049BB133111EB)
        h ^= h >> np.uint64(31)
        out[i] = h
    return out


class EvalCache:
    """Network outputs by position (module docstring).

    Args:
        capacity: most positions kept; 0 = no caching.

    Attributes:
        hits, misses: positions served from the cache and sent to the network.
    """

    def __init__(self, capacity: int):
        self.capacity = int(capacity)
        self._entries: OrderedDict[int, tuple] = OrderedDict()
        """key -> (logits [n], value, moves [n] or None, action ids [n] or None)"""
        self.hits = 0
        self.misses = 0
        self._buffers: dict[str, np.ndarray] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        self._entries.clear()

    def evaluate(self, evaluate: Callable, obs: dict[str, np.ndarray], boards: np.ndarray,
                 moves: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``evaluate(obs)`` for the positions ``boards`` (the rows of ``obs``), asking the
        network only for those not cached; returns (logits [K, M] float32, values [K] float32).
        ``moves`` ([K, MAX_MOVES], the encoder's): kept with the new entries, so that
        :meth:`evaluate_leaves` can serve them without encoding."""
        k, m = obs["legal_src"].shape
        if self.capacity <= 0:
            self.misses += k
            return _as_outputs(evaluate(obs))
        keys = board_keys(boards).tolist()
        entries = self._entries
        found = [entries.get(key) for key in keys]
        miss = [i for i, e in enumerate(found) if e is None]
        self.hits += k - len(miss)
        self.misses += len(miss)
        if len(miss) == k:
            logits, values = _as_outputs(evaluate(obs))
        else:
            logits = np.full((k, m), NO_LOGIT, np.float32)
            values = np.zeros(k, np.float32)
            if miss:
                sub_logits, values[miss] = _as_outputs(evaluate(_rows(obs, np.asarray(miss))))
                logits[miss, : sub_logits.shape[1]] = sub_logits
            for i, e in enumerate(found):
                if e is not None:
                    logits[i, : e[0].shape[0]] = e[0]
                    values[i] = e[1]
        self._store(keys, miss, logits, values, obs["n_legal"], moves, obs["legal_actions"])
        return logits, values

    def evaluate_leaves(self, evaluate: Callable, encode: Callable, boards: np.ndarray, max_legal: int
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:
        """What expanding the leaves ``boards`` needs, encoding and evaluating only those not
        cached: (logits [K, M], values [K], moves [K, MAX_MOVES], action ids [K, M], legal-move
        counts [K], the seconds spent encoding). ``encode(boards) -> (obs, moves)`` is the leaf
        encoder (``search.leaves.LeafEncoder.encode``); only each row's first ``n_legal`` moves,
        action ids and logits are meaningful (the rest: padding)."""
        k = boards.shape[0]
        cached = self.capacity > 0 and k > 0
        keys = board_keys(boards).tolist() if cached else []
        found = [self._entries.get(key) for key in keys]
        miss = [i for i, e in enumerate(found) if e is None or e[2] is None] if cached else list(range(k))
        self.hits += k - len(miss)
        self.misses += len(miss)
        seconds = 0.0
        if len(miss) == k:  # no hit (or no cache): the encoder's arrays as they are
            start = time.perf_counter()
            obs, moves = encode(boards)
            seconds = time.perf_counter() - start
            if k:
                logits, values = _as_outputs(evaluate(obs))
            else:
                logits, values = np.zeros((1, max_legal), np.float32), np.zeros(1, np.float32)
            actions, n_legal = obs["legal_actions"], obs["n_legal"]
        else:
            logits = np.full((k, max_legal), NO_LOGIT, np.float32)
            values = np.zeros(k, np.float32)
            moves = self._buffer("moves", k, MAX_MOVES)
            actions = self._buffer("actions", k, max_legal)
            n_legal = np.zeros(k, np.int32)
            if miss:
                rows = np.asarray(miss)
                start = time.perf_counter()
                obs, miss_moves = encode(boards[rows])
                seconds = time.perf_counter() - start
                sub_logits, values[rows] = _as_outputs(evaluate(obs))
                logits[rows, : sub_logits.shape[1]] = sub_logits
                moves[rows] = miss_moves
                actions[rows] = obs["legal_actions"]
                n_legal[rows] = obs["n_legal"]
            for i, e in enumerate(found):
                if e is not None and e[2] is not None:
                    n = e[0].shape[0]
                    logits[i, :n], values[i], moves[i, :n], actions[i, :n] = e
                    n_legal[i] = n
        if cached:
            self._store(keys, miss, logits, values, n_legal, moves, actions)
        return logits, values, moves, actions, n_legal, seconds

    def _store(self, keys: list, rows: list[int], logits: np.ndarray, values: np.ndarray, n_legal: np.ndarray,
               moves: np.ndarray | None, actions: np.ndarray) -> None:
        """New entries for ``rows``, the oldest dropped past the capacity."""
        entries = self._entries
        for i in rows:
            if len(entries) >= self.capacity:
                entries.popitem(last=False)  # O(1); next(iter(dict)) walks the deleted slots
            n = n_legal[i]
            entries[keys[i]] = (logits[i, :n].copy(), float(values[i]),
                                None if moves is None else moves[i, :n].copy(), actions[i, :n].copy())

    def _buffer(self, name: str, rows: int, cols: int) -> np.ndarray:
        """A reused int32 ``[rows, cols]`` array (contents undefined)."""
        a = self._buffers.get(name)
        if a is None or a.shape[0] < rows or a.shape[1] != cols:
            a = self._buffers[name] = np.empty((max(rows, 64), cols), np.int32)
        return a[:rows]


NODE_AXIS = ("node_feat", "node_type", "neighbours", "node_mask", "node_hex")
MOVE_AXIS = ("legal_actions", "legal_src", "legal_dst")


def _rows(obs: dict[str, np.ndarray], rows: np.ndarray) -> dict[str, np.ndarray]:
    """The observation rows ``rows``, their node and move axes cut to the rows' largest node and
    legal-move counts (real nodes and moves are prefixes of the padded axes), so that the copy
    costs what the positions hold, not the padding (N and M slots, mostly empty)."""
    nodes = max(1, int(obs["n_nodes"][rows].max())) if "n_nodes" in obs else None
    moves = max(1, int(obs["n_legal"][rows].max()))
    out = {}
    for name, v in obs.items():
        if name in NODE_AXIS and nodes is not None:
            out[name] = v[rows, :nodes]
        elif name in MOVE_AXIS:
            out[name] = v[rows, :moves]
        else:
            out[name] = v[rows]
    return out


def _as_outputs(out: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    logits, values = out
    return np.ascontiguousarray(logits, np.float32), np.ascontiguousarray(values, np.float32)
