"""Playing an arena's games: in this process, or in a pool of spawned worker processes.

Games run in-process (``workers=1``) or in a ``ProcessPoolExecutor`` of fresh (spawned, so
CUDA-safe) processes. Those know the kinds registered by ``players.registry`` and import the
module of each player's class first, so a kind registered next to its class is known too.
Workers ignore Ctrl-C (the parent handles it and stops them) and exit when the parent dies.

**One core a side.** With ``pin`` (the arena's timed matches) and at least as many cores as
workers, each worker process is pinned to a core of its own (``os.sched_setaffinity``), its
external engines with it (a child inherits the affinity), and numba's threads are limited to one:
the two sides of a game take turns on that core and no game takes time from another. With fewer
cores than workers nothing is pinned (each record's ``cpus`` shows it).
"""

from __future__ import annotations

import importlib
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from contextlib import contextmanager
from itertools import islice
from typing import Any

from .game import GameTask, play_game

Executor = Callable[[Iterator[GameTask], int, Callable[[dict[str, Any]], bool], Sequence[str]], None]
"""How an arena's games are played: :func:`execute` (this machine), or another with its contract
(``training.ray_arena.ray_executor``: Ray tasks on a cluster)."""


def pinning_cores(workers: int) -> list[int] | None:
    """One core per worker from those this process may use, or None when there are too few."""
    try:
        cores = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        return None
    return cores[:workers] if workers > 1 and len(cores) >= workers else None


def execute(tasks: Iterator[GameTask], workers: int, handle: Callable[[dict[str, Any]], bool],
            modules: Sequence[str] = (), pin: bool = False) -> None:
    """Play ``tasks``, calling ``handle(record)`` in this process as each game finishes.

    ``handle`` returns False to stop taking new tasks (games already running still finish and
    are handled). On an exception (from a game, from ``handle``, Ctrl-C) unfinished games are
    abandoned: the worker processes are stopped and the exception propagates. Worker processes
    import ``modules`` first (where player kinds beyond ``players.registry`` are registered).
    ``pin``: each worker on a core of its own where there are enough (module docstring).
    """
    if workers <= 1:
        for task in tasks:
            if not handle(play_game(task)):
                return
        return
    context = multiprocessing.get_context("spawn")
    cores = pinning_cores(workers) if pin else None
    free = None
    if cores is not None:
        free = context.Queue()
        for core in cores:
            free.put(core)
    with _unimportable_main_hidden():
        before = set(multiprocessing.active_children())
        pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_init_worker,
                                   initargs=(sorted(set(modules)), os.getpid(), free))
        try:
            running = {pool.submit(play_game, t) for t in islice(tasks, workers)}
            going = True
            while running:
                done, running = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    going = handle(future.result()) and going
                    if going:
                        running |= {pool.submit(play_game, t) for t in islice(tasks, 1)}
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            for proc in set(multiprocessing.active_children()) - before:
                proc.terminate()
            raise
        pool.shutdown()


def _init_worker(modules: list[str], parent: int, free_cores: Any = None) -> None:
    """Set up a pool worker; ``parent`` is the arena's pid, taken there (a parent that died while
    this worker started would already be replaced by init in ``os.getppid()`` here);
    ``free_cores``: a queue of cores, one taken to pin this worker to (None: not pinned)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops us
    threading.Thread(target=_exit_with_parent, args=(parent,), daemon=True).start()
    if free_cores is not None:
        import numba

        os.sched_setaffinity(0, {free_cores.get(timeout=60)})
        numba.set_num_threads(1)
    for name in modules:
        importlib.import_module(name)


def _exit_with_parent(parent: int) -> None:
    """A killed parent (SIGKILL, OOM) leaves pool workers running: end this one when it is gone.

    External engines die with the worker (``players.uhp_client`` sets ``PR_SET_PDEATHSIG``).
    """
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


@contextmanager
def _unimportable_main_hidden() -> Iterator[None]:
    """Spawned workers re-import the parent's ``__main__`` from its file; a script fed on stdin
    (``python - < x.py``) has the file ``<stdin>``, which does not exist, and every worker would
    die. Hide such a file while the pool starts workers (they start on demand, so throughout)."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    hide = path is not None and not os.path.isfile(path)
    if hide:
        del main.__file__
    try:
        yield
    finally:
        if hide:
            main.__file__ = path
