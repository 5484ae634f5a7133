"""Self-play on a Ray cluster (``backend=ray``): actors play, the driver keeps the run directory.

No filesystem is shared: the driver puts each published checkpoint's weights into Ray's object
store once, each :class:`SelfPlayActor` fetches them when their step is new to it and returns
finished shards, and a collector thread in the driver (:class:`RaySelfPlay`) writes them as the
local backend does. Ray is imported only by the ``training.ray_*`` modules, and those only under
``backend=ray``; evaluation games as Ray tasks are in ``training.ray_arena``.

See docs/ray.md.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from hive_zero.run_layout import RunLayout
from search.network import pick_device

from .faults import SelfPlayError
from .ray_cluster import connect
from .replay import ReplayStore, Shard
from .worker import (
    POLL_MOVES,
    RESTART_SEED,
    WAIT_S,
    SelfPlayer,
    limit_threads,
    seed_everything,
    worker_game_types,
    worker_seed,
)

if TYPE_CHECKING:
    from .config import RunConfig
    from .metrics import Metrics

RETRY_S = 1.0
"""Seconds between calls to an actor that Ray is restarting."""


def weights_of(model: torch.nn.Module) -> dict[str, torch.Tensor]:
    """The model's state dict on the CPU: what the driver puts in the object store per checkpoint."""
    return {k: v.detach().cpu() for k, v in model.state_dict().items()}


# ----- the actor ---------------------------------------------------------------------------------
class SelfPlayActor:
    """One self-play worker on a Ray node (wrapped by ``ray.remote`` in :class:`RaySelfPlay`)."""

    def __init__(self, cfg: RunConfig, worker: int):
        import ray

        self.cfg = cfg
        self.worker = worker
        limit_threads(max(1, int(cfg.ray.worker_cpus)))
        device = pick_device(cfg.device) if cfg.ray.worker_gpus > 0 else torch.device("cpu")
        self.player = SelfPlayer(cfg, device, worker_game_types(cfg, worker))
        self.where = {"node_id": ray.get_runtime_context().get_node_id(), "host": socket.gethostname(),
                      "pid": os.getpid()}
        self.batch = 0

    def _load(self, weights: dict[str, torch.Tensor], step: int, seed: int) -> None:
        """The weights of ``step``: the first build the model and its evaluator, later ones are
        loaded into them (nothing rebuilt or recompiled)."""
        from models.gnn import HiveGNN

        if self.player.started:
            self.player.load_weights(weights, step)
            return
        model = HiveGNN(self.cfg.model)
        model.load_state_dict(weights)
        model.to(self.player.device)
        seed_everything(seed)
        self.player.start(model, step, seed)

    def play(self, weights: list, step: int, seed: int) -> dict[str, Any]:
        """Up to :data:`training.worker.POLL_MOVES` batched moves with the weights of ``step``
        (``weights`` holds their object reference, fetched only when the step is new here;
        ``seed`` seeds a new actor's games). Returns where it ran and ``shard``: None, or the
        :class:`training.replay.Shard` of ``selfplay.shard_games`` or more finished games."""
        import ray

        if step != self.player.step_loaded:
            self._load(ray.get(weights[0]), step, seed)
        shard = None
        for _ in range(POLL_MOVES):
            shard = self.player.step(actor_batch=self.batch + 1)
            if shard is not None:
                self.batch += 1
                break
        return {**self.where, "shard": shard}


# ----- the driver side ---------------------------------------------------------------------------
class RaySelfPlay:
    """The actors of a run and the driver's collector thread (docs/ray.md)::

        driver (hive-train: trainer, the run directory; evaluation games go out as Ray tasks)
          | ray.put(weights) of each published checkpoint ------>  SelfPlayActor x selfplay.workers
          | <------ one finished shard per call (Samples, per-game stats, GameStrings), or nothing
          v
        ReplayStore.write_shard / append_games: the same atomic shards as the local backend

    Each call to an actor carries a reference to the newest weights and their step; an actor plays
    at most :data:`training.worker.POLL_MOVES` batched moves per call (a local worker polls the
    checkpoint store as often) and returns a shard as soon as ``selfplay.shard_games`` games have
    finished. The collector keeps one call in flight per actor and writes each returned shard
    through :class:`training.replay.ReplayStore`, which numbers it after the worker's last one: the
    driver is the only writer, every call's result is handled once (and a shard already written,
    by node, process and batch number, is ignored), so a shard can be neither lost once delivered
    nor written twice. Each shard's stats add where it was played (``node_id``, ``host``,
    ``actor_pid``, ``actor_batch``). An actor that dies loses only the games it was playing; Ray
    restarts it up to ``ray.max_restarts`` times, and the run stops with an error only when every
    actor is gone for good.

    Args:
        cfg: the run's settings (``selfplay.workers`` actors, placed by ``cfg.ray``).
        model: the network of the newest published checkpoint.
        step: its step.
        log: the run's logger (deaths, restarts, throughput).
    """

    def __init__(self, cfg: RunConfig, model: torch.nn.Module, step: int, log=print):
        self.cfg = cfg
        self.log = log
        self.ray = ray = connect(cfg.ray, log)
        self.replay = ReplayStore(RunLayout(cfg.run_dir).replay)
        rc = cfg.ray
        self._lock = threading.Lock()
        self._weights = ([ray.put(weights_of(model))], step)
        actor = ray.remote(SelfPlayActor).options(
            num_cpus=rc.worker_cpus, num_gpus=rc.worker_gpus, resources=dict(rc.worker_resources),
            max_restarts=rc.max_restarts, max_task_retries=0)
        n = cfg.selfplay.workers
        self.actors = [actor.remote(cfg, w) for w in range(n)]
        self._seed0 = [worker_seed(cfg.seed, w, self.replay.shard_count(w)) for w in range(n)]
        self.deaths = [0] * n
        self.gone: set[int] = set()
        self.pids: list[int | None] = [None] * n
        self._dead_pid: list[int | None] = [-1] * n  # the process whose death was logged last
        self.games = [0] * n
        self.positions = [0] * n
        self.shards = 0
        self._written: set[tuple[str, int, int]] = set()
        self._started = time.monotonic()
        self._inflight: dict[Any, int] = {}
        self.error: BaseException | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._collect, name="ray-selfplay", daemon=True)
        self._thread.start()
        log(f"ray: {n} self-play actor(s), each {rc.worker_cpus:g} CPU, {rc.worker_gpus:g} GPU"
            + (f", {dict(rc.worker_resources)}" if rc.worker_resources else "")
            + f", max_restarts {rc.max_restarts}")

    # ----- main thread ----------------------------------------------------------------------------
    def publish(self, model: torch.nn.Module, step: int) -> None:
        """Hand the weights of the checkpoint just published to the actors' next calls."""
        ref = self.ray.put(weights_of(model))
        with self._lock:
            self._weights = ([ref], step)

    def wait(self) -> None:
        """The trainer waits for positions: the actors play on; look at their health meanwhile."""
        self.check()
        time.sleep(WAIT_S)

    def pause(self) -> None:
        """Nothing: evaluation tasks reserve their own resources (``ray.eval_cpus``)."""

    def resume(self) -> None:
        """Nothing (see :meth:`pause`)."""

    def check(self) -> None:
        """Raise when self-play cannot go on (the collector failed, or every actor is gone)."""
        if self.error is not None:
            raise RuntimeError(f"ray self-play failed: {self.error!r}") from self.error
        if len(self.gone) == len(self.actors):
            raise SelfPlayError(f"every self-play actor died more than ray.max_restarts="
                                f"{self.cfg.ray.max_restarts} times; run the same command to resume")

    def report(self, metrics: Metrics, step: int) -> None:
        """Games per second of each actor and in total since the actors started, to TensorBoard
        (``selfplay/actor_<w>_games_per_s``, ``selfplay/ray_games_per_s``) and the log."""
        with self._lock:
            games = list(self.games)
        elapsed = max(1e-6, time.monotonic() - self._started)
        rates = [g / elapsed for g in games]
        for w, rate in enumerate(rates):
            metrics.scalar(f"selfplay/actor_{w:03d}_games_per_s", rate, step)
        metrics.scalar("selfplay/ray_games_per_s", sum(rates), step)
        metrics.scalar("selfplay/actor_restarts", sum(self.deaths), step)
        alive = len(self.actors) - len(self.gone)
        per = ", ".join(f"{w}: {r:.2f}" for w, r in enumerate(rates))
        self.log(f"ray: {sum(rates):.2f} games/s in total ({per}); {alive} actor(s), "
                 f"{sum(self.deaths)} death(s), {self.shards} shard(s) written")

    def close(self) -> None:
        """Stop the collector and the actors (the games they are playing are dropped)."""
        self._stop.set()
        self._thread.join(timeout=10)
        for a in self.actors:
            with contextlib.suppress(Exception):  # already dead: nothing to stop
                self.ray.kill(a, no_restart=True)

    # ----- the collector thread -------------------------------------------------------------------
    def _submit(self, w: int) -> None:
        with self._lock:
            weights, step = self._weights
        seed = self._seed0[w] + RESTART_SEED * self.deaths[w]
        self._inflight[self.actors[w].play.remote(weights, step, seed)] = w

    def _collect(self) -> None:
        ray = self.ray
        try:
            retry = {w: 0.0 for w in range(len(self.actors))}  # actor -> when to call it next
            while not self._stop.is_set() and (self._inflight or retry):
                for w, when in list(retry.items()):
                    if when <= time.monotonic():
                        del retry[w]
                        self._submit(w)
                if not self._inflight:
                    time.sleep(0.1)
                    continue
                ready, _ = ray.wait(list(self._inflight), num_returns=1, timeout=0.5)
                for ref in ready:
                    w = self._inflight.pop(ref)
                    try:
                        result = ray.get(ref)
                    except ray.exceptions.RayActorError as e:
                        if self._died(w, e):
                            retry[w] = time.monotonic() + RETRY_S
                        continue
                    self._deliver(w, result)
                    self._submit(w)
        except BaseException as e:  # reported to the main thread by check()
            self.error = e

    def _died(self, w: int, e: BaseException) -> bool:
        """Actor ``w``'s call failed because the actor died or is restarting: log its death once
        (per process), and say whether to call it again (False: Ray gave up on it)."""
        limit = self.cfg.ray.max_restarts
        reason = str(e).strip().splitlines()[0][:160] if str(e).strip() else type(e).__name__
        if isinstance(e, self.ray.exceptions.ActorDiedError):  # dead for good: restarts used up
            self.gone.add(w)
            self.log(f"ray: self-play actor {w} is dead ({reason}); Ray restarted it {self.deaths[w]} "
                     f"time(s) (ray.max_restarts={limit}): going on without it")
            return False
        if self._dead_pid[w] != self.pids[w]:  # ActorUnavailableError: Ray restarts it
            self._dead_pid[w] = self.pids[w]
            self.deaths[w] += 1
            self.log(f"ray: self-play actor {w} died ({reason}); its unfinished games are lost; "
                     f"Ray restarts it (restart {self.deaths[w]}" + (f" of {limit})" if limit >= 0 else ")"))
        return True

    def _deliver(self, w: int, result: dict[str, Any]) -> None:
        """Log where actor ``w`` runs when that is new, and write its shard if it returned one."""
        pid = result["pid"]
        if self.pids[w] != pid:
            what = "restarted" if self.pids[w] is not None or self.deaths[w] else "running"
            self.log(f"ray: self-play actor {w} {what} on node {result['node_id'][:12]} "
                     f"({result['host']}, pid {pid})")
            self.pids[w] = pid
        if result["shard"] is None:
            return
        shard: Shard = result["shard"]
        key = (result["node_id"], pid, int(shard.stats["actor_batch"]))
        if key in self._written:  # never twice (a call's result is handled once; this makes sure)
            return
        where = {"node_id": np.str_(result["node_id"]), "host": np.str_(result["host"]),
                 "actor_pid": np.int64(pid)}
        self.replay.add(w, Shard(shard.samples, {**shard.stats, **where}, shard.games))
        self._written.add(key)
        samples, games = shard.samples, shard.games
        with self._lock:
            self.games[w] += len(games)
            self.positions[w] += len(samples)
            self.shards += 1
