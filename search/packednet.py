"""The packed inference backend: HiveGNN's forward pass over a whole batch's nodes at once, its
matrix products in the BLAS library's GEMMs, at the precision the CPU's matrix units serve best.

``search.fastnet`` runs each game's forward pass by itself, with hand-written dot products: right
for a batch of one, but at the batches of self-play (64 positions, ~1,500 nodes) those small
products reach about a third of a core's fp32 peak. Here every game's nodes are packed into one
``[rows, C]`` matrix (KataGo's and Leela's batched layout, without the padding), so each
block's two mix layers, the embedding and the policy's per-node and per-move layers are a
handful of large GEMMs (``torch.mm`` on numpy-backed tensors: oneDNN / MKL kernels, which
use AVX-512, AMX or VNNI where the CPU has them), and the parts that are not products (layer
norm, the neighbour aggregation, GELU, the per-game context, the value head, the scatter into
logits) are numba kernels over the packed rows, one pass each.

Precisions (:data:`PRECISIONS`), chosen at run time by :func:`pick_precision`:

* ``fp32``: every machine; the products as the model computes them (equal to float32 rounding).
* ``bf16``: the GEMMs' inputs and products in bfloat16, fp32 accumulation inside (``torch.mm``
  on bfloat16, which oneDNN runs on AMX tiles or AVX512-BF16). The numba kernels write the inputs
  as bfloat16 bits (uint16 buffers, :func:`_store`) and read the products back (:func:`_load`),
  so no conversion pass runs; rows are rounded up to a few sizes (:func:`bucket`) so that
  oneDNN's kernel compiled for a shape is reused. Picked where ``/proc/cpuinfo`` lists
  ``amx_bf16`` or ``avx512_bf16`` (without them bfloat16 is emulated, slower than fp32), for
  batches from :data:`HALF_MIN_BATCH` positions (narrow networks) or 2 (wider); fp32 below.
* ``int8``: dynamic quantisation of the GEMMs (per-channel int8 weights, activations quantised per
  call: fbgemm's ``linear_dynamic``). Selectable, never picked: slower than bf16 and far less
  accurate (values off by up to 0.7: docs/strength.md, "Throughput of the packed network").

Norms, GELU, the residual stream, the softmax of the value head and every non-product stay in
float32 at every precision. ``tests/search/test_packednet.py`` holds each precision to the fp32
torch model on real positions of all 8 game types. One net may serve several threads (hive-web's
analysis and review): its work arrays are per thread.
"""

from __future__ import annotations

import functools
import math
import threading
import warnings
from typing import NamedTuple

import numpy as np
import torch
from llvmlite import ir
from numba import njit
from numba.core import types
from numba.extending import intrinsic, overload

from models.gnn import NEG_INF, HiveGNN

from .fastnet import FLAGS, _gelu1, _gelu_, _layer_norm, _linear_, export_weights

PRECISIONS = ("auto", "fp32", "bf16", "int8")
"""GEMM precisions of the packed backend (``auto``: :func:`pick_precision`)."""

BF16_FLAGS = ("amx_bf16", "avx512_bf16")
"""CPU flags (``/proc/cpuinfo``) under which bfloat16 GEMMs run on hardware, not emulated."""


@functools.lru_cache(maxsize=1)
def cpu_flags() -> frozenset[str]:
    """The CPU's feature flags (``/proc/cpuinfo``; empty where there is none, e.g. macOS)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return frozenset()


def pick_precision(precision: str = "auto", flags: frozenset[str] | None = None) -> str:
    """The GEMM precision ``precision`` stands for on this machine: ``auto`` -> ``bf16`` where the
    CPU has bfloat16 matrix instructions (:data:`BF16_FLAGS`) and torch has oneDNN, else ``fp32``.

    Raises:
        ValueError: an unknown precision.
    """
    if precision not in PRECISIONS:
        raise ValueError(f"unknown precision {precision!r} (known: {', '.join(PRECISIONS)})")
    if precision != "auto":
        return precision
    flags = cpu_flags() if flags is None else flags
    if torch.backends.mkldnn.is_available() and any(f in flags for f in BF16_FLAGS):
        return "bf16"
    return "fp32"


def flags_found(flags: frozenset[str] | None = None) -> str:
    """The CPU flags that matter to the precisions, for logs: ``cpu flags: amx_bf16 ...``."""
    flags = cpu_flags() if flags is None else flags
    found = [f for f in (*BF16_FLAGS, "amx_int8", "avx512_vnni", "avx512f", "avx2") if f in flags]
    return f"cpu flags: {' '.join(found) or 'none of the known'}"


class Gemm:
    """``y = x @ W.T`` for one weight matrix ``W [O, K]`` at one precision, into float32 ``out``."""

    def __init__(self, w: np.ndarray, precision: str):
        self.precision = precision
        wt = torch.from_numpy(np.ascontiguousarray(w.T))  # [K, O]
        if precision == "fp32":
            self.w = wt
        elif precision == "bf16":
            self.w = wt.to(torch.bfloat16)
        elif precision == "int8":
            self.w = _int8_pack(torch.from_numpy(np.ascontiguousarray(w)))
        else:
            raise ValueError(f"unknown GEMM precision {precision!r}")

    def __call__(self, x: torch.Tensor, out: torch.Tensor, accumulate: bool = False) -> None:
        """``out (+)= x @ W.T`` (``x [R, K]``, ``out [R, O]``): float32 tensors at fp32 and int8;
        bfloat16 ones at bf16 (oneDNN's bf16 GEMM, fp32 accumulation, rounded once at the end;
        no ``accumulate``: the caller adds the product)."""
        if self.precision == "fp32":
            if accumulate:
                out.addmm_(x, self.w)
            else:
                torch.mm(x, self.w, out=out)
        elif self.precision == "bf16":
            if accumulate:
                raise ValueError("a bf16 GEMM writes its product; the caller adds it")
            torch.mm(x, self.w, out=out)
        else:
            y = torch.ops.quantized.linear_dynamic(x, self.w, True)
            if accumulate:
                out.add_(y)
            else:
                out.copy_(y)


def _int8_pack(w: torch.Tensor):
    """fbgemm's packed int8 weight (per output channel scales) for ``linear_dynamic``."""
    scale = (w.abs().amax(1).clamp_min(1e-8) / 127.0).double()
    with warnings.catch_warnings():  # torch's deprecation notice of quantised tensors
        warnings.simplefilter("ignore")
        q = torch.quantize_per_channel(w, scale, torch.zeros(w.shape[0], dtype=torch.long), 0, torch.qint8)
        return torch.ops.quantized.linear_prepack(q, None)


class PackedWeights(NamedTuple):
    """The GEMMs of one network at one precision (the rest of :class:`fastnet.Weights` is read
    by the numba kernels directly)."""

    embed: Gemm            # node features -> C (float32 in and out at every precision but int8)
    w1: list[Gemm]         # per block: local [4C] -> 2C
    w1_ctx: list[Gemm]     # per block: context C -> 2C
    w2: list[Gemm]         # per block: 2C -> C
    pol_nodes: Gemm        # hz -> [W_src hz | W_dst hz]  (2C)
    pol_pair: Gemm         # hz_src * hz_dst -> C


def pack_gemms(w, precision: str) -> PackedWeights:
    L = w.w1.shape[0]
    return PackedWeights(
        Gemm(w.embed_node, "fp32" if precision == "bf16" else precision),  # features are float32
        [Gemm(w.w1[i], precision) for i in range(L)],
        [Gemm(w.w1_ctx[i], "fp32") for i in range(L)],  # [B, C] rows: too small to gain
        [Gemm(w.w2[i], precision) for i in range(L)],
        Gemm(np.concatenate([w.pol_src, w.pol_dst]), precision), Gemm(w.pol_pair, precision))


# ----- bfloat16 in numba: bit casts, and loads and stores that follow the buffer's dtype -------


@intrinsic
def _f32_bits(typingctx, x):
    """The bits of a float32 as a uint32 (a bit cast, no conversion)."""
    if x != types.float32:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(32))

    return types.uint32(types.float32), codegen


@intrinsic
def _bits_f32(typingctx, u):
    """The float32 whose bits are the uint32 ``u``."""
    if u != types.uint32:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.FloatType())

    return types.float32(types.uint32), codegen


def _load(a, i, j):
    """``a[i, j]`` as float32: a float32 buffer as it is, a uint16 one as bfloat16 bits."""


def _store(a, i, j, v):
    """``a[i, j] = v``: into a float32 buffer as it is, into a uint16 one rounded to bfloat16
    (round to nearest even, as torch's conversion)."""


@overload(_load, inline="always")
def _load_impl(a, i, j):
    if a.dtype == types.uint16:
        return lambda a, i, j: _bits_f32(np.uint32(np.uint32(a[i, j]) << np.uint32(16)))
    return lambda a, i, j: a[i, j]


@overload(_store, inline="always")
def _store_impl(a, i, j, v):
    if a.dtype == types.uint16:
        def store_bf16(a, i, j, v):
            u = _f32_bits(np.float32(v))
            a[i, j] = np.uint16((u + np.uint32(0x7FFF) + ((u >> np.uint32(16)) & np.uint32(1)))
                                >> np.uint32(16))

        return store_bf16

    def store(a, i, j, v):
        a[i, j] = v

    return store


# ----- kernels over the packed rows ------------------------------------------------------------
# The buffers a GEMM reads or writes (local, hidden, the block's output, hz's copy, node_sd, pair,
# the pair product) are float32 at fp32 and int8, uint16 (bfloat16 bits) at bf16: the kernels
# read and write them through _load and _store, so the GEMMs take and give bfloat16 directly.


@njit(cache=True, nogil=True)
def _pack(node_feat, neighbours, n_nodes, legal_src, legal_dst, n_legal, feat, nb, row_game, offsets,
          move_src, move_dst, move_game, move_slot):
    """Pack the batch's real nodes into rows (game ``g``'s nodes at ``offsets[g]:offsets[g+1]``):
    features into ``feat``, neighbour rows into ``nb`` (R = the void row), each row's game; the
    legal moves that are not a pass into ``move_*`` (destination R+... -> the zero row R).
    Returns the number of moves packed."""
    B = n_nodes.shape[0]
    F = node_feat.shape[2]
    r = 0
    for g in range(B):
        offsets[g] = r
        r += n_nodes[g]
    offsets[B] = r
    R = r
    for g in range(B):
        o = offsets[g]
        for i in range(n_nodes[g]):
            row = o + i
            row_game[row] = g
            for f in range(F):
                feat[row, f] = node_feat[g, i, f]
            for d in range(6):
                k = neighbours[g, i, d]
                nb[row, d] = R if k < 0 else o + k
    t = 0
    for g in range(B):
        o = offsets[g]
        for k in range(n_legal[g]):
            s = legal_src[g, k]
            if s < 0:
                continue
            d = legal_dst[g, k]
            move_src[t] = o + s
            move_dst[t] = R if d < 0 else o + d
            move_game[t] = g
            move_slot[t] = k
            t += 1
    return t


@njit(cache=True, nogil=True, fastmath=FLAGS, error_model="numpy")
def _embed_finish(h, row_game, glob, bias):
    """``h[r] += bias + glob[game of r]`` (the node embedding's bias and the global embedding)."""
    R, C = h.shape
    for r in range(R):
        g = row_game[r]
        for j in range(C):
            h[r, j] += glob[g, j] + bias[j]


@njit(cache=True, nogil=True, fastmath=FLAGS, error_model="numpy")
def _mix_inputs(h, ln_w, ln_b, void, eps, nb, offsets, x, local, ctx):
    """Pre-norm ``x = LN(h)`` (row R: the void vector), the local features ``[x, sum, adjacent
    pairs, 2 * opposite pairs]`` of each row's six neighbours into ``local``, and each game's
    mean of ``x``."""
    R, C = h.shape
    _layer_norm(h, ln_w, ln_b, eps, x[:R])
    x[R, :] = void
    # The three sums go to row scratch first, then out in four plain loops: one loop writing all
    # four (through _store) does not vectorise, and ran 1.4x (float32) to 2.3x (bf16) slower.
    near = np.empty(C, np.float32)
    adj = np.empty(C, np.float32)
    opp = np.empty(C, np.float32)
    for r in range(R):
        n0, n1, n2, n3, n4, n5 = nb[r, 0], nb[r, 1], nb[r, 2], nb[r, 3], nb[r, 4], nb[r, 5]
        for j in range(C):
            a0, a1, a2, a3, a4, a5 = x[n0, j], x[n1, j], x[n2, j], x[n3, j], x[n4, j], x[n5, j]
            near[j] = a0 + a1 + a2 + a3 + a4 + a5
            adj[j] = a0 * a1 + a1 * a2 + a2 * a3 + a3 * a4 + a4 * a5 + a5 * a0
            opp[j] = np.float32(2.0) * (a0 * a3 + a1 * a4 + a2 * a5)
        for j in range(C):
            _store(local, r, j, x[r, j])
        for j in range(C):
            _store(local, r, C + j, near[j])
        for j in range(C):
            _store(local, r, 2 * C + j, adj[j])
        for j in range(C):
            _store(local, r, 3 * C + j, opp[j])
    B = offsets.shape[0] - 1
    for g in range(B):
        lo = offsets[g]
        hi = offsets[g + 1]
        for j in range(C):
            ctx[g, j] = 0.0
        for r in range(lo, hi):
            for j in range(C):
                ctx[g, j] += x[r, j]
        if hi > lo:
            for j in range(C):
                ctx[g, j] /= hi - lo


@njit(cache=True, nogil=True, fastmath=FLAGS, error_model="numpy")
def _hidden_finish(hidden, per_game, row_game, h, b2, R):
    """``hidden[r] = GELU(hidden[r] + per_game[game])`` for the first ``R`` rows (per_game holds
    the first bias) and ``h[r] += b2``, ahead of ``h += hidden @ w2.T``."""
    H = hidden.shape[1]
    C = h.shape[1]
    row = np.empty(H, np.float32)  # loads, GELU and stores in loops of their own (they vectorise)
    for r in range(R):
        g = row_game[r]
        for j in range(H):
            row[j] = _load(hidden, r, j) + per_game[g, j]
        for j in range(H):
            row[j] = _gelu1(row[j])
        for j in range(H):
            _store(hidden, r, j, row[j])
        for j in range(C):
            h[r, j] += b2[j]


@njit(cache=True, nogil=True, fastmath=FLAGS, error_model="numpy")
def _add_rows(h, y):
    """``h += y[:R]`` (a bfloat16 GEMM's output into the float32 residual stream)."""
    R, C = h.shape
    for r in range(R):
        for j in range(C):
            h[r, j] += _load(y, r, j)


@njit(cache=True, nogil=True, fastmath=FLAGS, error_model="numpy")
def _final(h, fin_w, fin_b, eps, offsets, glob, hz, hzg, context, pooled):
    """The final norm into ``hz`` (row R: zeros) and the GEMM's copy ``hzg``, each game's mean
    ``context`` and its value input ``pooled = [context, max over nodes, global embedding]``."""
    R, C = h.shape
    _layer_norm(h, fin_w, fin_b, eps, hz[:R])
    for j in range(C):
        hz[R, j] = 0.0
    for r in range(R + 1):
        for j in range(C):
            _store(hzg, r, j, hz[r, j])
    B = offsets.shape[0] - 1
    for g in range(B):
        lo = offsets[g]
        hi = offsets[g + 1]
        for j in range(C):
            context[g, j] = 0.0
            pooled[g, C + j] = -3.4028234663852886e38
        for r in range(lo, hi):
            for j in range(C):
                v = hz[r, j]
                context[g, j] += v
                pooled[g, C + j] = max(pooled[g, C + j], v)
        for j in range(C):
            mean = context[g, j] / (hi - lo) if hi > lo else np.float32(0.0)
            context[g, j] = mean
            pooled[g, j] = mean
            pooled[g, 2 * C + j] = glob[g, j]


@njit(cache=True, nogil=True, fastmath=FLAGS, error_model="numpy")
def _move_inputs(hz, node_sd, pg, pol_b, move_src, move_dst, move_game, pair, mh):
    """Per packed move: ``pair = hz[src] * hz[dst]`` and ``mh = W_s hz[src] + b + W_d hz[dst] +
    W_c context`` (the pair term's product is added in :func:`_heads`)."""
    T = move_src.shape[0]
    C = hz.shape[1]
    for t in range(T):
        s = move_src[t]
        d = move_dst[t]
        g = move_game[t]
        for j in range(C):
            _store(pair, t, j, hz[s, j] * hz[d, j])
        for j in range(C):
            mh[t, j] = _load(node_sd, s, j) + pol_b[j] + _load(node_sd, d, C + j) + pg[g, j]


@njit(cache=True, nogil=True, fastmath=FLAGS, error_model="numpy")
def _heads(mh, pp, move_game, move_slot, pooled, pol_out, out_bias, val1, val1_b, val2, val2_b, logits,
           values):
    """GELU of ``mh + pp`` (the pair product) and the policy's last layer per move, and the WDL
    value head per game (``values = P(win) - P(loss)``)."""
    T, C = mh.shape
    for t in range(T):
        acc = out_bias
        for j in range(C):
            acc += _gelu1(mh[t, j] + _load(pp, t, j)) * pol_out[j]
        logits[move_game[t], move_slot[t]] = acc
    B = pooled.shape[0]
    v1 = np.empty((B, val1.shape[0]), np.float32)
    _linear_(pooled, val1, val1_b, v1, False)
    _gelu_(v1)
    wdl = np.empty((B, 3), np.float32)
    _linear_(v1, val2, val2_b, wdl, False)
    for g in range(B):
        top = max(wdl[g, 0], max(wdl[g, 1], wdl[g, 2]))
        e0 = math.exp(wdl[g, 0] - top)
        e1 = math.exp(wdl[g, 1] - top)
        e2 = math.exp(wdl[g, 2] - top)
        values[g] = (e0 - e2) / (e0 + e1 + e2)


@njit(cache=True, nogil=True, fastmath=FLAGS, error_model="numpy")
def _pass_logits(context, pass_w, bias, legal_src, n_legal, logits):
    """Pass slots (``src < 0``) and the slots past ``n_legal``."""
    B, M = logits.shape
    C = context.shape[1]
    for g in range(B):
        p = bias
        for j in range(C):
            p += context[g, j] * pass_w[j]
        m = n_legal[g]
        for k in range(m):
            if legal_src[g, k] < 0:
                logits[g, k] = p
        for k in range(m, M):
            logits[g, k] = NEG_INF


class _Buffers:
    """Work arrays grown on demand and reused between calls (no allocation per batch), each with
    a tensor over it made once (uint16 ones as bfloat16), so that a call costs a slice of each."""

    def __init__(self):
        self._arrays: dict[tuple, tuple[np.ndarray, torch.Tensor]] = {}

    def get(self, name: str, rows: int, cols: int, dtype=np.float32) -> np.ndarray:
        """``rows`` rows of the ``[*, cols]`` array ``name`` of ``dtype`` (one array per dtype)."""
        return self._full(name, rows, cols, dtype)[0][:rows]

    def pair(self, name: str, rows: int, cols: int, dtype=np.float32) -> tuple[np.ndarray, torch.Tensor]:
        """:meth:`get`'s rows and a tensor over them."""
        a, t = self._full(name, rows, cols, dtype)
        return a[:rows], t[:rows]

    def _full(self, name: str, rows: int, cols: int, dtype) -> tuple[np.ndarray, torch.Tensor]:
        key = (name, dtype)
        got = self._arrays.get(key)
        if got is None or got[0].shape[0] < rows or got[0].shape[1] != cols:
            a = np.empty((max(rows, 2 * (0 if got is None else got[0].shape[0])), cols), dtype)
            got = self._arrays[key] = (a, _tensor(a))
        return got

    def vec(self, name: str, n: int) -> np.ndarray:
        """A contiguous int32 vector of ``n`` (an ``[n, 1]`` array's one column)."""
        return self.get(name, n, 1, np.int32).reshape(n)


def bucket(n: int) -> int:
    """``n`` rows rounded up to one of 8 sizes an octave (at most 1/8 more, 16 at least). oneDNN
    compiles a kernel for each new GEMM shape (about a millisecond, 6x a tiny network's whole
    bf16 GEMM) and keeps it in its cache: rows in buckets meet kernels already compiled."""
    if n <= 16:
        return 16
    step = 1 << (n.bit_length() - 4)
    return -(-n // step) * step


def _tensor(a: np.ndarray) -> torch.Tensor:
    """A tensor over ``a`` (no copy): uint16 buffers hold bfloat16 bits."""
    t = torch.from_numpy(a)
    return t.view(torch.bfloat16) if a.dtype == np.uint16 else t


HALF_MIN_BATCH = 16
"""With precision ``auto``, a network up to :data:`NARROW_WIDTH` wide runs its GEMMs in bf16 (where
:func:`pick_precision` gives it) for calls of this many positions or more, in fp32 below: such
small GEMMs do not pay for the rounding (tiny network, one core: batch 1 bf16 0.20 ms, fp32 0.09;
batch 8 0.36 and 0.35; batch 64 1.77 and 2.18; ``scripts.bench_inference``). Wider networks run
bf16 from 2 positions (small at batch 8: bf16 1.05 ms, fp32 1.46; default at batch 1: 1.24 and
1.65)."""

NARROW_WIDTH = 32
"""Networks up to this width are *narrow* (:data:`HALF_MIN_BATCH`, ``search.network``)."""


class PackedNet:
    """``evaluate(obs) -> (logits [B, M], values [B])`` over packed rows with GEMMs.

    Args:
        model: the trained network; its weights are copied (:meth:`load` takes new ones).
        precision: one of :data:`PRECISIONS`. ``auto``: :func:`pick_precision`'s for batches of
            ``half_min_batch`` or more (:data:`HALF_MIN_BATCH`), fp32 below; any other: that one at
            every batch.

    Attributes:
        precision: the precision of large batches; ``small_precision``: of smaller ones, under
            ``half_min_batch`` positions.
    """

    def __init__(self, model: HiveGNN, precision: str = "auto"):
        self.precision = pick_precision(precision)
        self.small_precision = "fp32" if precision == "auto" else self.precision
        self.half_min_batch = HALF_MIN_BATCH if model.config.width <= NARROW_WIDTH else 2
        self._local = threading.local()  # work arrays per thread: one net may serve several
        self.load(model)

    def describe(self) -> str:
        """The precisions it runs and the CPU flags behind them (for logs and benchmarks)."""
        flags = flags_found()
        if self.small_precision == self.precision:
            return f"{self.precision} GEMMs ({flags})"
        return (f"{self.precision} GEMMs from batch {self.half_min_batch}, {self.small_precision} below "
                f"({flags})")

    def load(self, model: HiveGNN) -> None:
        """Copy the model's current weights (after ``load_state_dict``: no recompiling)."""
        self.weights = export_weights(model)
        self.gemms = {p: pack_gemms(self.weights, p) for p in {self.precision, self.small_precision}}
        self._glob = Gemm(self.weights.embed_glob, "fp32")

    def __call__(self, obs: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        w = self.weights
        buf = getattr(self._local, "buf", None)
        if buf is None:
            buf = self._local.buf = _Buffers()
        src = obs["legal_src"]
        B, M = src.shape
        precision = self.precision if len(src) >= self.half_min_batch else self.small_precision
        gm = self.gemms[precision]
        half = precision == "bf16"
        gd = np.uint16 if half else np.float32  # the GEMMs' buffers
        rows = bucket if half else int
        C = w.embed_node.shape[0]
        if "n_nodes" in obs:
            n_nodes = np.ascontiguousarray(obs["n_nodes"], np.int32)
        else:
            n_nodes = obs["node_mask"].sum(1).astype(np.int32)
        n_legal = np.ascontiguousarray(obs["n_legal"], np.int32)
        R = int(n_nodes.sum())
        T = int(n_legal.sum())
        node_feat = obs["node_feat"]
        feat = buf.get("feat", R, node_feat.shape[2])
        nb = buf.get("nb", R, 6, np.int32)
        row_game = buf.vec("row_game", R)
        offsets = np.empty(B + 1, np.int32)
        move_src, move_dst, move_game, move_slot = (buf.vec(k, T) for k in ("src", "dst", "game", "slot"))
        T = _pack(node_feat if node_feat.dtype == np.float32 else node_feat.astype(np.float32),
                  obs["neighbours"], n_nodes, src, obs["legal_dst"], n_legal, feat, nb, row_game, offsets,
                  move_src, move_dst, move_game, move_slot)
        gf = obs["global_feat"]
        glob, glob_t = buf.pair("glob", B, C)
        self._glob(torch.from_numpy(np.ascontiguousarray(gf, np.float32)), glob_t)
        glob += w.embed_glob_b
        h, h_t = buf.pair("h", R, C)
        gm.embed(buf.pair("feat", R, node_feat.shape[2])[1], h_t)
        _embed_finish(h, row_game, glob, w.embed_node_b)
        x = buf.get("x", R + 1, C)
        local, local_t = buf.pair("local", rows(R), 4 * C, gd)
        hidden, hidden_t = buf.pair("hidden", rows(R), 2 * C, gd)
        ctx, ctx_t = buf.pair("ctx", B, C)
        per_game, per_game_t = buf.pair("per_game", B, 2 * C)
        if half:
            y, y_t = buf.pair("y", rows(R), C, gd)  # the block's product, added to h by _add_rows
        eps = w.scal[2]
        for layer in range(w.w1.shape[0]):
            _mix_inputs(h, w.ln_w[layer], w.ln_b[layer], w.void[layer], eps, nb, offsets, x, local, ctx)
            gm.w1_ctx[layer](ctx_t, per_game_t)
            per_game += w.b1[layer]
            gm.w1[layer](local_t, hidden_t)
            _hidden_finish(hidden, per_game, row_game, h, w.b2[layer], R)
            if half:
                gm.w2[layer](hidden_t, y_t)
                _add_rows(h, y)
            else:
                gm.w2[layer](hidden_t, h_t, accumulate=True)
        hz = buf.get("hz", R + 1, C)
        hzg, hzg_t = buf.pair("hzg", rows(R + 1), C, gd) if half else buf.pair("hz", R + 1, C)
        context = buf.get("context", B, C)
        pooled = buf.get("pooled", B, 3 * C)
        _final(h, w.fin_w, w.fin_b, eps, offsets, glob, hz, hzg, context, pooled)
        node_sd, node_sd_t = buf.pair("node_sd", rows(R + 1), 2 * C, gd)
        gm.pol_nodes(hzg_t, node_sd_t)
        pg = context @ w.pol_ctx.T
        pair, pair_t = buf.pair("pair", rows(T), C, gd)
        pp, pp_t = buf.pair("pp", rows(T), C, gd)
        mh = buf.get("mh", T, C)
        _move_inputs(hz, node_sd, pg, w.pol_b, move_src[:T], move_dst[:T], move_game[:T], pair, mh)
        if T:
            gm.pol_pair(pair_t, pp_t)
        logits = np.empty((B, M), np.float32)
        values = np.empty(B, np.float32)
        _heads(mh, pp, move_game[:T], move_slot[:T], pooled, w.pol_out, w.scal[0], w.val1, w.val1_b, w.val2,
               w.val2_b, logits, values)
        _pass_logits(context, w.pass_w, w.scal[1], src, n_legal, logits)
        return logits, values
