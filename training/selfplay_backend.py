"""Where self-play runs, behind one interface the training loop uses without asking which.

:func:`make_backend` picks one backend, once per run: :class:`InlineSelfPlay` (``selfplay.workers:
0``, in the trainer process while it waits), :class:`ProcessSelfPlay` (N spawned processes, each
restarted when it dies) or ``RaySelfPlay`` (``backend: ray``, actors on a Ray cluster), all
:class:`SelfPlayBackend`. :func:`arena_executor` says, by the same choice, where the evaluation
games run.

See docs/training.md and docs/reliability.md (a self-play process killed or crashed).
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import signal
import time
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import torch

from hive_env.files import naming
from hive_zero.run_layout import RunLayout

from .faults import SelfPlayError, raise_reported
from .replay import ReplayStore
from .shared_flag import SharedFlag
from .worker import WAIT_S, WorkerLoop, worker_main

if TYPE_CHECKING:
    from .config import RunConfig
    from .metrics import Metrics

class SelfPlayBackend(Protocol):
    """What the training loop needs of self-play.

    ``wait()`` when the trainer needs more positions (plays, or looks at the workers' health and
    sleeps), ``publish(model, step)`` after each published checkpoint (processes poll the
    checkpoint store instead), ``pause()`` and ``resume()`` around an evaluation (local processes
    stop between two batched moves, so the evaluation's games get the cores; Ray actors play on:
    evaluation tasks reserve their own resources on the cluster), ``check()`` looks after the
    workers (restarts the dead ones, warns of stopped ones) and raises when self-play cannot go
    on, ``report(metrics, step)`` logs throughput and restarts where they are measured,
    ``close()`` stops it."""

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


RESTART_BACKOFF_S = 1.0
"""Seconds before a dead self-play process is started again; doubled for each death in a row
before it wrote a shard."""
RESTART_BACKOFF_MAX_S = 60.0
"""The longest wait before a restart."""
MAX_FAILED_STARTS = 5
"""Failed starts in a row of one worker (it fails at its start: a checkpoint it cannot load, a
broken installation) that stop the run (training.faults.SelfPlayError)."""
FAILED_START_S = 300.0
"""A worker that dies within this many seconds of its start without writing a shard failed at
its start; one that lived longer (killed by the OOM killer after minutes of play) did not."""
HUNG_WARN_S = 900.0
"""Seconds a running (not paused, not stopped) self-play process may write no shard before one
warning names it (a deadlock, a disk that stalls): looked at every :data:`HUNG_LOOK_S`."""
HUNG_LOOK_S = 30.0
"""How often the workers' shard counts are read for :data:`HUNG_WARN_S` (a directory listing)."""
STOPPED_WARN_S = 60.0
"""Seconds a self-play process may be stopped (SIGSTOP; state ``T`` in ``/proc/<pid>/stat``)
before one warning names it."""
ERRORS_LOG = "selfplay_errors.log"
"""The file in the run directory where the tracebacks of failed self-play processes go."""


def process_state(pid: int) -> str | None:
    """A process's state letter from ``/proc/<pid>/stat`` (``R``, ``S``, ``T`` stopped, ...), or
    None where it cannot be read (no procfs, the process gone)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    rest = text.rpartition(")")[2].split()
    return rest[0] if rest else None


def exit_text(exitcode: int | None) -> str:
    """How a process ended, in words: ``killed by SIGKILL``, ``exit code 1``."""
    if exitcode is None:
        return "still running"
    if exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        return f"killed by {name}" + (", the OOM killer's signal" if exitcode == -signal.SIGKILL else "")
    return f"exit code {exitcode}"


class ProcessSelfPlay:
    """``selfplay.workers`` spawned processes (training.worker.worker_main) that poll the
    checkpoint store and write shards; paused (between two batched moves) and stopped through
    events, terminated if they linger. A worker that found the disk full hands its error back
    (``errors``), and :meth:`check` raises it; one that died otherwise is restarted, its last
    error line and traceback handed back through ``failures``.

    A process that dies (the OOM killer's SIGKILL, any crash) is restarted, as Ray restarts an
    actor: one line in the run's log per restart (the worker, its pid, its exit code or signal,
    its last error line, its new pid, the restart number), after a backoff that doubles with each
    failed start in a row (a death within :data:`FAILED_START_S` of its start, before it wrote a
    shard; :data:`RESTART_BACKOFF_S` up to :data:`RESTART_BACKOFF_MAX_S`, on the monotonic clock),
    counted in TensorBoard (``selfplay/worker_restarts``); its unfinished games are lost, never a
    shard. A worker that fails at its start :data:`MAX_FAILED_STARTS` times in a row stops the run
    with one line (training.faults.SelfPlayError). A worker stopped by SIGSTOP is left alone
    (someone stopped it: a debugger, a person, a freezer): the others play on, the trainer waits
    for shards, and after :data:`STOPPED_WARN_S` one warning names it (``kill -CONT <pid>``).

    Args:
        cfg: the run's settings.
        log: the run's log (restarts, stopped workers).
        backoff_s, backoff_max_s, max_failed_starts, failed_start_s, stopped_warn_s:
            :data:`RESTART_BACKOFF_S`, :data:`RESTART_BACKOFF_MAX_S`, :data:`MAX_FAILED_STARTS`,
            :data:`FAILED_START_S`, :data:`STOPPED_WARN_S`.
    """

    def __init__(self, cfg: RunConfig, log=print, backoff_s: float = RESTART_BACKOFF_S,
                 backoff_max_s: float = RESTART_BACKOFF_MAX_S, max_failed_starts: int = MAX_FAILED_STARTS,
                 failed_start_s: float = FAILED_START_S, stopped_warn_s: float = STOPPED_WARN_S,
                 hung_warn_s: float = HUNG_WARN_S, hung_look_s: float = HUNG_LOOK_S):
        self.cfg, self.log = cfg, log
        self.backoff_s, self.backoff_max_s = backoff_s, backoff_max_s
        self.max_failed_starts, self.failed_start_s = max_failed_starts, failed_start_s
        self.stopped_warn_s = stopped_warn_s
        self.hung_warn_s, self.hung_look_s = hung_warn_s, hung_look_s
        self.ctx = ctx = mp.get_context("spawn")
        self.stop = SharedFlag.create(ctx)  # lock-free: a killed worker cannot jam it (training.shared_flag)
        self.go = SharedFlag.create(ctx, is_set=True)  # set: play; clear: paused
        self.errors = ctx.SimpleQueue()  # disk-full errors of the workers (training.faults)
        self.failures = ctx.SimpleQueue()  # (worker, last error line, traceback) of any other death
        self.replay = ReplayStore(RunLayout(cfg.run_dir).replay)
        n = cfg.selfplay.workers
        self.restarts = [0] * n  # restarts of each worker so far
        self.failed_starts = [0] * n  # failed starts in a row (FAILED_START_S)
        self._restart_at: list[float | None] = [None] * n  # dead: when to start it again
        self._started = [0.0] * n
        self._shards_at_start = [0] * n
        self._last_error: list[tuple[str, str] | None] = [None] * n
        self._stopped_since: list[float | None] = [None] * n
        self._stop_warned = [False] * n
        self._death: list[str] = [""] * n  # what the restart's line says of the death
        self._delay = [0.0] * n  # and of the backoff before it
        self._progress: list[tuple[float, int]] = [(0.0, 0)] * n  # (when, shards) of the last new shard
        self._hung_warned = [False] * n
        self._next_hung_look = 0.0
        self.procs: list[Any] = [self._spawn(w) for w in range(n)]
        log(f"self-play: {n} worker process(es), pid(s) {', '.join(str(p.pid) for p in self.procs)}")

    def _spawn(self, w: int):
        """Start worker ``w`` (its restart number: :attr:`restarts`) with SIGINT ignored from its
        first instruction (a spawned child inherits an ignored signal), so Ctrl-C reaches only
        the trainer."""
        self._started[w] = time.monotonic()
        self._shards_at_start[w] = self.replay.shard_count(w)
        self._progress[w], self._hung_warned[w] = (self._started[w], self._shards_at_start[w]), False
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            p = self.ctx.Process(target=worker_main, daemon=True,
                                 args=(self.cfg, w, self.stop, os.getpid(), self.go, self.errors,
                                       self.failures, self.restarts[w]))
            p.start()
        finally:
            signal.signal(signal.SIGINT, previous)
        return p

    def wait(self) -> None:
        self.check()
        time.sleep(WAIT_S)

    def publish(self, model: torch.nn.Module, step: int) -> None:
        """Nothing: the workers poll the checkpoint store."""

    def pause(self) -> None:
        self.go.clear()

    def resume(self) -> None:
        now = time.monotonic()
        self._progress = [(now, shards) for _, shards in self._progress]  # paused time does not count
        self.go.set()

    def check(self) -> None:
        """Look after the workers: a full disk one of them reported is raised (an OSError naming
        the file); a dead one is restarted after its backoff (one line in the log), or, dead
        :attr:`max_failed_starts` times in a row without a shard, stops the run
        (:class:`SelfPlayError`); one stopped (SIGSTOP) for :attr:`stopped_warn_s` is named in
        one warning. Nothing after :meth:`close`."""
        if not all(p.is_alive() for p in self.procs):
            raise_reported(self.errors)
        if self.stop.is_set():
            return
        dead = [w for w, p in enumerate(self.procs) if not p.is_alive() and self._restart_at[w] is None]
        while not self.failures.empty():
            w, line, trace = self.failures.get()
            self._last_error[w] = (line, trace)
        now = time.monotonic()
        for w in dead:
            self._died(w, now)
        for w, when in enumerate(self._restart_at):
            if when is not None and when <= now:
                self._restart_at[w] = None
                self.procs[w] = self._spawn(w)
                self.log(f"{self._death[w]}; restarted after {self._delay[w]:g} s as pid {self.procs[w].pid} "
                         f"(restart {self.restarts[w]})")
        self._look_for_stopped(now)
        self._look_for_hung(now)

    def _look_for_hung(self, now: float) -> None:
        """One warning for each running worker that wrote no shard for :attr:`hung_warn_s` (paused
        time does not count; a stopped worker has its own warning), one line when it writes again."""
        if not self.go.is_set():  # paused for an evaluation: no worker is expected to write, and
            return                 # resume() starts every worker's clock afresh
        if now < self._next_hung_look:
            return
        self._next_hung_look = now + self.hung_look_s
        for w, p in enumerate(self.procs):
            if self._restart_at[w] is not None or self._stopped_since[w] is not None or not p.is_alive():
                continue
            since, shards = self._progress[w]
            count = self.replay.shard_count(w)
            if count > shards:
                if self._hung_warned[w]:
                    self.log(f"self-play worker {w} (pid {p.pid}) writes shards again after "
                             f"{now - since:.0f} s")
                self._progress[w], self._hung_warned[w] = (now, count), False
            elif not self._hung_warned[w] and now - since >= self.hung_warn_s:
                self._hung_warned[w] = True
                self.log(f"warning: self-play worker {w} (pid {p.pid}) is running but has written no shard "
                         f"for {now - since:.0f} s (hung? a deadlock, a stalled disk); kill -9 {p.pid} "
                         "restarts it")

    def _died(self, w: int, now: float) -> None:
        """Worker ``w`` is dead: stop the run if it keeps failing at its start, else log it and
        plan its restart."""
        p = self.procs[w]
        how = exit_text(p.exitcode)
        error, self._last_error[w] = self._last_error[w], None
        if error is not None:
            how += f": {error[0]}"
            with naming(self.errors_log), open(self.errors_log, "a", encoding="utf-8") as f:
                f.write(f"--- {datetime.now().isoformat(timespec='seconds')} self-play worker {w} "
                        f"(pid {p.pid}, restart {self.restarts[w]}): {exit_text(p.exitcode)}\n{error[1]}")
        self.replay.remove_temp(w)  # a shard it was writing when it died
        wrote = self.replay.shard_count(w) > self._shards_at_start[w]
        failed_start = not wrote and now - self._started[w] < self.failed_start_s
        self.failed_starts[w] = self.failed_starts[w] + 1 if failed_start else 0
        tracebacks = f"; its traceback is in {self.errors_log}" if error is not None else ""
        if self.failed_starts[w] >= self.max_failed_starts:
            raise SelfPlayError(
                f"self-play worker {w} died {self.failed_starts[w]} times in a row at its start (before "
                f"writing a shard), the last time after {now - self._started[w]:.0f} s with "
                f"{how}{tracebacks}; fix the cause and run the same command to resume")
        delay = min(self.backoff_max_s, self.backoff_s * 2 ** self.failed_starts[w])
        self.restarts[w] += 1
        self._restart_at[w] = now + delay
        self._stopped_since[w], self._stop_warned[w] = None, False
        self._death[w] = (f"self-play worker {w} (pid {p.pid}) died ({how}){tracebacks}; its unfinished "
                          "games are lost")
        self._delay[w] = delay

    @property
    def errors_log(self) -> Path:
        """Where the tracebacks of failed workers go (:data:`ERRORS_LOG`)."""
        return self.cfg.run_dir / ERRORS_LOG

    def _look_for_stopped(self, now: float) -> None:
        """One warning for each worker stopped (SIGSTOP) for :attr:`stopped_warn_s`, one line
        when it goes on again."""
        for w, p in enumerate(self.procs):
            if self._restart_at[w] is not None:
                continue
            stopped = process_state(p.pid) in ("T", "t")
            since = self._stopped_since[w]
            if stopped and since is None:
                self._stopped_since[w] = now
            elif stopped and not self._stop_warned[w] and now - since >= self.stopped_warn_s:
                self._stop_warned[w] = True
                playing = sum(1 for v in range(len(self.procs))
                              if self._stopped_since[v] is None and self._restart_at[v] is None)
                others = (f"the {playing} other worker(s) play on" if playing else
                          "no worker is playing: training waits for it")
                self.log(f"warning: self-play worker {w} (pid {p.pid}) has been stopped for "
                         f"{now - since:.0f} s (SIGSTOP: a debugger, a person, a freezer?): {others}; "
                         f"kill -CONT {p.pid} lets it go on")
            elif not stopped and since is not None:
                if self._stop_warned[w]:
                    self.log(f"self-play worker {w} (pid {p.pid}) goes on after {now - since:.0f} s stopped")
                self._stopped_since[w], self._stop_warned[w] = None, False

    def report(self, metrics: Metrics, step: int) -> None:
        """Restarts of the workers so far (``selfplay/worker_restarts``); the self-play
        statistics come from the shards (the trainer logs them)."""
        metrics.scalar("selfplay/worker_restarts", sum(self.restarts), step)

    def close(self) -> None:
        """Stop the workers: asked first (a stopped one is continued: SIGCONT), terminated after
        10 s, killed after 5 more; each is reaped before this returns (no worker outlives the
        run)."""
        self.stop.set()
        for w, when in enumerate(self._restart_at):
            if when is not None:  # dead, its restart still to come: reported all the same
                self.log(f"{self._death[w]}; not restarted: self-play stopped first")
        for p in self.procs:
            if p.is_alive() and process_state(p.pid) in ("T", "t"):
                with contextlib.suppress(OSError):  # gone meanwhile
                    os.kill(p.pid, signal.SIGCONT)
        for p in self.procs:
            p.join(timeout=10)
            if p.is_alive():
                p.terminate()
                p.join(timeout=5)
            if p.is_alive():
                p.kill()
                p.join()


def make_backend(cfg: RunConfig, model: torch.nn.Module, step: int, device: torch.device,
                 log=print) -> SelfPlayBackend:
    """The run's self-play backend (inline, processes or Ray), started. ``model``/``step``: the newest
    published network (Ray actors get it through the object store)."""
    if cfg.backend == "ray":
        from .ray_selfplay import RaySelfPlay

        return RaySelfPlay(cfg, model, step, log)
    if cfg.selfplay.workers > 0:
        return ProcessSelfPlay(cfg, log)
    return InlineSelfPlay(cfg, device)


def arena_executor(cfg: RunConfig, log=print) -> Any:
    """Where the run's evaluation games run: Ray tasks anywhere on the cluster with
    ``backend=ray`` (training.ray_arena), else None (the arena's own process pool)."""
    if cfg.backend == "ray":
        from .ray_arena import ray_executor

        return ray_executor(cfg.ray, log)
    return None
