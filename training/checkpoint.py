"""Checkpoints: atomic save, verified load, and a directory store that workers poll.

A checkpoint is one ``torch.save`` file holding the model weights and config, the
observation/action encoding version, and whatever training state the trainer adds
(optimizer, scheduler, counters, RNG states, resolved config). It is written to
``name.tmp`` and renamed, so readers never see half a file; a truncated or corrupt file is
detected at load and skipped with a warning by :class:`CheckpointStore`.
"""

from __future__ import annotations

import os
import re
import warnings
from pathlib import Path
from typing import Any

import torch

from hive_env.encode import N_GLOBAL_FEATURES, N_NODE_FEATURES
from models.gnn import HiveGNN, ModelConfig

ENCODING_VERSION = 1
"""Bump when observation features or action ids change meaning (old checkpoints refuse)."""

_STEP_RE = re.compile(r"^ckpt_(\d+)\.pt$")


class CheckpointError(RuntimeError):
    """A checkpoint that cannot be used: unreadable, incomplete, or of another encoding."""


def save_checkpoint(path: str | Path, model: HiveGNN, **extra: Any) -> Path:
    """Write ``model`` (weights, config, encoding version) and ``extra`` atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    state = {
        "model": {k: v.detach().cpu() for k, v in model.state_dict().items()},
        "model_config": vars(model.config).copy(),
        "encoding": {"version": ENCODING_VERSION, "node_features": N_NODE_FEATURES,
                     "global_features": N_GLOBAL_FEATURES},
        **extra,
    }
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        torch.save(state, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return path


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


class CheckpointStore:
    """A directory of ``ckpt_<step>.pt`` files plus ``best.pt``: the trainer publishes, workers
    and evaluation poll. It is the only channel between them (with the replay store)."""

    def __init__(self, directory: str | Path):
        self.dir = Path(directory)
        self.dir.mkdir(parents=True, exist_ok=True)

    def path(self, step: int) -> Path:
        return self.dir / f"ckpt_{step:08d}.pt"

    def publish(self, step: int, model: HiveGNN, **extra: Any) -> Path:
        return save_checkpoint(self.path(step), model, step=step, **extra)

    def steps(self) -> list[int]:
        """Published steps, oldest first (temp files ignored)."""
        out = []
        for p in self.dir.iterdir():
            m = _STEP_RE.match(p.name)
            if m:
                out.append(int(m.group(1)))
        return sorted(out)

    def latest(self) -> tuple[int, dict[str, Any]] | None:
        """The newest readable checkpoint as (step, dict); corrupt ones are skipped with a warning."""
        for step in reversed(self.steps()):
            try:
                return step, read_checkpoint(self.path(step))
            except CheckpointError as e:
                warnings.warn(f"skipping checkpoint: {e}", stacklevel=2)
        return None

    def prune(self, keep: int) -> None:
        """Delete all but the newest ``keep`` step checkpoints (best.pt is kept)."""
        for step in self.steps()[:-keep] if keep > 0 else []:
            self.path(step).unlink(missing_ok=True)
