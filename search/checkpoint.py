"""The checkpoint file: a model with its config and encoding, written by training, read by players.

A checkpoint is one ``torch.save`` file (a zip archive) holding the model weights and config,
the observation/action encoding version, and whatever training state the trainer adds
(optimizer, scheduler, counters, RNG states, resolved config), all as tensors and plain data.
It is written atomically (``hive_env.files``), so readers never see half a file. Reading
checks the archive's CRCs and loads with ``weights_only=True``: a damaged file, or one that
would run code when unpickled, is refused with a one-line :class:`CheckpointError`.
"""

from __future__ import annotations

import io
import pickle
import re
import zipfile
from pathlib import Path
from typing import Any, BinaryIO

import torch

from hive_env.encode import ADAPTED_VERSIONS, ENCODING_VERSION, N_GLOBAL_FEATURES, N_NODE_FEATURES
from hive_env.files import write_atomic
from models.gnn import HiveGNN, ModelConfig


class CheckpointError(RuntimeError):
    """A checkpoint that cannot be used: unreadable, incomplete, or of another encoding."""


class UnsafeCheckpointError(CheckpointError):
    """A checkpoint holding more than tensors and plain data: loading it could run code."""


def save_checkpoint(path: str | Path, model: HiveGNN, **extra: Any) -> Path:
    """Write ``model`` (weights, config, encoding version) and ``extra`` atomically. The encoding
    is the model's own when it was loaded from an older one (``model.encoding_version``), so a
    copy of an encoding-2 network stays one."""
    version = getattr(model, "encoding_version", None) or ENCODING_VERSION
    state = {
        "model": {k: v.detach().cpu() for k, v in model.state_dict().items()},
        "model_config": vars(model.config).copy(),
        "encoding": {"version": version, "node_features": N_NODE_FEATURES,
                     "global_features": N_GLOBAL_FEATURES},
        **extra,
    }
    buf = io.BytesIO()
    torch.save(state, buf)
    return write_atomic(path, buf.getvalue())


def read_checkpoint(path: str | Path | BinaryIO) -> dict[str, Any]:
    """The checkpoint dict, on the CPU, verified before use.

    ``path`` is a file name, or a binary file the caller opened (seekable, read from its start):
    a server opens a file under a directory descriptor without following links (``web.players``),
    and the file it checked is then the file read.

    A checkpoint is data, never code: it is loaded with ``torch.load(weights_only=True)``,
    which builds only tensors and plain containers (a crafted file that would run code is
    refused), after the zip archive's CRCs are checked (flipped bytes are refused instead of
    loading as silently corrupt weights).

    An older encoding version that this code's observations adapt to exactly
    (``hive_env.encode.ADAPTED_VERSIONS``) is read; any other is refused.

    Raises:
        CheckpointError: missing, damaged, not a checkpoint, unsafe, or another encoding version.
    """
    source = Path(path) if isinstance(path, (str, Path)) else path
    path = _name(source)
    if isinstance(source, Path) and not source.is_file():
        raise CheckpointError(f"no checkpoint at {path}")
    try:
        _rewind(source)
        with zipfile.ZipFile(source) as archive:
            bad = archive.testzip()
    except (OSError, zipfile.BadZipFile, EOFError, ValueError) as e:
        raise CheckpointError(f"{path} is damaged or not a checkpoint ({_brief(e)})") from None
    if bad is not None:
        raise CheckpointError(f"{path} is damaged: its member {bad} fails its CRC check")
    try:
        _rewind(source)
        state = torch.load(source, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as e:
        found = re.search(r"GLOBAL (\S+)", str(e))
        what = f"it would load {found.group(1)}" if found else _brief(e)
        raise UnsafeCheckpointError(f"{path} holds more than weights and plain data, refused as unsafe "
                              f"({what})") from None
    except Exception as e:  # torch raises many types for a damaged file
        raise CheckpointError(f"{path} is not a readable checkpoint ({_brief(e)})") from None
    if not isinstance(state, dict) or "model" not in state or "model_config" not in state:
        raise CheckpointError(f"{path} is not a hive-zero checkpoint (no model/model_config)")
    enc = state.get("encoding", {})
    version = enc.get("version") if isinstance(enc, dict) else None
    if version != ENCODING_VERSION and version not in ADAPTED_VERSIONS:
        raise CheckpointError(f"{path} uses encoding version {version}, this code {ENCODING_VERSION}")
    return state


def _name(source: Path | BinaryIO) -> Path | str:
    """What messages call a checkpoint: its path, or an open file's name."""
    if isinstance(source, Path):
        return source
    name = getattr(source, "name", None)
    return name if isinstance(name, str) else "the checkpoint file"


def _rewind(source: Path | BinaryIO) -> None:
    """Back to the start of an open file (a path needs nothing)."""
    if not isinstance(source, Path):
        source.seek(0)


def _brief(e: BaseException) -> str:
    """One line of an exception, at most 160 characters (torch's messages run to pages)."""
    text = " ".join(re.sub(r"\x1b\[[0-9;]*m", "", str(e)).split())
    return f"{type(e).__name__}: {text[:157] + '...' if len(text) > 160 else text}"


def load_model(path: str | Path | BinaryIO,
               device: str | torch.device = "cpu") -> tuple[HiveGNN, dict[str, Any]]:
    """The model of a checkpoint (a path or an open binary file, as :func:`read_checkpoint`), in
    eval mode on ``device``, and the whole checkpoint dict. The model's ``encoding_version`` is
    the checkpoint's (``search.network`` adapts observations to an older one)."""
    state = read_checkpoint(path)
    path = _name(Path(path) if isinstance(path, str) else path)
    try:
        model = HiveGNN(ModelConfig(**state["model_config"]))
    except (TypeError, ValueError) as e:
        raise CheckpointError(f"{path}: bad model config ({_brief(e)})") from None
    try:
        model.load_state_dict(state["model"])
    except (RuntimeError, TypeError, AttributeError) as e:
        raise CheckpointError(f"{path}: weights do not match the model config ({_brief(e)})") from None
    model.encoding_version = int(state["encoding"]["version"])
    return model.to(device).eval(), state
