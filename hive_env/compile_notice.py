"""The one-line notice before a long first compile: "compiling the engine (first run only...)".

numba compiles each kernel at its first call (about a minute in all) and caches it in
``hive_env._kernel_cache``'s keyed directory. On a cold cache (no ``*.nbi`` index file yet: a
fresh install, or a kernel's source edited), the first compile prints :data:`NOTICE` to stderr,
once per process tree; warm runs print nothing. Entry points that start long work (``hive-train``
before spawning its workers) call :func:`notice_first_compile` themselves; everything else gets
it from the listener registered on import (``hive_env/__init__`` imports this through
``_kernel_cache``). ``make setup`` warms the cache ahead (``scripts/warm_kernels.py``).
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

import numba
from numba.core import event

NOTICE = "compiling the engine (first run only, about a minute)..."
"""The line printed to stderr before the first compile on a cold cache (:func:`notice_line`: with
where the kernels go, when that is known)."""
NOTICE_ENV = "HIVE_ZERO_COMPILE_NOTICE"
"""Set once the notice is printed; inherited by child processes (self-play workers), which stay quiet."""


def cache_dir() -> Path | None:
    """Where compiled kernels are cached: the keyed directory (``_kernel_cache.CACHE_DIR``) or the
    user's ``NUMBA_CACHE_DIR``; None: numba's default, beside the sources."""
    return Path(numba.config.CACHE_DIR) if numba.config.CACHE_DIR else None


def own_subdir(directory: Path) -> Path:
    """This copy's engine kernels inside the cache ``directory``: numba files a module's kernels
    under ``<folder name>_<sha1 of the folder's absolute path>`` (its user-provided cache
    locator), so a checkout and an installed copy of the same sources fill different folders."""
    folder = Path(__file__).resolve().parent
    return directory / f"{folder.name}_{hashlib.sha1(str(folder).encode()).hexdigest()}"


def is_cold() -> bool:
    """True when the kernel cache holds no compiled engine kernel of this copy yet (no ``*.nbi``
    index file in :func:`own_subdir`: a fresh install beside a checkout that compiled its own is
    cold too); False also when the cache location is numba's default (unknown)."""
    directory = cache_dir()
    if directory is None:
        return False
    return next(own_subdir(directory).glob("*.nbi"), None) is None


def notice_line() -> str:
    """:data:`NOTICE`, and where the compiled kernels go (the user's cache folder, never the
    installed package) when :func:`cache_dir` knows it."""
    directory = cache_dir()
    return NOTICE if directory is None else f"{NOTICE.removesuffix('...')}, into {directory}..."


def notice_first_compile(stream=None) -> bool:
    """Print :func:`notice_line` (to ``stream``, default stderr) when the cache is cold and no
    notice was printed yet in this process or its parents; True when printed."""
    if os.environ.get(NOTICE_ENV) or not is_cold():
        return False
    os.environ[NOTICE_ENV] = "1"
    print(notice_line(), file=stream or sys.stderr, flush=True)
    return True


class _FirstCompile(event.Listener):
    """Prints the notice at numba's first compile (a cache miss) in this process, then retires
    (it stays registered: unregistering inside numba's broadcast loop would skip a listener).
    Library use (``HiveVecEnv(...)`` in a notebook) gets the notice too, warm runs nothing."""

    done = False

    def on_start(self, ev) -> None:
        if not self.done:
            self.done = True
            notice_first_compile()

    def on_end(self, ev) -> None:
        pass


event.register("numba:compile", _FirstCompile())
