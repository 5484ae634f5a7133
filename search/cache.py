"""A bounded cache of network outputs by position, for the search, in flat arrays.

In Hive many move orders reach the same position (placements transpose), and a search cut into
parts, or a kept tree's root, meets positions it has already evaluated. The network's output is
a function of the board alone, so :class:`EvalCache` keeps, for up to ``capacity`` positions,
each one's legal moves, their action ids and logits, and its value, keyed by :func:`board_key`;
a leaf it holds is not even encoded (``search.step``). Bounded, oldest first; capacity 0 is off.

See docs/search.md (inference at CPU speed).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numba import njit

from .leaves import BOARD_SIZE, MAX_MOVES, POS, copy_n

NO_LOGIT = np.float32(-1e9)
"""The logit of a padding slot (``models.gnn.NEG_INF``; search never imports torch)."""
ARENA_MOVES = 96
"""Arena slots per entry of capacity: the mean legal-move count the cache is sized for."""

_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)

STATE_HEAD, STATE_SIZE, STATE_ARENA_HEAD, STATE_HITS, STATE_MISSES = range(5)
"""The fields of ``CacheTable.state``: the next entry slot, live entries, the arena's next slot,
hits, misses."""


@njit(cache=True, nogil=True, inline="always")
def board_key(board: np.ndarray) -> np.uint64:
    """The key of one board (FNV-1a over the board from ``POS``, then a splitmix64 finaliser so
    that near boards spread): a 64-bit hash of the whole board but its top-tile table (which the
    pieces' positions and stacking determine): every piece's hex, level and the piece under it,
    the ply, the last moved piece (the Pillbug's rule depends on it), the status, the game type
    and the ply cap. Two boards share a key only by a 64-bit hash collision."""
    h = _FNV_OFFSET
    for j in range(POS, BOARD_SIZE):
        h = (h ^ np.uint64(np.int64(board[j]) & 0xFFFF)) * _FNV_PRIME
    h ^= h >> np.uint64(30)
    h *= np.uint64(0xBF58476D1CE4E5B9)
    h ^= h >> np.uint64(27)
    h *= np.uint64(0x94D049BB133111EB)
    h ^= h >> np.uint64(31)
    return h


@njit(cache=True, nogil=True)
def board_keys(boards: np.ndarray) -> np.ndarray:
    """[K] uint64 keys of ``boards [K, BOARD_SIZE] int16`` (:func:`board_key`)."""
    out = np.empty(boards.shape[0], np.uint64)
    for i in range(boards.shape[0]):
        out[i] = board_key(boards[i])
    return out


class CacheTable(NamedTuple):
    """The cache's arrays; numba takes the tuple as one argument (no Python object per entry)::

        entry ring  [C]   key, value, where its moves start in the arena, how many
        index       [T]   open addressing (linear probing, T a power of two >= 2C): entry or -1
        arena       [S]   the entries' moves, action ids and logits, written as a ring

    Entries are written in order into the ring of ``capacity`` entries and their moves into the
    arena ring of ``capacity * ARENA_MOVES`` slots; a new entry drops the oldest entries while the
    ring is full or its moves would overwrite theirs. So the cache holds ``capacity`` positions
    when they average at most ``ARENA_MOVES`` legal moves (Base ~30-60, Base+MLP 50-150), else
    fewer. The arena's pages are touched only as they fill (``np.empty``).

    Fields: keys [C] uint64, values [C] float32, start [C] int64 (arena offset), count [C] int32
    (legal moves; -1: a free slot), index [T] int32, moves / actions [S] int32,
    logits [S] float32, state [5] int64: the next entry slot, live entries, the arena's next slot,
    hits, misses.
    """

    keys: np.ndarray
    values: np.ndarray
    start: np.ndarray
    count: np.ndarray
    index: np.ndarray
    moves: np.ndarray
    actions: np.ndarray
    logits: np.ndarray
    state: np.ndarray


def allocate_table(capacity: int) -> CacheTable:
    """An empty table for ``capacity`` positions (at least one slot, so kernels need no case)."""
    c = max(int(capacity), 1)
    t = 1
    while t < 2 * c:
        t *= 2
    s = c * ARENA_MOVES if capacity > 0 else MAX_MOVES
    return CacheTable(np.zeros(c, np.uint64), np.zeros(c, np.float32), np.zeros(c, np.int64),
                      np.full(c, -1, np.int32), np.full(t, -1, np.int32),
                      np.empty(s, np.int32),
                      np.empty(s, np.int32), np.empty(s, np.float32), np.zeros(5, np.int64))


@njit(cache=True, nogil=True)
def find(table: CacheTable, key: np.uint64) -> int:
    """The entry slot of ``key``, or -1."""
    index, keys = table.index, table.keys
    mask = index.shape[0] - 1
    i = np.int64(key & np.uint64(mask))
    while index[i] >= 0:
        if keys[index[i]] == key:
            return index[i]
        i = (i + 1) & mask
    return -1


@njit(cache=True, nogil=True)
def _unindex(table: CacheTable, slot: int) -> None:
    """Take entry ``slot`` out of the index (backward-shift deletion: no tombstones)."""
    index, keys = table.index, table.keys
    mask = index.shape[0] - 1
    i = np.int64(keys[slot] & np.uint64(mask))
    while index[i] != slot:
        i = (i + 1) & mask
    j = i
    while True:
        j = (j + 1) & mask
        if index[j] < 0:
            break
        home = np.int64(keys[index[j]] & np.uint64(mask))
        # index[j] may move to the hole at i when its home is not cyclically in (i, j]
        if (i <= j and (home <= i or home > j)) or (i > j and home <= i and home > j):
            index[i] = index[j]
            i = j
    index[i] = -1


@njit(cache=True, nogil=True, inline="always")
def _in_ring(x, lo, hi):
    """Whether arena offset ``x`` lies in [lo, hi)."""
    return lo <= x < hi


@njit(cache=True, nogil=True)
def _evict_oldest(table: CacheTable) -> None:
    state = table.state
    c = table.keys.shape[0]
    oldest = (state[STATE_HEAD] - state[STATE_SIZE]) % c
    _unindex(table, oldest)
    table.count[oldest] = -1
    state[STATE_SIZE] -= 1


@njit(cache=True, nogil=True)
def insert(table: CacheTable, key: np.uint64, value: float, moves: np.ndarray, actions: np.ndarray,
           logits: np.ndarray, n: int) -> None:
    """Keep ``key``'s outputs (the first ``n`` moves, action ids and logits), dropping the oldest
    entries as needed; a key already held is left as it is."""
    if find(table, key) >= 0:
        return
    state = table.state
    c = table.keys.shape[0]
    s = table.moves.shape[0]
    if n > s:
        return  # larger than the whole arena: not kept
    at = state[STATE_ARENA_HEAD]
    wrap = at + n > s
    dst = 0 if wrap else at
    while state[STATE_SIZE] > 0:  # the oldest go while the ring is full or their moves are in the way
        oldest = (state[STATE_HEAD] - state[STATE_SIZE]) % c
        first = table.start[oldest]
        in_way = _in_ring(first, at, at + n) if not wrap else (_in_ring(first, at, s) or first < n)
        if state[STATE_SIZE] < c and not in_way:
            break
        _evict_oldest(table)
    slot = state[STATE_HEAD]
    table.keys[slot] = key
    table.values[slot] = value
    table.start[slot] = dst
    table.count[slot] = n
    copy_n(table.moves[dst:], moves, n)
    copy_n(table.actions[dst:], actions, n)
    copy_n(table.logits[dst:], logits, n)
    state[STATE_ARENA_HEAD] = dst + n
    state[STATE_HEAD] = (slot + 1) % c
    state[STATE_SIZE] += 1
    index = table.index
    mask = index.shape[0] - 1
    i = np.int64(key & np.uint64(mask))
    while index[i] >= 0:
        i = (i + 1) & mask
    index[i] = slot


@njit(cache=True, nogil=True)
def read_into(table: CacheTable, slot: int, moves: np.ndarray, actions: np.ndarray,
              logits: np.ndarray) -> int:
    """Copy entry ``slot``'s moves, action ids and logits into the given rows; returns its count."""
    n = table.count[slot]
    first = table.start[slot]
    copy_n(moves, table.moves[first:], n)
    copy_n(actions, table.actions[first:], n)
    copy_n(logits, table.logits[first:], n)
    return n


@njit(cache=True, nogil=True)
def _clear(table: CacheTable) -> None:
    table.index[:] = -1
    table.count[:] = -1
    table.state[STATE_HEAD] = 0
    table.state[STATE_SIZE] = 0
    table.state[STATE_ARENA_HEAD] = 0


@njit(cache=True, nogil=True)
def _lookup_rows(table, keys, logits, values, moves, actions, n_legal, enabled):
    """For each key: its entry copied into row i (``n_legal[i]`` its count), or ``n_legal[i] = -1``
    (a miss); counts hits and misses. Returns the misses."""
    misses = 0
    for i in range(keys.shape[0]):
        slot = find(table, keys[i]) if enabled else -1
        if slot < 0:
            n_legal[i] = -1
            misses += 1
            continue
        n_legal[i] = read_into(table, slot, moves[i], actions[i], logits[i])
        values[i] = table.values[slot]
    table.state[STATE_HITS] += keys.shape[0] - misses
    table.state[STATE_MISSES] += misses
    return misses


@njit(cache=True, nogil=True)
def _store_rows(table, keys, rows, logits, values, moves, actions, n_legal):
    for r in rows:
        insert(table, keys[r], values[r], moves[r], actions[r], logits[r], n_legal[r])


class EvalCache:
    """Network outputs by position (:class:`CacheTable`).

    Args:
        capacity: most positions kept; 0 = no caching.

    Attributes:
        table: the :class:`CacheTable` (the compiled step reads and writes it directly).
        hits, misses: positions served from the cache and sent to the network.
    """

    def __init__(self, capacity: int):
        self.capacity = int(capacity)
        self.table = allocate_table(self.capacity)
        self._buffers: dict[str, np.ndarray] = {}

    @property
    def hits(self) -> int:
        return int(self.table.state[STATE_HITS])

    @property
    def misses(self) -> int:
        return int(self.table.state[STATE_MISSES])

    def __len__(self) -> int:
        return int(self.table.state[STATE_SIZE])

    def clear(self) -> None:
        _clear(self.table)

    def evaluate(self, evaluate: Callable, obs: dict[str, np.ndarray], boards: np.ndarray,
                 moves: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``evaluate(obs)`` for the positions ``boards`` (the rows of ``obs``), asking the
        network only for those not cached; returns (logits [K, M] float32, values [K] float32).
        ``moves`` ([K, MAX_MOVES], the encoder's: ``observe_batch_with_moves``): kept with the new
        entries, so that the compiled leaf pass (``search.step``) can serve them without encoding."""
        k, m = obs["legal_src"].shape
        keys = board_keys(np.ascontiguousarray(boards))
        logits = np.full((k, m), NO_LOGIT, np.float32)
        values = np.zeros(k, np.float32)
        found_moves = self._buffer("moves", k, MAX_MOVES)
        found_actions = self._buffer("actions", k, m)
        n_found = np.zeros(k, np.int32)
        _lookup_rows(self.table, keys, logits, values, found_moves, found_actions, n_found, self.capacity > 0)
        miss = np.flatnonzero(n_found < 0)
        if miss.size == k:
            logits, values = as_outputs(evaluate(obs))
        elif miss.size:
            sub_logits, values[miss] = as_outputs(evaluate(_rows(obs, miss)))
            logits[miss, : sub_logits.shape[1]] = sub_logits
        if self.capacity > 0 and miss.size:
            _store_rows(self.table, keys, miss, logits, values, np.ascontiguousarray(moves, np.int32),
                        np.ascontiguousarray(obs["legal_actions"], np.int32), obs["n_legal"].astype(np.int32))
        return logits, values

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


def as_outputs(out: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    logits, values = out
    return np.ascontiguousarray(logits, np.float32), np.ascontiguousarray(values, np.float32)
