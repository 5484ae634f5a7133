"""A self-play worker: plays batched games with the newest network and hands out replay shards.

The part every self-play backend shares (training.selfplay_backend: inline, processes, Ray
actors) is :class:`SelfPlayer`: the games, the network's evaluator (new weights go into it in
place) and the finished games not yet in a shard, which :func:`make_shard` turns into one.
A local worker (:class:`WorkerLoop`, in a spawned process by :func:`worker_main` or inline in
the trainer process) polls the checkpoint store for the newest network every
:data:`POLL_MOVES` batched moves; it talks to the trainer only through the checkpoint store
and the replay store in the run directory.
"""

from __future__ import annotations

import copy
import os
import random
import signal
import sys
import time
import traceback
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from hive_env.files import is_disk_full
from hive_zero.run_layout import RunLayout
from search.checkpoint import load_model, read_checkpoint
from search.network import Evaluator, make_evaluator, pick_device

from .checkpoint import CheckpointStore
from .faults import report_disk_full
from .replay import ReplayStore, Samples, Shard
from .selfplay import GAME_STATS, FinishedGame, SelfPlay

if TYPE_CHECKING:
    from .config import RunConfig

POLL_MOVES = 16
"""Batched moves a worker plays between looks for a newer network (a local worker polls the
checkpoint store, a Ray actor returns to the driver)."""
WAIT_S = 0.5
"""Seconds the trainer sleeps while workers elsewhere (processes, actors) fill the replay store."""
STAGE_SEED = 7_000_003
"""Seed offset per stage of the run (``RunConfig.stages``): each stage's games are new."""
TYPE_SEED = 3_000_017
"""Seed offset per game type of a worker that plays several (:func:`worker_game_types`)."""
RESTART_SEED = 1_000_003
"""Seed offset per restart of a worker (a process, a Ray actor): a restarted worker does not
replay its predecessor's games (nor a crash those games led to)."""


def seed_everything(seed: int) -> None:
    """Seed Python's, numpy's and torch's global generators."""
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


def limit_threads(threads: int = 1) -> None:
    """Torch's and numba's threads of this process: one per process where processes share the
    cores (self-play workers, the trainer beside them); more only spin and stall the others."""
    import numba

    torch.set_num_threads(threads)
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))


def worker_seed(run_seed: int, worker: int, shards_written: int) -> int:
    """The seed of a worker's games: its own per worker, and new after each shard it wrote, so
    a restarted worker does not replay its predecessor's games."""
    return run_seed * 1000 + worker * 7919 + shards_written


def make_shard(games: list[FinishedGame], network_step: int, **extra: Any) -> Shard:
    """Finished games as a shard: their samples, per-game stats and records. ``extra``: more
    stats (a Ray actor adds its batch number)."""
    stats = {**{f"game_{k}": np.array([getattr(g, k) for g in games], dtype) for k, dtype in GAME_STATS},
             "network_step": np.int64(network_step),
             **{k: np.int64(v) for k, v in extra.items()}}
    return Shard(Samples.concat([g.samples for g in games]), stats, [g.game_string for g in games])


def describe_inference(cfg: RunConfig, model: torch.nn.Module, device: torch.device) -> str:
    """What runs self-play's network on ``device`` with ``cfg.inference``: the backend, its
    precision and the CPU flags behind it (``Evaluator.describe``), as the workers will build it
    (on a copy of ``model``: the trainer's stays as it is)."""
    evaluate = make_evaluator(copy.deepcopy(model), device, bf16=device.type == "cuda", backend=cfg.inference)
    return f"{cfg.inference} -> {evaluate.describe()}"


def worker_game_types(cfg: RunConfig, worker: int) -> tuple[str, ...]:
    """The game types self-play worker ``worker`` plays (``selfplay.game_types``, else the run's).

    With at least as many workers as types, worker ``w`` plays the ``w mod n``-th type alone;
    with fewer, every type is still played: worker ``w`` takes types ``w, w + W, w + 2W, ...``
    (``W`` workers; 0 workers is one, inside the trainer) and alternates its batched moves
    between them."""
    types = cfg.selfplay.game_types or (cfg.env.game_type,)
    workers = max(1, cfg.selfplay.workers)
    if len(types) <= workers:
        return (types[worker % len(types)],)
    return tuple(types[worker % workers::workers])


class SelfPlayer:
    """Batched self-play with one network whose weights are replaced in place; finished games
    gather until ``selfplay.shard_games`` of them make a shard. One batch of games per game type
    it plays (:func:`worker_game_types`), each a batched move in turn."""

    def __init__(self, cfg: RunConfig, device: torch.device, game_types: tuple[str, ...] = ()):
        self.cfg = cfg
        self.device = device
        self.game_types = tuple(game_types) or (cfg.env.game_type,)
        """The game types this worker plays (:func:`worker_game_types`)."""
        self.games: list[SelfPlay] = []
        """One :class:`SelfPlay` per game type, in the order of :attr:`game_types`."""
        self.turn = 0
        """The index in :attr:`games` of the batch that plays the next move."""
        self.evaluate: Evaluator | None = None
        self.step_loaded = -1
        self.stage = 0  # of cfg.stages, reached by the network loaded
        self.seed = 0
        self.pending: list[FinishedGame] = []

    @property
    def started(self) -> bool:
        return bool(self.games)

    def start(self, model: torch.nn.Module, step: int, seed: int) -> None:
        """The first network: its evaluator and the games, seeded with ``seed``, with the
        settings of the stage its step has reached."""
        cfg = self.cfg
        self.evaluate = make_evaluator(model, self.device, bf16=self.device.type == "cuda",
                                       compile=cfg.compile, backend=cfg.inference)
        self.seed = seed
        self._new_games(step)
        self.step_loaded = step

    def _new_games(self, step: int) -> None:
        """Games with the settings in force for the network of ``step`` (``RunConfig.staged``);
        each stage's games, and each game type's, are seeded afresh."""
        assert self.evaluate is not None
        self.stage = self.cfg.stage_at(step)
        now = self.cfg.staged(step)
        seed = self.seed + STAGE_SEED * self.stage
        self.games = [SelfPlay(now.selfplay, now.search, game_type, now.env.ply_cap, self.evaluate,
                               seed=seed + TYPE_SEED * i) for i, game_type in enumerate(self.game_types)]
        self.turn = 0

    def load_weights(self, weights: dict[str, torch.Tensor], step: int) -> None:
        """A newer network: its weights into the same model and backend (nothing rebuilt or
        recompiled); trees searched with the old one are dropped. A network that reached a new
        stage (``RunConfig.stages``) starts new games with the stage's settings: the unfinished
        ones are dropped, the finished ones not yet in a shard kept."""
        assert self.games and self.evaluate is not None
        self.evaluate.load_weights(weights)
        if self.cfg.stage_at(step) != self.stage:
            self._new_games(step)
        else:
            for games in self.games:
                games.set_evaluate(self.evaluate)
        self.step_loaded = step

    def step(self, **extra: Any) -> Shard | None:
        """One batched move in the games of the type whose turn it is; a shard (with ``extra``
        stats) once enough games finished, else None."""
        assert self.games
        self.pending.extend(self.games[self.turn].step())
        self.turn = (self.turn + 1) % len(self.games)
        if len(self.pending) >= self.cfg.selfplay.shard_games:
            return self.take_shard(**extra)
        return None

    def take_shard(self, **extra: Any) -> Shard | None:
        """The finished games not yet handed out, as a shard (None when there are none)."""
        if not self.pending:
            return None
        games, self.pending = self.pending, []
        return make_shard(games, self.step_loaded, **extra)


class WorkerLoop:
    """A local worker: self-play against the newest checkpoint; shards go to the replay store."""

    def __init__(self, cfg: RunConfig, worker: int, device: torch.device, restart: int = 0):
        self.cfg = cfg
        self.worker = worker
        layout = RunLayout(cfg.run_dir)
        self.ckpts = CheckpointStore(layout.checkpoints)
        self.replay = ReplayStore(layout.replay)
        self.player = SelfPlayer(cfg, device, worker_game_types(cfg, worker))
        self.seed = worker_seed(cfg.seed, worker, self.replay.shard_count(worker)) + RESTART_SEED * restart

    def refresh(self) -> bool:
        """Load the newest checkpoint if it is newer than ours; False when there is none."""
        steps = self.ckpts.steps()
        if not steps or steps[-1] == self.player.step_loaded:
            return bool(steps)
        latest = self.ckpts.latest()
        if latest is None:
            return False
        step, _ = latest
        if not self.player.started:
            model, _ = load_model(self.ckpts.path(step), self.player.device)
            self.player.start(model, step, self.seed)
        else:
            self.player.load_weights(read_checkpoint(self.ckpts.path(step))["model"], step)
        return True

    def play(self) -> int:
        """One batched move in every game; writes a shard when enough games finished. Returns
        the games written."""
        shard = self.player.step()
        return self._write(shard)

    def flush(self) -> int:
        """Write the finished games not yet in a shard. Returns the games written."""
        return self._write(self.player.take_shard())

    def _write(self, shard: Shard | None) -> int:
        if shard is None:
            return 0
        self.replay.add(self.worker, shard)
        return len(shard.games)


def worker_main(cfg: RunConfig, worker: int, stop: Any, parent_pid: int, go: Any = None,
                errors: Any = None, failures: Any = None, restart: int = 0) -> None:
    """Entry point of a self-play process: play until told to stop or the parent dies; while
    ``go`` (an event) is clear, wait between two batched moves (the trainer evaluates).

    SIGINT is ignored (the trainer spawns workers with it ignored already): Ctrl-C reaches the
    whole process group, and the trainer stops its workers through ``stop``. SIGTERM ends a
    worker at once, which is safe: shards are written atomically. A full disk ends the worker
    quietly with exit status 1, its error (naming the file) handed to the trainer through
    ``errors`` (a ``SimpleQueue``; training.faults), which stops the run with one line. Any
    other error ends it with exit status 1 too, handed through ``failures`` (if given) as
    ``(worker, its last line, its traceback)``: the trainer restarts the worker
    (training.selfplay_backend) and keeps the traceback; without ``failures`` it is raised.
    ``restart``: how many times the trainer restarted this worker (a new seed each time).
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        _play_until_stopped(cfg, worker, stop, parent_pid, go, restart)
    except OSError as e:
        if errors is None or not is_disk_full(e):
            if failures is None:
                raise
            _report_failure(worker, e, failures)
        else:
            report_disk_full(e, errors)
        sys.exit(1)
    except Exception as e:
        if failures is None:
            raise
        _report_failure(worker, e, failures)
        sys.exit(1)


def _report_failure(worker: int, e: BaseException, failures: Any) -> None:
    """Hand a worker's error to the trainer: its last line (the exception's type and first
    line of text, as a traceback ends) and the traceback itself."""
    text = " ".join(str(e).strip().split("\n")[0].split())
    line = f"{type(e).__name__}: {text}" if text else type(e).__name__
    failures.put((worker, line, traceback.format_exc()))


def _play_until_stopped(cfg: RunConfig, worker: int, stop: Any, parent_pid: int, go: Any,
                        restart: int = 0) -> None:
    limit_threads()
    seed_everything(cfg.seed * 1000 + worker + RESTART_SEED * restart)
    loop = WorkerLoop(cfg, worker, pick_device(cfg.device), restart)
    moves = 0
    while not stop.is_set() and os.getppid() == parent_pid:
        if go is not None and not go.is_set():
            go.wait(WAIT_S)
            continue
        if moves % POLL_MOVES == 0 and not loop.refresh():
            time.sleep(0.2)
            continue
        loop.play()
        moves += 1
