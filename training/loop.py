"""The training run: self-play workers, the trainer, checkpoints and evaluation, wired together.

Processes talk only through two stores in the run directory::

    run_dir/
      config.yaml          resolved config (+ git commit) of the run
      checkpoints/         CheckpointStore: ckpt_<step>.pt (model + full trainer state), best.pt
      replay/              ReplayStore: shard_<worker>_<seq>.npz, games_<worker>.txt
      tb/                  TensorBoard events
      eval/                arena results of evaluations during training

Workers (``selfplay.workers`` processes; 0 = self-play inside the trainer process, for tiny
runs and tests) poll the checkpoint store for the newest network and write shards. The
trainer trains while ``samples_trained <= samples_per_position * positions_in_replay``
and publishes a checkpoint every ``checkpoint_every`` steps. A run killed at any moment
resumes from its directory with the same command: the newest readable checkpoint restores
model, optimiser, step and RNG states; replay shards on disk are kept.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import random
import subprocess
import time
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

from search.checkpoint import save_checkpoint
from search.network import pick_device

from .checkpoint import CheckpointStore
from .config import RunConfig
from .metrics import Metrics
from .replay import ReplayStore
from .trainer import Trainer
from .worker import WorkerLoop, seed_everything, worker_main

# ----- the trainer side ------------------------------------------------------------------------


def git_commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5,
                             cwd=Path(__file__).resolve().parent)
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


class Run:
    """The trainer process of a run (see the module docstring)."""

    def __init__(self, cfg: RunConfig, resolved_config: dict, log=print):
        self.cfg = cfg
        self.log = log
        cfg.run_dir.mkdir(parents=True, exist_ok=True)
        self.ckpts = CheckpointStore(cfg.run_dir / "checkpoints")
        self.replay = ReplayStore(cfg.run_dir / "replay")
        self.device = pick_device(cfg.device)
        if self.device.type == "cpu" and cfg.selfplay.workers > 0:
            torch.set_num_threads(1)  # the cores belong to the workers: spinning threads stall all
        self.resolved_config = resolved_config
        self.metrics = Metrics(cfg.run_dir / "tb")
        self.rng = np.random.default_rng(cfg.seed)
        seed_everything(cfg.seed)
        from models.gnn import HiveGNN

        self.model = HiveGNN(cfg.model)
        self.trainer = Trainer(self.model, cfg.train, self.device, cfg.max_legal,
                               compile=cfg.compile)
        self.seen_shards: set[str] = set()
        self.resumed_from = self._resume()

    # ----- checkpoints ------------------------------------------------------------------------
    def _resume(self) -> int | None:
        latest = self.ckpts.latest()
        if latest is None:
            self.publish()
            return None
        step, state = latest
        self.model.load_state_dict(state["model"])
        self.model.to(self.device)
        if "trainer" in state:
            self.trainer.load_state(state["trainer"])
        rng = state.get("rng")
        if rng:
            random.setstate(rng["python"])
            np.random.set_state(rng["numpy"])
            torch.set_rng_state(rng["torch"])
            self.rng.bit_generator.state = rng["generator"]
        self.seen_shards = set(state.get("seen_shards", []))
        self.log(f"resumed from checkpoint step {step} ({len(self.seen_shards)} shards seen)")
        return step

    def publish(self) -> Path:
        rng = {"python": random.getstate(), "numpy": np.random.get_state(), "torch": torch.get_rng_state(),
               "generator": self.rng.bit_generator.state}
        return self.ckpts.publish(self.trainer.step, self.model, trainer=self.trainer.state(), rng=rng,
                                  config=self.resolved_config, seen_shards=sorted(self.seen_shards),
                                  git=git_commit())

    # ----- logging of self-play --------------------------------------------------------------
    def _log_selfplay(self) -> None:
        new = [p for p in self.replay.shard_paths() if p.name not in self.seen_shards]
        if not new:
            return
        plies, status, trunc = [], [], []
        for p in new:
            self.seen_shards.add(p.name)
            stats = self.replay.stats(p)
            if stats:
                plies.append(stats["game_plies"])
                status.append(stats["game_status"])
                trunc.append(stats["game_truncated"])
        if not plies:
            return
        self.metrics.selfplay(np.concatenate(plies), np.concatenate(status), np.concatenate(trunc),
                              self.trainer.step)

    # ----- the loop --------------------------------------------------------------------------
    def run(self, evaluate_hook=None) -> None:
        """Train to ``train.steps``; self-play runs in workers (or inline with 0 workers)."""
        cfg = self.cfg
        tc = cfg.train
        ctx = mp.get_context("spawn")
        stop = ctx.Event()
        procs = []
        inline = None
        if cfg.selfplay.workers > 0:
            for w in range(cfg.selfplay.workers):
                p = ctx.Process(target=worker_main, args=(cfg, w, stop, os.getpid()), daemon=True)
                p.start()
                procs.append(p)
        else:
            inline = WorkerLoop(cfg, 0, self.device)
        bar = tqdm(total=tc.steps, initial=self.trainer.step, desc="train", unit="step", dynamic_ncols=True)
        last_positions = -1
        try:
            while self.trainer.step < tc.steps:
                positions = self.replay.count()
                allowed = positions * tc.samples_per_position / tc.batch_size
                if positions < tc.min_positions or self.trainer.step >= allowed:
                    if inline is not None:
                        inline.refresh()
                        while not inline.play():
                            pass
                    else:
                        self._check_workers(procs)
                        time.sleep(0.5)
                    self._log_selfplay()
                    if positions != last_positions:
                        bar.set_postfix(positions=positions)
                        last_positions = positions
                    continue
                batch = self.replay.sample(tc.batch_size, tc.window, self.rng, tc.augment)
                metrics = self.trainer.train_step(batch)
                step = self.trainer.step
                self.metrics.scalars("train", metrics, step)
                bar.update(1)
                bar.set_postfix(loss=f"{metrics['total']:.3f}", positions=positions)
                if step % tc.checkpoint_every == 0 or step == tc.steps:
                    self._log_selfplay()
                    self.publish()
                    if evaluate_hook is not None:
                        evaluate_hook(self, step)
                    self.metrics.flush()
        finally:
            bar.close()
            stop.set()
            for p in procs:
                p.join(timeout=10)
                if p.is_alive():
                    p.terminate()
            self.metrics.flush()

    def _check_workers(self, procs) -> None:
        dead = [i for i, p in enumerate(procs) if not p.is_alive()]
        if dead:
            codes = [procs[i].exitcode for i in dead]
            raise RuntimeError(f"self-play worker(s) {dead} died (exit codes {codes}); see their output")


def save_final(run: Run) -> Path:
    """The final network as ``final.pt`` beside the checkpoints."""
    return save_checkpoint(run.cfg.run_dir / "checkpoints" / "final.pt", run.model, step=run.trainer.step)
