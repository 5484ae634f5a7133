"""Where self-play runs, behind one interface the training loop uses without asking which.

    backend            chosen by                    how games reach the replay store
    InlineSelfPlay     selfplay.workers: 0          in the trainer process, while it waits
    ProcessSelfPlay    selfplay.workers: N          N spawned processes (training.worker)
    RaySelfPlay        backend: ray                 actors on a Ray cluster (training.ray_selfplay)

:func:`make_backend` picks one, once per run. Every backend: ``wait()`` when the trainer needs
more positions (plays, or looks at the workers' health and sleeps), ``publish(model, step)``
after each published checkpoint (processes poll the checkpoint store instead), ``pause()`` and
``resume()`` around an evaluation (local processes stop between two batched moves, so the
evaluation's games get the cores; Ray actors play on: evaluation tasks reserve their own
resources on the cluster), ``check()`` raises when self-play cannot go on,
``report(metrics, step)`` logs throughput where it is measured, ``close()`` stops it.
:func:`arena_executor` says, by the same choice, where the evaluation games run.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import time
from typing import TYPE_CHECKING, Any, Protocol

import torch

from .faults import raise_reported
from .worker import WAIT_S, WorkerLoop, worker_main

if TYPE_CHECKING:
    from .config import RunConfig
    from .metrics import Metrics

class SelfPlayBackend(Protocol):
    """What the training loop needs of self-play (module docstring)."""

    def wait(self) -> None: ...
    def publish(self, model: torch.nn.Module, step: int) -> None: ...
    def pause(self) -> None: ...
    def resume(self) -> None: ...
    def check(self) -> None: ...
    def report(self, metrics: Metrics, step: int) -> None: ...
    def close(self) -> None: ...


class InlineSelfPlay:
    """Self-play in the trainer process (``selfplay.workers: 0``, tiny runs and tests): each wait
    loads the newest checkpoint and plays until a shard is written. Deterministic for a seed."""

    def __init__(self, cfg: RunConfig, device: torch.device):
        self.loop = WorkerLoop(cfg, 0, device)

    def wait(self) -> None:
        self.loop.refresh()
        while not self.loop.play():
            pass

    def publish(self, model: torch.nn.Module, step: int) -> None:
        """Nothing: the next wait loads the newest checkpoint."""

    def pause(self) -> None:
        """Nothing: self-play runs only inside wait."""

    def resume(self) -> None:
        """Nothing: self-play runs only inside wait."""

    def check(self) -> None:
        """Nothing can fail apart from the trainer itself."""

    def report(self, metrics: Metrics, step: int) -> None:
        """Nothing beyond the self-play statistics the trainer logs from the shards."""

    def close(self) -> None:
        """Nothing runs between waits."""


class ProcessSelfPlay:
    """``selfplay.workers`` spawned processes (training.worker.worker_main) that poll the
    checkpoint store and write shards; paused (between two batched moves) and stopped through
    events, terminated if they linger. A worker that found the disk full hands its error back
    (``errors``), and :meth:`check` raises it."""

    def __init__(self, cfg: RunConfig):
        ctx = mp.get_context("spawn")
        self.stop = ctx.Event()
        self.go = ctx.Event()  # set: play; clear: paused
        self.go.set()
        self.errors = ctx.SimpleQueue()  # disk-full errors of the workers (training.faults)
        self.procs = _start_workers(ctx, cfg, self.stop, self.go, self.errors)

    def wait(self) -> None:
        self.check()
        time.sleep(WAIT_S)

    def publish(self, model: torch.nn.Module, step: int) -> None:
        """Nothing: the workers poll the checkpoint store."""

    def pause(self) -> None:
        self.go.clear()

    def resume(self) -> None:
        self.go.set()

    def check(self) -> None:
        """Raise when a worker died: the disk-full error it reported (an OSError naming the
        file), else a RuntimeError with the exit codes."""
        dead = [i for i, p in enumerate(self.procs) if not p.is_alive()]
        if dead:
            raise_reported(self.errors)
            codes = [self.procs[i].exitcode for i in dead]
            raise RuntimeError(f"self-play worker(s) {dead} died (exit codes {codes}); see their output")

    def report(self, metrics: Metrics, step: int) -> None:
        """Nothing beyond the self-play statistics the trainer logs from the shards."""

    def close(self) -> None:
        """Stop the workers: asked first, terminated after 10 s, killed after 5 more; each is
        reaped before this returns (no worker outlives the run)."""
        self.stop.set()
        for p in self.procs:
            p.join(timeout=10)
            if p.is_alive():
                p.terminate()
                p.join(timeout=5)
            if p.is_alive():
                p.kill()
                p.join()


def _start_workers(ctx, cfg: RunConfig, stop, go, errors) -> list:
    """Spawn the self-play processes with SIGINT ignored from their first instruction (a
    spawned child inherits an ignored signal), so Ctrl-C reaches only the trainer."""
    procs = []
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        for w in range(cfg.selfplay.workers):
            p = ctx.Process(target=worker_main, args=(cfg, w, stop, os.getpid(), go, errors), daemon=True)
            p.start()
            procs.append(p)
    finally:
        signal.signal(signal.SIGINT, previous)
    return procs


def make_backend(cfg: RunConfig, model: torch.nn.Module, step: int, device: torch.device,
                 log=print) -> SelfPlayBackend:
    """The run's self-play backend (module docstring), started. ``model``/``step``: the newest
    published network (Ray actors get it through the object store)."""
    if cfg.backend == "ray":
        from .ray_selfplay import RaySelfPlay

        return RaySelfPlay(cfg, model, step, log)
    if cfg.selfplay.workers > 0:
        return ProcessSelfPlay(cfg)
    return InlineSelfPlay(cfg, device)


def arena_executor(cfg: RunConfig, log=print) -> Any:
    """Where the run's evaluation games run: Ray tasks anywhere on the cluster with
    ``backend=ray`` (training.ray_arena), else None (the arena's own process pool)."""
    if cfg.backend == "ray":
        from .ray_arena import ray_executor

        return ray_executor(cfg.ray, log)
    return None
