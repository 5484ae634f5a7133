"""Resuming a run with other settings: which changes it may take, and the record of them.

A rerun of ``hive-train`` in an existing run directory compares its settings with those the
run was last started with (:func:`saved_settings`: ``config.yaml``, else the newest readable
checkpoint's) before writing anything (:func:`check_resume`). Changes of the network or of
the data's meaning (:data:`RESUME_FIXED`) are refused, all named at once; the others are
allowed and appended to ``resumes.log`` (:func:`record_resume`).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hive_env.files import write_atomic
from hive_zero.run_layout import CHECKPOINT_GLOB, RunLayout
from search.checkpoint import CheckpointError, read_checkpoint

from .config import ConfigError, ModelSettings, defaults

RESUME_FIXED = ("env.", "model.", "train.init_from")
"""Settings a resumed run must keep (prefixes of full keys): they change the network or the
meaning of its data. ``env.game_type`` sets the action space and the pieces, ``env.ply_cap``
decides which games end as draws (and so their labels), and ``model.*`` sets the
network's shape (a change that resolves to the same network, e.g. ``model.size=tiny`` for
``model.width=32 model.layers=2``, is allowed); ``train.init_from`` names the network the run
started from (its lineage). Everything else (``train.*``, ``selfplay.*``,
``search.*``, ``eval.*``, ``ray.*``, ``seed``, ``device``, ``compile``, ``backend``, ``name``) may
change on resume: a run started on one machine may go on on a Ray cluster and back."""

RESUME_IGNORED = ("run_dir", "hydra")
"""Top-level keys never compared on resume."""


def _flat(tree: Any, prefix: str = "") -> dict[str, Any]:
    """``{"a": {"b": 1}}`` as ``{"a.b": 1}`` (lists and tuples are values)."""
    if not isinstance(tree, dict):
        return {prefix[:-1]: tree}
    out: dict[str, Any] = {}
    for k, v in tree.items():
        out.update(_flat(v, f"{prefix}{k}."))
    return out


def _same_network(saved: dict, new: dict) -> bool:
    """Whether two ``model`` sections resolve to the same :class:`ModelConfig`."""
    try:
        return (ModelSettings(**(saved.get("model") or {})).model_config()
                == ModelSettings(**(new.get("model") or {})).model_config())
    except (TypeError, ValueError):
        return False


def resume_changes(saved: dict, new: dict) -> tuple[list[str], list[str]]:
    """The differences between the settings a run was saved with and the new ones, as
    ``key: old -> new`` texts: (refused, allowed). Refused are the :data:`RESUME_FIXED` keys. A
    setting the saved run did not have yet (added to the code since) counts as its default:
    settings are added with the default that keeps the old behaviour."""
    base = _flat(defaults())
    old = {k: v for k, v in {**base, **_flat(saved)}.items() if k.split(".")[0] not in RESUME_IGNORED}
    cur = {k: v for k, v in {**base, **_flat(new)}.items() if k.split(".")[0] not in RESUME_IGNORED}
    refused, allowed = [], []
    same_network = _same_network(saved, new)
    for key in sorted(set(old) | set(cur)):
        a, b = old.get(key, "<unset>"), cur.get(key, "<unset>")
        if a == b:
            continue
        text = f"{key}: {a} -> {b}"
        fixed = key.startswith(RESUME_FIXED) and not (key.startswith("model.") and same_network)
        (refused if fixed else allowed).append(text)
    return refused, allowed


def saved_settings(run_dir: Path) -> dict[str, Any] | None:
    """The settings an existing run was last started with: its ``config.yaml`` (whole: it ends
    with its ``# git:`` line), else the config stored in its newest readable checkpoint (a
    truncated or damaged config.yaml); None for a new run. Reads only."""
    from omegaconf import OmegaConf

    layout = RunLayout(run_dir)
    path = layout.config
    if path.is_file():
        try:
            text = path.read_text(encoding="utf-8")
            if text.rstrip("\n").rsplit("\n", 1)[-1].startswith("# git: "):  # whole: its last line is there
                saved = OmegaConf.to_container(OmegaConf.create(text), resolve=True)
                if isinstance(saved, dict):
                    return saved
        except Exception:  # a damaged config.yaml (bytes flipped): fall back to the checkpoints
            pass
    if layout.checkpoints.is_dir():
        for p in sorted(layout.checkpoints.glob(CHECKPOINT_GLOB), reverse=True):
            try:
                config = read_checkpoint(p).get("config")
            except CheckpointError:
                continue
            if isinstance(config, dict):
                return config
    return None


def check_resume(run_dir: Path, settings: dict[str, Any]) -> list[str]:
    """Compare ``settings`` with those saved in ``run_dir`` (:func:`saved_settings`), writing nothing.

    Returns:
        the allowed changes (``key: old -> new``), empty for a new run or the same settings.
    Raises:
        ConfigError: a change the run cannot take (``training.config.RESUME_FIXED``), all named.
    """
    saved = saved_settings(run_dir)
    if saved is None:
        return []
    refused, allowed = resume_changes(saved, settings)
    if refused:
        raise ConfigError(f"cannot resume {run_dir} with changed {'; '.join(refused)} (they change the "
                          "network or the meaning of its data): use the old values or another run_dir")
    return allowed


def record_resume(run_dir: Path, changes: list[str], commit: str) -> Path:
    """Append one line for a resume with ``changes`` to ``run_dir/resumes.log`` (rewritten atomically)."""
    path = RunLayout(run_dir).resumes_log
    old = path.read_text() if path.is_file() else ""
    when = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return write_atomic(path, old + f"{when} git {commit}: {'; '.join(changes)}\n")
