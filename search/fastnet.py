"""The numba inference backend: HiveGNN's packed forward pass, compiled, on exported weights.

KataGo and Leela Chess Zero train in one framework and run inference in a backend of their own;
this is ours for the CPU. :func:`export_weights` copies a trained :class:`models.gnn.HiveGNN` into
flat float32 arrays, and :class:`FastNet` evaluates observation batches with one compiled call: no
per-op dispatch, which is most of the torch model's time at the batch sizes of play (1-16
positions, ~170 small ops each).

See docs/search.md (inference at CPU speed).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from hive_env.parallel import launching
from models.gnn import NEG_INF, HiveGNN

FLAGS = {"contract", "arcp", "nsz", "reassoc"}
"""Fast-math flags that reorder arithmetic but keep infinities and NaNs honest. The kernels also
take numpy's error model: a float division then has no zero check, whose exception branch
would keep the compiler from vectorising the loop (GELU runs 4x faster)."""

PARALLEL_MIN_BATCH = 16
"""Batches from which the game-parallel kernel pays off (numba threads permitting)."""


class Weights(NamedTuple):
    """A HiveGNN's parameters for the kernels: matrices ``[out, in]`` as in torch.

    Blocks are stacked on a leading layer axis; ``w1`` holds the first layer of each block's
    mix on ``[x, near, adjacent, opposite, context]`` with the adjacent and opposite rows
    already divided by 6 (the model's scaling). ``scal``: policy bias of the last layer, pass
    bias, LayerNorm epsilon.
    """

    embed_node: np.ndarray   # [C, F]
    embed_node_b: np.ndarray  # [C]
    embed_glob: np.ndarray   # [C, G]
    embed_glob_b: np.ndarray  # [C]
    ln_w: np.ndarray         # [L, C]
    ln_b: np.ndarray         # [L, C]
    void: np.ndarray         # [L, C]
    w1: np.ndarray           # [L, 2C, 4C]
    w1_ctx: np.ndarray       # [L, 2C, C]
    b1: np.ndarray           # [L, 2C]
    w2: np.ndarray           # [L, C, 2C]
    b2: np.ndarray           # [L, C]
    fin_w: np.ndarray        # [C]
    fin_b: np.ndarray        # [C]
    pol_src: np.ndarray      # [C, C]
    pol_dst: np.ndarray      # [C, C]
    pol_pair: np.ndarray     # [C, C]
    pol_ctx: np.ndarray      # [C, C]
    pol_b: np.ndarray        # [C]
    pol_out: np.ndarray      # [C]
    pass_w: np.ndarray       # [C]
    val1: np.ndarray         # [C, 3C]
    val1_b: np.ndarray       # [C]
    val2: np.ndarray         # [3, C]
    val2_b: np.ndarray       # [3]
    scal: np.ndarray         # [3]: policy out bias, pass bias, LayerNorm eps


def _v(x) -> np.ndarray:
    """A float32 copy (never a view of the parameter: the export must not touch the model)."""
    return np.array(x.detach().float().cpu().numpy(), np.float32, order="C", copy=True)


def export_weights(model: HiveGNN) -> Weights:
    """The model's current parameters as :class:`Weights` (copies: the model may change after)."""
    c = model.config.width
    blocks = list(model.blocks)
    eps = {float(model.norm.eps)} | {float(b.norm.eps) for b in blocks}
    if len(eps) != 1:
        raise ValueError("the numba backend needs one LayerNorm epsilon for every norm")
    w1 = []
    for b in blocks:
        w = _v(b.mix[0].weight)  # [2C, 5C]
        w[:, 2 * c: 4 * c] /= 6.0
        w1.append(w)
    pol = _v(model.policy[0].weight)  # [C, 4C]
    scal = np.array([model.policy[2].bias.item(), model.pass_logit.bias.item(), eps.pop()], np.float32)

    def part(w, lo, hi):
        return np.ascontiguousarray(w[:, lo:hi])

    return Weights(
        _v(model.embed_node.weight), _v(model.embed_node.bias), _v(model.embed_global.weight),
        _v(model.embed_global.bias),
        np.stack([_v(b.norm.weight) for b in blocks]), np.stack([_v(b.norm.bias) for b in blocks]),
        np.stack([_v(b.void) for b in blocks]), np.stack([part(w, 0, 4 * c) for w in w1]),
        np.stack([part(w, 4 * c, 5 * c) for w in w1]), np.stack([_v(b.mix[0].bias) for b in blocks]),
        np.stack([_v(b.mix[2].weight) for b in blocks]), np.stack([_v(b.mix[2].bias) for b in blocks]),
        _v(model.norm.weight), _v(model.norm.bias),
        part(pol, 0, c), part(pol, c, 2 * c), part(pol, 2 * c, 3 * c), part(pol, 3 * c, 4 * c),
        _v(model.policy[0].bias), _v(model.policy[2].weight[0]), _v(model.pass_logit.weight[0]),
        _v(model.value[0].weight), _v(model.value[0].bias), _v(model.value[2].weight),
        _v(model.value[2].bias), scal,
    )


# ----- kernels -------------------------------------------------------------------------------


@njit(cache=True, nogil=True, inline="always", fastmath=FLAGS, error_model="numpy")
def _gelu1(v):
    """Exact GELU of one float32, ``0.5 v (1 + erf(v / sqrt 2))``; erf as Eigen's rational
    approximation on [-4, 4] (float32-accurate, branch-free: loops over it vectorise)."""
    z = min(max(v * np.float32(0.7071067811865476), np.float32(-4.0)), np.float32(4.0))
    z2 = z * z
    p = z2 * np.float32(-2.72614225801306e-10) + np.float32(2.77068142495902e-08)
    p = z2 * p + np.float32(-2.10102402082508e-06)
    p = z2 * p + np.float32(-5.69250639462346e-05)
    p = z2 * p + np.float32(-7.34990630326855e-04)
    p = z2 * p + np.float32(-2.95459980854025e-03)
    p = z2 * p + np.float32(-1.60960333262415e-02)
    p = z * p
    q = z2 * np.float32(-1.45660718464996e-05) + np.float32(-2.13374055278905e-04)
    q = z2 * q + np.float32(-1.68282697438203e-03)
    q = z2 * q + np.float32(-7.37332916720468e-03)
    q = z2 * q + np.float32(-1.42647390514189e-02)
    return np.float32(0.5) * v * (np.float32(1.0) + p / q)


@njit(cache=True, nogil=True, fastmath=FLAGS, error_model="numpy")
def _gelu_(x: np.ndarray) -> None:
    """Exact GELU in place (:func:`_gelu1` on every element)."""
    flat = x.reshape(-1)
    for i in range(flat.shape[0]):
        flat[i] = _gelu1(flat[i])


@njit(cache=True, nogil=True, fastmath=FLAGS, error_model="numpy")
def _linear_(x: np.ndarray, w: np.ndarray, bias: np.ndarray, out: np.ndarray, accumulate: bool) -> None:
    """``out[i] (+)= w @ x[i] + bias`` for the rows of ``x [R, K]``, ``w [O, K]`` (torch's
    layout: each output a contiguous dot product, which the compiler vectorises). Rows go four
    at a time, so each weight row loaded serves four dot products (about 1.8x the speed of one
    row at a time on the network's shapes; ``accumulate`` adds to ``out`` without the bias)."""
    r, k = x.shape
    o = w.shape[0]
    i = 0
    while i + 4 <= r:
        x0 = x[i]
        x1 = x[i + 1]
        x2 = x[i + 2]
        x3 = x[i + 3]
        for j in range(o):
            wj = w[j]
            a0 = np.float32(0.0)
            a1 = np.float32(0.0)
            a2 = np.float32(0.0)
            a3 = np.float32(0.0)
            for kk in range(k):
                wv = wj[kk]
                a0 += x0[kk] * wv
                a1 += x1[kk] * wv
                a2 += x2[kk] * wv
                a3 += x3[kk] * wv
            if accumulate:
                out[i, j] += a0
                out[i + 1, j] += a1
                out[i + 2, j] += a2
                out[i + 3, j] += a3
            else:
                out[i, j] = a0 + bias[j]
                out[i + 1, j] = a1 + bias[j]
                out[i + 2, j] = a2 + bias[j]
                out[i + 3, j] = a3 + bias[j]
        i += 4
    while i < r:
        xi = x[i]
        for j in range(o):
            wj = w[j]
            acc = np.float32(0.0)
            for kk in range(k):
                acc += xi[kk] * wj[kk]
            if accumulate:
                out[i, j] += acc
            else:
                out[i, j] = acc + bias[j]
        i += 1


@njit(cache=True, nogil=True, fastmath=FLAGS, error_model="numpy")
def _layer_norm(h: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float, out: np.ndarray) -> None:
    n, c = h.shape
    for i in range(n):
        mean = np.float32(0.0)
        for j in range(c):
            mean += h[i, j]
        mean /= c
        var = np.float32(0.0)
        for j in range(c):
            d = h[i, j] - mean
            var += d * d
        inv = np.float32(1.0 / math.sqrt(var / c + eps))
        for j in range(c):
            out[i, j] = (h[i, j] - mean) * inv * w[j] + b[j]


@njit(cache=True, nogil=True, fastmath=FLAGS, error_model="numpy")
def _mean_rows(x: np.ndarray, out: np.ndarray) -> None:
    n, c = x.shape
    for j in range(c):
        out[0, j] = 0.0
    for i in range(n):
        for j in range(c):
            out[0, j] += x[i, j]
    if n > 0:
        for j in range(c):
            out[0, j] /= n


@njit(cache=True, nogil=True, inline="always")
def _row(k: int, void: int) -> int:
    """The row of neighbour index ``k`` (-1: no node, the void row)."""
    return void if k < 0 else k


@njit(cache=True, nogil=True, fastmath=FLAGS, error_model="numpy")
def _block_(g, neighbours, n, w, layer, eps, h, x, local, hidden, ctx, per_game):
    """Message-passing block ``layer`` on game g's ``n`` node rows ``h`` (in place): pre-norm, the
    neighbour sums and pair products, the per-game context, the mix MLP, the residual."""
    C = h.shape[1]
    _layer_norm(h, w.ln_w[layer], w.ln_b[layer], eps, x[:n])
    x[n, :] = w.void[layer]
    for i in range(n):
        # The six neighbours' rows (row n: the void vector), read in place.
        r0 = x[_row(neighbours[g, i, 0], n)]
        r1 = x[_row(neighbours[g, i, 1], n)]
        r2 = x[_row(neighbours[g, i, 2], n)]
        r3 = x[_row(neighbours[g, i, 3], n)]
        r4 = x[_row(neighbours[g, i, 4], n)]
        r5 = x[_row(neighbours[g, i, 5], n)]
        xi = x[i]
        li = local[i]
        for j in range(C):
            a0, a1, a2, a3, a4, a5 = r0[j], r1[j], r2[j], r3[j], r4[j], r5[j]
            li[j] = xi[j]
            li[C + j] = a0 + a1 + a2 + a3 + a4 + a5
            li[2 * C + j] = a0 * a1 + a1 * a2 + a2 * a3 + a3 * a4 + a4 * a5 + a5 * a0
            li[3 * C + j] = np.float32(2.0) * (a0 * a3 + a1 * a4 + a2 * a5)
    _mean_rows(x[:n], ctx)
    _linear_(ctx, w.w1_ctx[layer], w.b1[layer], per_game, False)
    for i in range(n):
        hidden[i, :] = per_game[0]
    _linear_(local, w.w1[layer], w.b1[layer], hidden, True)
    _gelu_(hidden)
    _linear_(hidden, w.w2[layer], w.b2[layer], h, True)
    for i in range(n):
        for j in range(C):
            h[i, j] += w.b2[layer, j]


@njit(cache=True, nogil=True, fastmath=FLAGS, error_model="numpy")
def _policy_(g, hz, context, legal_src, legal_dst, m, w, logits):
    """Game g's policy logits into row g: its ``m`` legal slots from the final node rows ``hz``
    (row n: zeros, a move's missing end) and ``context``, NEG_INF past them."""
    n = hz.shape[0] - 1
    C = hz.shape[1]
    # W_s h_src + W_d h_dst once per node, W_c context once per game.
    node_s = np.empty((n + 1, C), np.float32)
    node_d = np.empty((n + 1, C), np.float32)
    _linear_(hz, w.pol_src, w.pol_b, node_s, False)
    zero = np.zeros(C, np.float32)
    _linear_(hz, w.pol_dst, zero, node_d, False)
    pg = np.empty((1, C), np.float32)
    _linear_(context, w.pol_ctx, zero, pg, False)
    pass_logit = w.scal[1]
    for j in range(C):
        pass_logit += context[0, j] * w.pass_w[j]
    moves = 0
    for k in range(m):
        if legal_src[g, k] >= 0:
            moves += 1
    pair = np.empty((moves, C), np.float32)
    mh = np.empty((moves, C), np.float32)
    r = 0
    for k in range(m):
        s = legal_src[g, k]
        if s < 0:
            continue
        d = legal_dst[g, k]
        dd = n if d < 0 else d
        for j in range(C):
            pair[r, j] = hz[s, j] * hz[dd, j]
            mh[r, j] = node_s[s, j] + node_d[dd, j] + pg[0, j]
        r += 1
    _linear_(pair, w.pol_pair, zero, mh, True)
    _gelu_(mh)
    r = 0
    for k in range(m):
        if legal_src[g, k] < 0:
            logits[g, k] = pass_logit
            continue
        acc = w.scal[0]
        for j in range(C):
            acc += mh[r, j] * w.pol_out[j]
        logits[g, k] = acc
        r += 1
    for k in range(m, logits.shape[1]):
        logits[g, k] = NEG_INF


@njit(cache=True, nogil=True, fastmath=FLAGS, error_model="numpy")
def _value(hz, context, glob, w):
    """P(win) - P(loss) of the WDL head on [context, max-pooled node rows, global embedding]."""
    n = hz.shape[0] - 1
    C = hz.shape[1]
    pooled = np.empty((1, 3 * C), np.float32)
    for j in range(C):
        best = np.float32(-3.4028234663852886e38)
        for i in range(n):
            best = max(best, hz[i, j])
        pooled[0, j] = context[0, j]
        pooled[0, C + j] = best
        pooled[0, 2 * C + j] = glob[0, j]
    v1 = np.empty((1, C), np.float32)
    _linear_(pooled, w.val1, w.val1_b, v1, False)
    _gelu_(v1)
    wdl = np.empty((1, 3), np.float32)
    _linear_(v1, w.val2, w.val2_b, wdl, False)
    top = max(wdl[0, 0], max(wdl[0, 1], wdl[0, 2]))
    e0 = math.exp(wdl[0, 0] - top)
    e1 = math.exp(wdl[0, 1] - top)
    e2 = math.exp(wdl[0, 2] - top)
    return (e0 - e2) / (e0 + e1 + e2)


@njit(cache=True, nogil=True, fastmath=FLAGS, error_model="numpy")
def _forward_game(g, node_feat, neighbours, n_nodes, global_feat, legal_src, legal_dst, n_legal, w,
                  logits, values):
    """One game's policy logits (its legal slots) and value, written into row ``g``."""
    n = n_nodes[g]
    C = w.embed_node.shape[0]
    eps = w.scal[2]
    glob = np.empty((1, C), np.float32)
    _linear_(global_feat[g:g + 1], w.embed_glob, w.embed_glob_b, glob, False)
    h = np.empty((n, C), np.float32)
    _linear_(node_feat[g, :n], w.embed_node, w.embed_node_b, h, False)
    for i in range(n):
        for j in range(C):
            h[i, j] += glob[0, j]
    x = np.empty((n + 1, C), np.float32)  # row n: the void vector
    local = np.empty((n, 4 * C), np.float32)
    hidden = np.empty((n, 2 * C), np.float32)
    ctx = np.empty((1, C), np.float32)
    per_game = np.empty((1, 2 * C), np.float32)
    for layer in range(w.w1.shape[0]):
        _block_(g, neighbours, n, w, layer, eps, h, x, local, hidden, ctx, per_game)
    hz = np.zeros((n + 1, C), np.float32)  # row n: zeros (a move's missing end)
    _layer_norm(h, w.fin_w, w.fin_b, eps, hz[:n])
    context = np.empty((1, C), np.float32)
    _mean_rows(hz[:n], context)
    _policy_(g, hz, context, legal_src, legal_dst, n_legal[g], w, logits)
    values[g] = _value(hz, context, glob, w)


@njit(cache=True, nogil=True, error_model="numpy")
def forward_serial(node_feat, neighbours, n_nodes, global_feat, legal_src, legal_dst, n_legal, w,
                   logits, values):
    """Every game of the batch, one after another (logits [B, M] and values [B] are filled)."""
    for g in range(n_nodes.shape[0]):
        _forward_game(g, node_feat, neighbours, n_nodes, global_feat, legal_src, legal_dst, n_legal, w,
                      logits, values)


@njit(cache=True, nogil=True, parallel=True, error_model="numpy")
def forward_parallel(node_feat, neighbours, n_nodes, global_feat, legal_src, legal_dst, n_legal, w,
                     logits, values):
    """:func:`forward_serial` with games spread over numba's threads."""
    for g in prange(n_nodes.shape[0]):
        _forward_game(g, node_feat, neighbours, n_nodes, global_feat, legal_src, legal_dst, n_legal, w,
                      logits, values)


class FastNet:
    """``evaluate(obs) -> (logits [B, M], values [B])`` with the numba kernels.

    It computes the function of ``HiveGNN.forward`` (the torch model stays the source of truth;
    ``tests/search/test_fastnet.py`` holds the two together on real positions of all game types
    and every size): per game, over its real nodes (a prefix of the padded axis), the embedding,
    the message-passing blocks (pre-norm, adjacent and opposite neighbour pairs, the per-game
    context), the final norm, the policy MLP per legal move and the WDL head; the value returned
    is P(win) - P(loss) like ``search.network``. Matrices are ``[out, in]`` as torch keeps them.
    GELU is the exact (erf) one, with a rational erf approximation accurate to float32 rounding
    that the compiler vectorises.

    Args:
        model: the trained network; its weights are copied (:meth:`load` takes new ones).
    """

    def __init__(self, model: HiveGNN):
        self.load(model)

    def load(self, model: HiveGNN) -> None:
        """Copy the model's current weights (after ``load_state_dict``: no recompiling)."""
        self.weights = export_weights(model)

    def __call__(self, obs: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        src = obs["legal_src"]
        b, m = src.shape
        if "n_nodes" in obs:
            n_nodes = np.ascontiguousarray(obs["n_nodes"], np.int32)
        else:
            n_nodes = obs["node_mask"].sum(1).astype(np.int32)
        logits = np.empty((b, m), np.float32)
        values = np.empty(b, np.float32)
        parallel = b >= PARALLEL_MIN_BATCH
        forward = forward_parallel if parallel else forward_serial
        n_legal = np.ascontiguousarray(obs["n_legal"], np.int32)
        with launching(parallel):
            forward(_f32(obs["node_feat"]), obs["neighbours"], n_nodes, _f32(obs["global_feat"]), src,
                    obs["legal_dst"], n_legal, self.weights, logits, values)
        return logits, values


def _f32(x: np.ndarray) -> np.ndarray:
    return x if x.dtype == np.float32 else x.astype(np.float32)
