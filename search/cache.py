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
an entry with its logits). Capacity 0 turns it off.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable

import numpy as np
from numba import njit

from .leaves import BOARD_SIZE, POS

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
        self._entries: OrderedDict[int, tuple[np.ndarray, float]] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        self._entries.clear()

    def evaluate(self, evaluate: Callable, obs: dict[str, np.ndarray],
                 boards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``evaluate(obs)`` for the positions ``boards`` (the rows of ``obs``), asking the
        network only for those not cached; returns (logits [K, M] float32, values [K] float32)."""
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
        n_legal = obs["n_legal"]
        for i in miss:
            if len(entries) >= self.capacity:
                entries.popitem(last=False)  # O(1); next(iter(dict)) walks the deleted slots
            entries[keys[i]] = (logits[i, : n_legal[i]].copy(), float(values[i]))
        return logits, values


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
