"""The names of a training run directory's files and folders, in one place for training, the arena
and the scripts (docs/training.md shows the tree). It imports only the standard library, so that
every package may import it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

CHECKPOINTS = "checkpoints"
"""The checkpoint store (training.checkpoint): the step checkpoints, best.pt and final.pt."""
BEST = "best.pt"
"""The network gating chose (training.gating), in the checkpoints folder."""
FINAL = "final.pt"
"""The network at the run's last step, in the checkpoints folder."""
REPLAY = "replay"
"""The replay store (training.replay): self-play's shards."""
TB = "tb"
"""TensorBoard's events (training.metrics)."""
EVAL = "eval"
"""The evaluations of checkpoints (training.gating): the ledger, frozen copies, arena results."""
FROZEN = "frozen"
"""Under ``eval/``: the copies of checkpoints an evaluation plays."""
LEDGER = "ledger.json"
"""Under ``eval/``: the evaluations and their states."""
LADDER = "ladder"
"""The final ladder (``eval.final_ladder``), where ``hive-arena compare SWEEP_DIR`` looks for it."""
CONFIG = "config.yaml"
"""The resolved config and git commit of the run's last start."""
TRAIN_LOG = "train.log"
"""The run's time-stamped log (Hydra's job log: the job is named ``train``)."""
RESUMES_LOG = "resumes.log"
"""One line per resume with changed settings."""
SWEEP_FILE = "sweep.json"
"""A sweep's record, in the sweep's directory beside its jobs' run directories (training.sweep)."""

CHECKPOINT_PREFIX = "ckpt_"
CHECKPOINT_SUFFIX = ".pt"
CHECKPOINT_GLOB = f"{CHECKPOINT_PREFIX}*{CHECKPOINT_SUFFIX}"
"""A glob that matches every step checkpoint's name."""
BEST_COPY_PREFIX = Path(BEST).stem + "_"
"""A frozen copy of best.pt is ``best_<hash>.pt``."""

_P, _S = re.escape(CHECKPOINT_PREFIX), re.escape(CHECKPOINT_SUFFIX)
_STEP = re.compile(rf"^{_P}(\d+){_S}$")
FROZEN_CHECKPOINT_PATTERN = rf"{_P}0*(?P<step>\d+)_(?P<hash>[0-9a-f]+){_S}"
"""A regular expression (unanchored) for a frozen copy's name: groups ``step`` and ``hash``."""
FROZEN_BEST_PATTERN = rf"{re.escape(BEST_COPY_PREFIX)}(?P<hash>[0-9a-f]+){_S}"
"""A regular expression (unanchored) for a frozen copy of best.pt's name: group ``hash``."""
_FROZEN_CHECKPOINT = re.compile(rf"^{FROZEN_CHECKPOINT_PATTERN}$")


def checkpoint_name(step: int) -> str:
    """The file name of the step checkpoint of ``step``: ``ckpt_00001200.pt``."""
    return f"{CHECKPOINT_PREFIX}{step:08d}{CHECKPOINT_SUFFIX}"


def checkpoint_step(name: str) -> int | None:
    """The step of a step checkpoint's file name (:func:`checkpoint_name`), None for another file."""
    m = _STEP.match(name)
    return int(m.group(1)) if m else None


def frozen_name(step: int, digest: str) -> str:
    """The file name of the frozen copy of the checkpoint of ``step`` with hash ``digest``."""
    return f"{CHECKPOINT_PREFIX}{step:08d}_{digest}{CHECKPOINT_SUFFIX}"


def frozen_step(name: str) -> tuple[int, str] | None:
    """``(step, hash)`` of a frozen copy's file name (:func:`frozen_name`; any number of leading zeros),
    None for another file."""
    m = _FROZEN_CHECKPOINT.match(name)
    return (int(m["step"]), m["hash"]) if m else None


def frozen_best_name(digest: str) -> str:
    """The file name of the frozen copy of best.pt with hash ``digest``."""
    return f"{BEST_COPY_PREFIX}{digest}{CHECKPOINT_SUFFIX}"


@dataclass(frozen=True)
class RunLayout:
    """The paths of the run directory ``root``."""

    root: Path

    @property
    def checkpoints(self) -> Path:
        return self.root / CHECKPOINTS

    @property
    def best(self) -> Path:
        return self.checkpoints / BEST

    @property
    def final(self) -> Path:
        return self.checkpoints / FINAL

    def checkpoint(self, step: int) -> Path:
        return self.checkpoints / checkpoint_name(step)

    @property
    def replay(self) -> Path:
        return self.root / REPLAY

    @property
    def tb(self) -> Path:
        return self.root / TB

    @property
    def eval(self) -> Path:
        return self.root / EVAL

    @property
    def frozen(self) -> Path:
        return self.eval / FROZEN

    @property
    def ledger(self) -> Path:
        return self.eval / LEDGER

    @property
    def ladder(self) -> Path:
        return self.root / LADDER

    @property
    def config(self) -> Path:
        return self.root / CONFIG

    @property
    def train_log(self) -> Path:
        return self.root / TRAIN_LOG

    @property
    def resumes_log(self) -> Path:
        return self.root / RESUMES_LOG


__all__ = ["BEST", "BEST_COPY_PREFIX", "CHECKPOINTS", "CHECKPOINT_GLOB", "CHECKPOINT_PREFIX",
           "CHECKPOINT_SUFFIX", "CONFIG", "EVAL", "FINAL", "FROZEN", "FROZEN_BEST_PATTERN",
           "FROZEN_CHECKPOINT_PATTERN", "LADDER", "LEDGER", "REPLAY", "RESUMES_LOG", "RunLayout",
           "SWEEP_FILE", "TB", "TRAIN_LOG", "checkpoint_name", "checkpoint_step", "frozen_best_name",
           "frozen_name", "frozen_step"]
