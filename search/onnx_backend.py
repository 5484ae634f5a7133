"""The ``onnx`` inference backend: HiveGNN exported to ONNX and run by ONNX Runtime (CPU).

``OnnxNet(model)(obs)`` returns what ``Evaluator._torch`` does: ``(logits [B, M] float32, NEG_INF
past each position's legal moves; values [B] float32 = P(win) - P(loss))``. What is exported is
:class:`PaddedHiveGNN`, the same function over the padded batch. Optional dependency: ``pip
install onnxruntime onnx``; nothing else imports onnxruntime.

See docs/search.md (inference at CPU speed).
"""

from __future__ import annotations

import copy
import io
import warnings

import numpy as np
import torch
from torch import nn

from models.gnn import NEG_INF, HiveGNN

from .inputs import NETWORK_INPUTS, trim

OPSET = 17
_DYNAMIC_AXES = {
    "node_feat": {0: "batch", 1: "nodes"},
    "neighbours": {0: "batch", 1: "nodes"},
    "node_mask": {0: "batch", 1: "nodes"},
    "global_feat": {0: "batch"},
    "legal_src": {0: "batch", 1: "moves"},
    "legal_dst": {0: "batch", 1: "moves"},
    "n_legal": {0: "batch"},
    "logits": {0: "batch", 1: "moves"},
    "values": {0: "batch"},
}
_MISSING = "the onnx inference backend needs onnxruntime and onnx: pip install onnxruntime onnx"


class PaddedHiveGNN(nn.Module):
    """HiveGNN's function on the padded batch (the exportable form), over ``model``'s parameters.

    The model's own forward pass works on packed rows (``nonzero``, ``index_add_``,
    ``index_put``); the TorchScript exporter turns ``index_add_`` into a ScatterND that
    overwrites duplicates instead of adding them (wrong results), so this is the same function
    over the padded batch (every node and slot up to the batch's largest, which ``trim`` keeps
    small), written with ops that export exactly (Gather, masked sums, MatMul). Batch, node and
    move counts are dynamic axes; the value head's softmax is part of the graph.

    ``forward(node_feat, neighbours, node_mask, global_feat, legal_src, legal_dst, n_legal)``
    (the inputs in ``NETWORK_INPUTS`` order, dtypes as the encoder writes them) returns
    ``logits [B, M]`` (NEG_INF on padding slots) and ``values [B]`` (P(win) - P(loss)).
    As in the packed pass, the context's share of each first layer is computed once per game
    and the policy's source and destination terms once per node.
    """

    def __init__(self, model: HiveGNN):
        super().__init__()
        self.model = model

    def forward(self, node_feat, neighbours, node_mask, global_feat, legal_src, legal_dst, n_legal):
        m = self.model
        b, n = node_mask.shape
        maskf = node_mask.to(torch.float32).unsqueeze(-1)  # [B, N, 1]
        count = maskf.sum(1).clamp(min=1.0)  # [B, 1]
        # Row n of each game (in a [B * (N + 1), C] table) stands for "no node" (index -1).
        base = (torch.arange(b, device=node_mask.device) * (n + 1)).view(b, 1)

        def flat_index(index: torch.Tensor) -> torch.Tensor:  # [B, K] (-1 = none) -> [B * K]
            index = index.long()
            return (torch.where(index < 0, torch.full_like(index, n), index) + base).reshape(-1)

        def table(h: torch.Tensor, extra: torch.Tensor) -> torch.Tensor:  # [B, N, C] -> [B*(N+1), C]
            ext = torch.cat([h, extra.view(1, 1, -1).expand(b, 1, h.shape[-1])], dim=1)
            return ext.reshape(b * (n + 1), h.shape[-1])

        def mean(h: torch.Tensor) -> torch.Tensor:  # masked mean over the nodes, [B, C]
            return (h * maskf).sum(1) / count

        glob_h = m.embed_global(global_feat.float())  # [B, C]
        h = (m.embed_node(node_feat.float()) + glob_h.unsqueeze(1)) * maskf
        nb_index = flat_index(neighbours.reshape(b, n * 6))
        for block in m.blocks:
            x = block.norm(h)
            c = x.shape[-1]
            nb = table(x, block.void).index_select(0, nb_index).view(b, n, 6, c)
            near = nb.sum(2)
            adjacent = (nb[:, :, :5] * nb[:, :, 1:]).sum(2) + nb[:, :, 5] * nb[:, :, 0]
            opposite = 2.0 * (nb[:, :, :3] * nb[:, :, 3:]).sum(2)
            first = block.mix[0]
            local = torch.cat([x, near, adjacent / 6.0, opposite / 6.0], dim=-1)
            per_game = nn.functional.linear(mean(x), first.weight[:, 4 * c:], first.bias)  # [B, 2C]
            hidden = nn.functional.linear(local, first.weight[:, : 4 * c]) + per_game.unsqueeze(1)
            h = h + block.mix[2](block.mix[1](hidden)) * maskf
        h = m.norm(h)
        c = h.shape[-1]
        context = mean(h)  # [B, C]

        mv = legal_src.shape[1]
        first = m.policy[0]
        weight = first.weight
        zero = h.new_zeros(c)
        ps, pd = flat_index(legal_src), flat_index(legal_dst)
        hz = table(h, zero)
        node_s = nn.functional.linear(hz, weight[:, :c])
        node_d = nn.functional.linear(hz, weight[:, c: 2 * c])
        per_game = nn.functional.linear(context, weight[:, 3 * c:], first.bias)  # [B, C]
        pair = hz.index_select(0, ps) * hz.index_select(0, pd)
        hidden = (node_s.index_select(0, ps) + node_d.index_select(0, pd)
                  + nn.functional.linear(pair, weight[:, 2 * c: 3 * c])).view(b, mv, -1)
        hidden = hidden + per_game.unsqueeze(1)
        logits = m.policy[2](m.policy[1](hidden)).squeeze(-1)  # [B, M]
        logits = torch.where(legal_src < 0, m.pass_logit(context), logits)
        slots = torch.arange(mv, device=legal_src.device).unsqueeze(0)
        logits = logits.masked_fill(slots >= n_legal.long().unsqueeze(1), NEG_INF)

        pooled_max = h.masked_fill(~node_mask.bool().unsqueeze(-1), torch.finfo(h.dtype).min).amax(1)
        wdl = m.value(torch.cat([context, pooled_max, glob_h], dim=-1)).softmax(-1)
        return logits, wdl[:, 0] - wdl[:, 2]


def export_onnx(model: HiveGNN, example: dict[str, np.ndarray]) -> bytes:
    """The ONNX model (bytes) of :class:`PaddedHiveGNN` over a CPU float32 copy of ``model``,
    traced on the (trimmed) observation ``example``; batch, nodes and moves are dynamic."""
    net = PaddedHiveGNN(copy.deepcopy(model).cpu().float().eval()).eval()
    args = tuple(torch.from_numpy(np.ascontiguousarray(example[k])) for k in NETWORK_INPUTS)
    buf = io.BytesIO()
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")  # the TorchScript exporter's deprecation and tracer notes
        torch.onnx.export(net, args, buf, input_names=list(NETWORK_INPUTS),
                          output_names=["logits", "values"], dynamic_axes=_DYNAMIC_AXES,
                          opset_version=OPSET, do_constant_folding=True, dynamo=False)
    return buf.getvalue()


def _example_observation(model: HiveGNN) -> dict[str, np.ndarray]:
    """A small batch (2 games, 3 nodes, 3 moves) of the encoder's dtypes, for tracing."""
    cfg = model.config
    rng = np.random.default_rng(0)
    return {
        "node_feat": rng.standard_normal((2, 3, cfg.node_features)).astype(np.float32),
        "neighbours": np.array([[[1, 2, -1, -1, -1, -1], [0, -1, -1, 2, -1, -1], [-1] * 6]] * 2, np.int16),
        "node_mask": np.array([[True, True, True], [True, True, False]]),
        "global_feat": rng.standard_normal((2, cfg.global_features)).astype(np.float32),
        "legal_src": np.array([[0, 1, -1], [1, -1, -1]], np.int16),
        "legal_dst": np.array([[2, 2, -1], [0, -1, -1]], np.int16),
        "n_legal": np.array([3, 2], np.int32),
    }


class OnnxNet:
    """``evaluate(obs) -> (logits [B, M], values [B])`` by ONNX Runtime, one intra-op thread.

    The weights are copied into the session when it is built: after ``load_state_dict`` build a
    new ``OnnxNet`` (``Evaluator.refresh`` does).

    Args:
        model: the torch network; its parameters are exported (copied) now.

    Raises:
        ImportError: onnxruntime or onnx is not installed.
    """

    def __init__(self, model: HiveGNN):
        try:
            import onnx  # noqa: F401 - the TorchScript exporter needs it
            import onnxruntime as ort
        except ImportError as exc:
            raise ImportError(_MISSING) from exc
        self.onnx_model = export_onnx(model, _example_observation(model))
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.session = ort.InferenceSession(self.onnx_model, options, providers=["CPUExecutionProvider"])

    def __call__(self, obs: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        batch, slots = obs["legal_src"].shape
        inputs = {k: np.ascontiguousarray(v) for k, v in trim(obs).items()}
        logits, values = self.session.run(None, inputs)
        out = np.full((batch, slots), NEG_INF, np.float32)
        out[:, : logits.shape[1]] = logits
        return out, values.astype(np.float32, copy=False)
