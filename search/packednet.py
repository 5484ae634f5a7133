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
* ``bf16``: the GEMMs' inputs rounded to bfloat16, fp32 accumulation (``torch.mm`` on bfloat16,
  which oneDNN runs on AMX tiles or AVX512-BF16). Picked where ``/proc/cpuinfo`` lists
  ``amx_bf16`` or ``avx512_bf16``; without them bfloat16 is emulated and ~15x slower than fp32.
* ``int8``: dynamic quantisation of the GEMMs (per-channel int8 weights, activations quantised per
  call: fbgemm's ``linear_dynamic``). Selectable; never picked automatically, since on the
  machines measured it did not beat the others (docs/strength.md, "Issue 37").

Norms, GELU, the softmax of the value head and every non-product stay in float32 at every
precision. ``tests/search/test_packednet.py`` holds each precision to the fp32 torch model on
real positions of all 8 game types.
"""

from __future__ import annotations

import functools
import math
import warnings
from typing import NamedTuple

import numpy as np
import torch
from numba import njit

from models.gnn import NEG_INF, HiveGNN

from .fastnet import FLAGS, _gelu_, _layer_norm, _linear_, export_weights

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


def precision_reason(precision: str, flags: frozenset[str] | None = None) -> str:
    """Why :func:`pick_precision` gives what it gives, for logs: the flags it found."""
    flags = cpu_flags() if flags is None else flags
    found = [f for f in (*BF16_FLAGS, "amx_int8", "avx512_vnni", "avx512f", "avx2") if f in flags]
    return f"{pick_precision(precision, flags)} (cpu flags: {' '.join(found) or 'none of the known'})"


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
        """``out (+)= x @ W.T`` (``x [R, K]``, ``out [R, O]``, float32 tensors)."""
        if self.precision == "fp32":
            if accumulate:
                out.addmm_(x, self.w)
            else:
                torch.mm(x, self.w, out=out)
            return
        if self.precision == "bf16":
            y = torch.mm(x.to(torch.bfloat16), self.w)
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

    embed: Gemm            # node features -> C
    w1: list[Gemm]         # per block: local [4C] -> 2C
    w1_ctx: list[Gemm]     # per block: context C -> 2C
    w2: list[Gemm]         # per block: 2C -> C
    pol_nodes: Gemm        # hz -> [W_src hz | W_dst hz]  (2C)
    pol_pair: Gemm         # hz_src * hz_dst -> C


def pack_gemms(w, precision: str) -> PackedWeights:
    L = w.w1.shape[0]
    return PackedWeights(
        Gemm(w.embed_node, precision), [Gemm(w.w1[i], precision) for i in range(L)],
        [Gemm(w.w1_ctx[i], "fp32") for i in range(L)],  # [B, C] rows: too small to gain
        [Gemm(w.w2[i], precision) for i in range(L)],
        Gemm(np.concatenate([w.pol_src, w.pol_dst]), precision), Gemm(w.pol_pair, precision))


# ----- kernels over the packed rows ------------------------------------------------------------


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
    pairs, 2 * opposite pairs]`` of each row's six neighbours, and each game's mean of ``x``."""
    R, C = h.shape
    _layer_norm(h, ln_w, ln_b, eps, x[:R])
    x[R, :] = void
    for r in range(R):
        r0 = x[nb[r, 0]]
        r1 = x[nb[r, 1]]
        r2 = x[nb[r, 2]]
        r3 = x[nb[r, 3]]
        r4 = x[nb[r, 4]]
        r5 = x[nb[r, 5]]
        xi = x[r]
        li = local[r]
        for j in range(C):
            a0, a1, a2, a3, a4, a5 = r0[j], r1[j], r2[j], r3[j], r4[j], r5[j]
            li[j] = xi[j]
            li[C + j] = a0 + a1 + a2 + a3 + a4 + a5
            li[2 * C + j] = a0 * a1 + a1 * a2 + a2 * a3 + a3 * a4 + a4 * a5 + a5 * a0
            li[3 * C + j] = np.float32(2.0) * (a0 * a3 + a1 * a4 + a2 * a5)
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
def _hidden_finish(hidden, per_game, row_game, h, b2):
    """``hidden[r] = GELU(hidden[r] + per_game[game])`` (per_game holds the first bias) and
    ``h[r] += b2``, ahead of ``h += hidden @ w2.T``."""
    R, H = hidden.shape
    C = h.shape[1]
    for r in range(R):
        g = row_game[r]
        for j in range(H):
            hidden[r, j] += per_game[g, j]
        for j in range(C):
            h[r, j] += b2[j]
    _gelu_(hidden)


@njit(cache=True, nogil=True, fastmath=FLAGS, error_model="numpy")
def _final(h, fin_w, fin_b, eps, offsets, glob, hz, context, pooled):
    """The final norm into ``hz`` (row R: zeros), each game's mean ``context`` and its value
    input ``pooled = [context, max over nodes, global embedding]``."""
    R, C = h.shape
    _layer_norm(h, fin_w, fin_b, eps, hz[:R])
    hz[R, :] = 0.0
    B = offsets.shape[0] - 1
    for g in range(B):
        lo = offsets[g]
        hi = offsets[g + 1]
        for j in range(C):
            s = np.float32(0.0)
            best = np.float32(-3.4028234663852886e38)
            for r in range(lo, hi):
                v = hz[r, j]
                s += v
                best = max(best, v)
            mean = s / (hi - lo) if hi > lo else np.float32(0.0)
            context[g, j] = mean
            pooled[g, j] = mean
            pooled[g, C + j] = best
            pooled[g, 2 * C + j] = glob[g, j]


@njit(cache=True, nogil=True, fastmath=FLAGS, error_model="numpy")
def _move_inputs(hz, node_sd, pg, pol_b, move_src, move_dst, move_game, pair, mh):
    """Per packed move: ``pair = hz[src] * hz[dst]`` and ``mh = W_s hz[src] + b + W_d hz[dst] +
    W_c context`` (the pair term is added by a GEMM after)."""
    T = pair.shape[0]
    C = hz.shape[1]
    for t in range(T):
        s = move_src[t]
        d = move_dst[t]
        g = move_game[t]
        for j in range(C):
            pair[t, j] = hz[s, j] * hz[d, j]
            mh[t, j] = node_sd[s, j] + pol_b[j] + node_sd[d, C + j] + pg[g, j]


@njit(cache=True, nogil=True, fastmath=FLAGS, error_model="numpy")
def _heads(mh, move_game, move_slot, pooled, pol_out, out_bias, val1, val1_b, val2, val2_b, logits, values):
    """GELU and the policy's last layer per move, pass logits, NEG_INF past ``n_legal`` (set by
    the caller), and the WDL value head per game (``values = P(win) - P(loss)``)."""
    T, C = mh.shape
    _gelu_(mh)
    for t in range(T):
        acc = out_bias
        for j in range(C):
            acc += mh[t, j] * pol_out[j]
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
    """Work arrays grown on demand and reused between calls (no allocation per batch)."""

    def __init__(self):
        self._arrays: dict[str, np.ndarray] = {}

    def get(self, name: str, rows: int, cols: int, dtype=np.float32) -> np.ndarray:
        a = self._arrays.get(name)
        if a is None or a.shape[0] < rows or a.shape[1] != cols:
            a = np.empty((max(rows, 2 * (0 if a is None else a.shape[0])), cols), dtype)
            self._arrays[name] = a
        return a[:rows]

    def vec(self, name: str, n: int) -> np.ndarray:
        """A contiguous int32 vector of ``n``."""
        a = self._arrays.get(name)
        if a is None or a.shape[0] < n:
            a = np.empty(max(n, 2 * (0 if a is None else a.shape[0])), np.int32)
            self._arrays[name] = a
        return a[:n]


class PackedNet:
    """``evaluate(obs) -> (logits [B, M], values [B])`` over packed rows with GEMMs.

    Args:
        model: the trained network; its weights are copied (:meth:`load` takes new ones).
        precision: one of :data:`PRECISIONS` (``auto``: :func:`pick_precision`).
    """

    def __init__(self, model: HiveGNN, precision: str = "auto"):
        self.precision = pick_precision(precision)
        self._buf = _Buffers()
        self.load(model)

    def load(self, model: HiveGNN) -> None:
        """Copy the model's current weights (after ``load_state_dict``: no recompiling)."""
        self.weights = export_weights(model)
        self.gemms = pack_gemms(self.weights, self.precision)
        self._glob = Gemm(self.weights.embed_glob, "fp32")

    def __call__(self, obs: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        w, gm, buf = self.weights, self.gemms, self._buf
        src = obs["legal_src"]
        B, M = src.shape
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
        t = torch.from_numpy
        gf = obs["global_feat"]
        glob = buf.get("glob", B, C)
        self._glob(t(np.ascontiguousarray(gf, np.float32)), t(glob))
        glob += w.embed_glob_b
        h = buf.get("h", R, C)
        gm.embed(t(feat), t(h))
        _embed_finish(h, row_game, glob, w.embed_node_b)
        x = buf.get("x", R + 1, C)
        local = buf.get("local", R, 4 * C)
        hidden = buf.get("hidden", R, 2 * C)
        ctx = buf.get("ctx", B, C)
        per_game = buf.get("per_game", B, 2 * C)
        eps = w.scal[2]
        for layer in range(w.w1.shape[0]):
            _mix_inputs(h, w.ln_w[layer], w.ln_b[layer], w.void[layer], eps, nb, offsets, x, local, ctx)
            gm.w1_ctx[layer](t(ctx), t(per_game))
            per_game += w.b1[layer]
            gm.w1[layer](t(local), t(hidden))
            _hidden_finish(hidden, per_game, row_game, h, w.b2[layer])
            gm.w2[layer](t(hidden), t(h), accumulate=True)
        hz = buf.get("hz", R + 1, C)
        context = buf.get("context", B, C)
        pooled = buf.get("pooled", B, 3 * C)
        _final(h, w.fin_w, w.fin_b, eps, offsets, glob, hz, context, pooled)
        node_sd = buf.get("node_sd", R + 1, 2 * C)
        gm.pol_nodes(t(hz), t(node_sd))
        pg = context @ w.pol_ctx.T
        pair = buf.get("pair", T, C)
        mh = buf.get("mh", T, C)
        _move_inputs(hz, node_sd, pg, w.pol_b, move_src[:T], move_dst[:T], move_game[:T], pair, mh)
        if T:
            gm.pol_pair(t(pair), t(mh), accumulate=True)
        logits = np.empty((B, M), np.float32)
        values = np.empty(B, np.float32)
        _heads(mh, move_game[:T], move_slot[:T], pooled, w.pol_out, w.scal[0], w.val1, w.val1_b, w.val2,
               w.val2_b, logits, values)
        _pass_logits(context, w.pass_w, w.scal[1], src, n_legal, logits)
        return logits, values
