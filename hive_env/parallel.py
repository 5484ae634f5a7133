"""One launch of a parallel numba kernel at a time in a process, whatever thread launches it.

The engine runs numba's parallel kernels on the workqueue threading layer (``hive_env``
chooses it: the OpenMP layer spins against torch's own). That layer is not thread-safe: two
threads launching parallel kernels at the same moment abort the whole process ("Terminating:
Nested parallel kernel launch detected"). A program that searches from several threads, as
hive-web does (a game review beside an analysis, two reviews), would die. Every launch of a
``parallel=True`` kernel in this project is therefore made under :data:`LAUNCH_LOCK`
(:func:`launching`); serial kernels, which most small batches use, run without it. The lock is
re-entrant, so a launch may be nested in a region that already holds it.
"""

from __future__ import annotations

import contextlib
import threading

LAUNCH_LOCK = threading.RLock()
"""Held while a parallel numba kernel runs."""


def launching(parallel: bool = True) -> contextlib.AbstractContextManager:
    """The context to launch a kernel in: :data:`LAUNCH_LOCK` for a parallel kernel, nothing
    for a serial one."""
    return LAUNCH_LOCK if parallel else contextlib.nullcontext()
