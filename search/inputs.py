"""The network's inputs: which observation arrays it reads, cut to the batch and as tensors.

Shared by every inference backend (``search.network``, ``search.onnx_backend``) and the trainer.
"""

from __future__ import annotations

import numpy as np
import torch

NETWORK_INPUTS = ("node_feat", "neighbours", "node_mask", "global_feat", "legal_src", "legal_dst", "n_legal")


def to_tensors(obs: dict[str, np.ndarray], device: torch.device) -> dict[str, torch.Tensor]:
    """The network inputs of an observation dict as tensors on ``device``."""
    out = {}
    for k in NETWORK_INPUTS:
        t = torch.from_numpy(np.ascontiguousarray(obs[k]))
        out[k] = t.to(device, non_blocking=True) if device.type != "cpu" else t
    return out


def trim(obs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The network inputs cut to the batch's largest node count and legal-move count.

    Real nodes and legal moves are prefixes of their padded axes, so nothing is lost; the
    network's cost then follows the positions, not the padding (M = 512 slots, mostly empty).
    """
    nodes = max(1, int(obs["n_nodes"].max(initial=1))) if "n_nodes" in obs else obs["node_mask"].shape[1]
    moves = max(1, int(obs["n_legal"].max(initial=1)))
    out = {k: obs[k] for k in NETWORK_INPUTS}
    for k in ("node_feat", "neighbours", "node_mask"):
        out[k] = obs[k][:, :nodes]
    for k in ("legal_src", "legal_dst"):
        out[k] = obs[k][:, :moves]
    return out
