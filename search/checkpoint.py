"""The checkpoint file: a model with its config and encoding, written by training, read by players.

A checkpoint is one ``torch.save`` file holding the model weights and config, the
observation/action encoding version, and whatever training state the trainer adds
(optimizer, scheduler, counters, RNG states, resolved config). It is written atomically
(``hive_env.files``), so readers never see half a file; a truncated or corrupt file is
refused at load with :class:`CheckpointError`.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import torch

from hive_env.encode import ENCODING_VERSION, N_GLOBAL_FEATURES, N_NODE_FEATURES
from hive_env.files import write_atomic
from models.gnn import HiveGNN, ModelConfig


class CheckpointError(RuntimeError):
    """A checkpoint that cannot be used: unreadable, incomplete, or of another encoding."""


def save_checkpoint(path: str | Path, model: HiveGNN, **extra: Any) -> Path:
    """Write ``model`` (weights, config, encoding version) and ``extra`` atomically."""
    state = {
        "model": {k: v.detach().cpu() for k, v in model.state_dict().items()},
        "model_config": vars(model.config).copy(),
        "encoding": {"version": ENCODING_VERSION, "node_features": N_NODE_FEATURES,
                     "global_features": N_GLOBAL_FEATURES},
        **extra,
    }
    buf = io.BytesIO()
    torch.save(state, buf)
    return write_atomic(path, buf.getvalue())


def read_checkpoint(path: str | Path) -> dict[str, Any]:
    """The checkpoint dict, on the CPU, checked for completeness and encoding version.

    Raises:
        CheckpointError: missing, unreadable, incomplete, or another encoding version.
    """
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"no checkpoint at {path}")
    try:
        state = torch.load(path, map_location="cpu", weights_only=False)
    except Exception as e:  # torch raises many types for a damaged file
        raise CheckpointError(f"{path} is not a readable checkpoint ({type(e).__name__}: {e})") from None
    if not isinstance(state, dict) or "model" not in state or "model_config" not in state:
        raise CheckpointError(f"{path} is not a hive-zero checkpoint (no model/model_config)")
    enc = state.get("encoding", {})
    if enc.get("version") != ENCODING_VERSION:
        raise CheckpointError(
            f"{path} uses encoding version {enc.get('version')}, this code {ENCODING_VERSION}")
    return state


def load_model(path: str | Path, device: str | torch.device = "cpu") -> tuple[HiveGNN, dict[str, Any]]:
    """The model of a checkpoint, in eval mode on ``device``, and the whole checkpoint dict."""
    state = read_checkpoint(path)
    model = HiveGNN(ModelConfig(**state["model_config"]))
    try:
        model.load_state_dict(state["model"])
    except RuntimeError as e:
        raise CheckpointError(f"{path}: weights do not match the model config ({e})") from None
    return model.to(device).eval(), state
