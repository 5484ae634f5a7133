"""The bridge from numpy observations to the network and back, for search.

``make_evaluator(model)`` returns the ``evaluate(obs) -> (policy_logits, values)`` callable
that :class:`search.mcts.BatchedMCTS` takes: one batched forward pass, no gradients,
optional bfloat16 autocast on CUDA. Observations become tensors with ``torch.from_numpy``
(no copy on the CPU).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np
import torch

from models.gnn import NEG_INF, HiveGNN, expected_value

NETWORK_INPUTS = ("node_feat", "neighbours", "node_mask", "global_feat", "legal_src", "legal_dst", "n_legal")


def pick_device(device: str = "auto") -> torch.device:
    """``auto`` -> CUDA when present, else CPU; anything else as given."""
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(device)


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


def maybe_compile(model: HiveGNN, compile: bool) -> Callable[..., tuple[torch.Tensor, torch.Tensor]]:
    """``torch.compile`` of the model (dynamic shapes: batch, node and move counts vary) when
    asked, else the model itself. It pays off on GPUs and on CPUs alike (the tiny network's
    forward pass runs ~2.5x faster on one CPU core: its many small ops fuse); compiling
    takes ~30 s per process (a minute with the backward pass).

    Where compiling fails (a CPU machine without a C++ compiler, an op the compiler does
    not handle), the first call warns once and the model runs eagerly from then on.
    """
    if not compile:
        return model
    state: dict[str, Callable] = {"net": torch.compile(model, dynamic=True)}

    def run(*args, **kwargs):
        try:
            return state["net"](*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - any compiler failure; eager re-raises real errors
            if state["net"] is model:
                raise
            reason = (str(exc).strip().splitlines() or [""])[0][:200]
            warnings.warn(f"torch.compile failed ({type(exc).__name__}: {reason}); "
                          "the network runs without it", RuntimeWarning, stacklevel=2)
            state["net"] = model
            return model(*args, **kwargs)

    return run


def make_evaluator(model: HiveGNN, device: torch.device | str = "cpu", bf16: bool = False,
                   compile: bool = False):
    """An ``evaluate`` callable for search over ``model`` (put in eval mode)."""
    device = torch.device(device) if isinstance(device, str) else device
    model.eval()
    net = maybe_compile(model, compile)

    @torch.no_grad()
    def evaluate(obs: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        batch, slots = obs["legal_src"].shape
        inputs = to_tensors(trim(obs), device)
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=bf16):
            logits, wdl = net(inputs)
        out = np.full((batch, slots), NEG_INF, np.float32)
        out[:, : logits.shape[1]] = logits.float().cpu().numpy()
        return out, expected_value(wdl.float()).cpu().numpy()

    return evaluate


def uniform_evaluate(obs: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Uniform priors over the legal moves and a neutral value: search without a network."""
    batch, slots = obs["legal_actions"].shape
    return np.zeros((batch, slots), np.float32), np.zeros(batch, np.float32)
