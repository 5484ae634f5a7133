"""A self-play worker: plays batched games with the newest checkpoint and writes replay shards.

Workers run as spawned processes (``worker_main``) or inline in the trainer process
(``selfplay.workers: 0``); they talk to the trainer only through the checkpoint store and
the replay store in the run directory.
"""

from __future__ import annotations

import os
import random
import signal
import time
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from search.checkpoint import load_model, read_checkpoint
from search.network import Evaluator, make_evaluator, pick_device

from .checkpoint import CheckpointStore
from .replay import ReplayStore, Samples
from .selfplay import SelfPlay

if TYPE_CHECKING:
    from .config import RunConfig


def seed_everything(seed: int) -> None:
    """Seed Python's, numpy's and torch's global generators."""
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


class WorkerLoop:
    """Self-play against the newest checkpoint; finished games go to the replay store."""

    def __init__(self, cfg: RunConfig, worker: int, device: torch.device):
        self.cfg = cfg
        self.worker = worker
        self.device = device
        self.ckpts = CheckpointStore(cfg.run_dir / "checkpoints")
        self.replay = ReplayStore(cfg.run_dir / "replay")
        self.step_loaded = -1
        self.selfplay: SelfPlay | None = None
        self.evaluate: Evaluator | None = None
        self.pending: list = []
        seq = len([p for p in self.replay.shard_paths() if p.name.startswith(f"shard_{worker:03d}_")])
        self.seed = cfg.seed * 1000 + worker * 7919 + seq

    def refresh(self) -> bool:
        """Load the newest checkpoint if it is newer than ours; False when there is none."""
        steps = self.ckpts.steps()
        if not steps or steps[-1] == self.step_loaded:
            return bool(steps)
        latest = self.ckpts.latest()
        if latest is None:
            return False
        step, _ = latest
        if self.selfplay is None:
            model, _ = load_model(self.ckpts.path(step), self.device)
            self.evaluate = make_evaluator(model, self.device, bf16=self.device.type == "cuda",
                                           compile=self.cfg.compile, backend=self.cfg.inference)
            self.selfplay = SelfPlay(self.cfg.selfplay, self.cfg.search, self.cfg.env.game_type,
                                     self.cfg.env.ply_cap, self.evaluate, seed=self.seed)
        else:  # new weights into the same model and backend: nothing rebuilt or recompiled
            self.evaluate.load_weights(read_checkpoint(self.ckpts.path(step))["model"])
            self.selfplay.set_evaluate(self.evaluate)
        self.step_loaded = step
        return True

    def play(self) -> int:
        """One batched move in every game; writes a shard when enough games finished."""
        assert self.selfplay is not None
        self.pending.extend(self.selfplay.step())
        if len(self.pending) >= self.cfg.selfplay.shard_games:
            return self.flush()
        return 0

    def flush(self) -> int:
        if not self.pending:
            return 0
        games = self.pending
        self.pending = []
        samples = Samples.concat([g.samples for g in games])
        stats = {"game_plies": np.array([g.plies for g in games], np.int32),
                 "game_status": np.array([g.status for g in games], np.int8),
                 "game_truncated": np.array([g.truncated for g in games], np.bool_),
                 "network_step": np.int64(self.step_loaded)}
        self.replay.write_shard(self.worker, samples, stats)
        self.replay.append_games(self.worker, [g.game_string for g in games])
        return len(games)


def worker_main(cfg: RunConfig, worker: int, stop: Any, parent_pid: int) -> None:
    """Entry point of a self-play process: play until told to stop or the parent dies.

    SIGINT is ignored (the trainer spawns workers with it ignored already): Ctrl-C reaches the
    whole process group, and the trainer stops its workers through ``stop``. SIGTERM ends a
    worker at once, which is safe: shards are written atomically.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    torch.set_num_threads(1)
    import numba

    numba.set_num_threads(1)
    seed_everything(cfg.seed * 1000 + worker)
    loop = WorkerLoop(cfg, worker, pick_device(cfg.device))
    moves = 0
    while not stop.is_set() and os.getppid() == parent_pid:
        if moves % 16 == 0 and not loop.refresh():
            time.sleep(0.2)
            continue
        loop.play()
        moves += 1
