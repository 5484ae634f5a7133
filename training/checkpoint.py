"""The checkpoint store: a directory the trainer publishes to and workers and evaluation poll.

Files are in the format of ``search.checkpoint`` (model, config, encoding, plus the
trainer's state); it is the only channel between processes besides the replay store.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hive_zero.run_layout import checkpoint_name, checkpoint_step
from models.gnn import HiveGNN
from search.checkpoint import CheckpointError, UnsafeCheckpointError, read_checkpoint, save_checkpoint


class CheckpointStore:
    """A directory of ``ckpt_<step>.pt`` files plus ``best.pt``: the trainer publishes, workers
    and evaluation poll. It is the only channel between them (with the replay store)."""

    def __init__(self, directory: str | Path, create: bool = True):
        self.dir = Path(directory)
        if create:
            self.dir.mkdir(parents=True, exist_ok=True)

    def path(self, step: int) -> Path:
        return self.dir / checkpoint_name(step)

    def publish(self, step: int, model: HiveGNN, **extra: Any) -> Path:
        return save_checkpoint(self.path(step), model, step=step, **extra)

    def exists(self) -> bool:
        """Whether any step checkpoint was published (a run that started)."""
        return self.dir.is_dir() and bool(self.steps())

    def steps(self) -> list[int]:
        """Published steps, oldest first (temp files ignored)."""
        out = []
        for p in self.dir.iterdir():
            step = checkpoint_step(p.name)
            if step is not None:
                out.append(step)
        return sorted(out)

    def latest(self, warn: Callable[[str], None] | None = None) -> tuple[int, dict[str, Any]] | None:
        """The newest readable checkpoint as (step, dict); damaged ones (truncated, bytes flipped:
        ``search.checkpoint.read_checkpoint`` checks the archive's CRCs) are skipped, each with one
        warning naming it, through ``warn`` (default: ``warnings.warn``).

        Raises:
            UnsafeCheckpointError: a checkpoint that would run code when loaded: someone put it
                there, so the run stops instead of quietly resuming from an older one.
        """
        for step in reversed(self.steps()):
            try:
                return step, read_checkpoint(self.path(step))
            except UnsafeCheckpointError:
                raise
            except CheckpointError as e:
                if warn is None:
                    warnings.warn(f"skipping checkpoint: {e}", stacklevel=2)
                else:
                    warn(f"skipping checkpoint: {e}")
        return None

    def prune(self, keep: int) -> None:
        """Delete all but the newest ``keep`` step checkpoints (best.pt is kept)."""
        for step in self.steps()[:-keep] if keep > 0 else []:
            self.path(step).unlink(missing_ok=True)
