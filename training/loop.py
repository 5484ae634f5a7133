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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from .checkpoint import CheckpointStore, load_model, save_checkpoint
from .evaluator import make_evaluator, pick_device
from .mcts import SearchConfig
from .replay import ReplayStore, Samples
from .selfplay import SelfPlay, SelfPlayConfig
from .trainer import TrainConfig, Trainer


@dataclass(frozen=True)
class RunConfig:
    """Everything a run needs, built from the Hydra config by :func:`run_config`."""

    run_dir: Path
    game_type: str
    ply_cap: int
    model: dict[str, Any]
    search: SearchConfig
    selfplay: SelfPlayConfig
    workers: int
    shard_games: int
    train: TrainConfig
    eval: dict[str, Any] = field(default_factory=dict)
    seed: int = 0
    device: str = "auto"
    compile: bool = False
    max_legal: int = 512


# ----- self-play worker ------------------------------------------------------------------------


def _seed_everything(seed: int) -> None:
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
        model, _ = load_model(self.ckpts.path(step), self.device)
        evaluate = make_evaluator(model, self.device, bf16=self.device.type == "cuda",
                                  compile=self.cfg.compile)
        if self.selfplay is None:
            self.selfplay = SelfPlay(self.cfg.selfplay, self.cfg.search, self.cfg.game_type, self.cfg.ply_cap,
                                     evaluate, seed=self.seed)
        else:
            self.selfplay.set_evaluate(evaluate)
        self.step_loaded = step
        return True

    def play(self) -> int:
        """One batched move in every game; writes a shard when enough games finished."""
        assert self.selfplay is not None
        self.pending.extend(self.selfplay.step())
        if len(self.pending) >= self.cfg.shard_games:
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
    """Entry point of a self-play process: play until told to stop or the parent dies."""
    torch.set_num_threads(1)
    import numba

    numba.set_num_threads(1)
    _seed_everything(cfg.seed * 1000 + worker)
    loop = WorkerLoop(cfg, worker, pick_device(cfg.device))
    moves = 0
    while not stop.is_set() and os.getppid() == parent_pid:
        if moves % 16 == 0 and not loop.refresh():
            time.sleep(0.2)
            continue
        loop.play()
        moves += 1


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
        from torch.utils.tensorboard import SummaryWriter

        self.cfg = cfg
        self.log = log
        cfg.run_dir.mkdir(parents=True, exist_ok=True)
        self.ckpts = CheckpointStore(cfg.run_dir / "checkpoints")
        self.replay = ReplayStore(cfg.run_dir / "replay")
        self.device = pick_device(cfg.device)
        if self.device.type == "cpu" and cfg.workers > 0:
            torch.set_num_threads(1)  # the cores belong to the workers: spinning threads stall all
        self.resolved_config = resolved_config
        self.writer = SummaryWriter(str(cfg.run_dir / "tb"))
        self.rng = np.random.default_rng(cfg.seed)
        _seed_everything(cfg.seed)
        from models.gnn import HiveGNN, ModelConfig

        self.model = HiveGNN(ModelConfig(**cfg.model))
        self.trainer = Trainer(self.model, cfg.train, self.device, cfg.max_legal,
                               compile=cfg.compile)
        self.seen_shards: set[str] = set()
        self.started = time.time()
        self.games_total = 0  # self-play games and positions logged by this process
        self.positions_total = 0
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
        plies_a, status_a, trunc_a = np.concatenate(plies), np.concatenate(status), np.concatenate(trunc)
        step = self.trainer.step
        elapsed = max(1e-6, time.time() - self.started)
        self.games_total += len(plies_a)
        self.positions_total += int(plies_a.sum())
        self.writer.add_scalar("selfplay/games_per_s", self.games_total / elapsed, step)
        self.writer.add_scalar("selfplay/positions_per_s", self.positions_total / elapsed, step)
        self.writer.add_scalar("selfplay/game_length_mean", float(plies_a.mean()), step)
        self.writer.add_scalar("selfplay/white_wins_share", float((status_a == 1).mean()), step)
        self.writer.add_scalar("selfplay/black_wins_share", float((status_a == 2).mean()), step)
        self.writer.add_scalar("selfplay/draw_share", float((status_a == 3).mean()), step)
        self.writer.add_scalar("selfplay/capped_share", float(trunc_a.mean()), step)

    # ----- the loop --------------------------------------------------------------------------
    def run(self, evaluate_hook=None) -> None:
        """Train to ``train.steps``; self-play runs in workers (or inline with 0 workers)."""
        cfg = self.cfg
        tc = cfg.train
        ctx = mp.get_context("spawn")
        stop = ctx.Event()
        procs = []
        inline = None
        if cfg.workers > 0:
            for w in range(cfg.workers):
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
                for k, v in metrics.items():
                    self.writer.add_scalar(f"train/{k}", v, step)
                bar.update(1)
                bar.set_postfix(loss=f"{metrics['total']:.3f}", positions=positions)
                if step % tc.checkpoint_every == 0 or step == tc.steps:
                    self._log_selfplay()
                    self.publish()
                    if evaluate_hook is not None:
                        evaluate_hook(self, step)
                    self.writer.flush()
        finally:
            bar.close()
            stop.set()
            for p in procs:
                p.join(timeout=10)
                if p.is_alive():
                    p.terminate()
            self.writer.flush()

    def _check_workers(self, procs) -> None:
        dead = [i for i, p in enumerate(procs) if not p.is_alive()]
        if dead:
            codes = [procs[i].exitcode for i in dead]
            raise RuntimeError(f"self-play worker(s) {dead} died (exit codes {codes}); see their output")


def save_final(run: Run) -> Path:
    """The final network as ``final.pt`` beside the checkpoints."""
    return save_checkpoint(run.cfg.run_dir / "checkpoints" / "final.pt", run.model, step=run.trainer.step)
