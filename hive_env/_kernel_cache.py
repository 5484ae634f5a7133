"""Where numba caches the compiled kernels: a directory keyed by the source of every kernel.

numba's own cache checks only the timestamp of the file that defines a function, not of the
files whose functions it calls and inlines: after an edit to ``encode.py``, a cached kernel of
``vec_env.py`` would silently keep the old encoder. Keying the cache directory by a hash of
all the project's kernel sources makes any edit start from a fresh cache. An explicit
``NUMBA_CACHE_DIR`` wins; older keyed directories beyond the newest few are removed.

Importing this module applies it (``hive_env/__init__`` imports it before any kernel). On a
cold cache (no index files yet: a fresh install or an edited kernel), the first compile prints
a notice to stderr, once per process tree (``hive_env.compile_notice``); warm runs print
nothing. ``make setup`` warms the cache ahead (``scripts/warm_kernels.py``).
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import numba

PACKAGES = ("hive_env", "players", "search", "training")
"""Packages whose modules define cached kernels (``@njit(cache=True)``)."""
KEEP = 4
"""Keyed cache directories kept (other checkouts or branches may use the older ones)."""


def source_key(root: Path) -> str:
    """A short hash of every ``.py`` file of :data:`PACKAGES` under ``root`` that compiles
    kernels (mentions ``njit``): edits elsewhere keep the cache."""
    digest = hashlib.sha1()
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            text = path.read_bytes()
            if b"njit" in text:
                digest.update(str(path.relative_to(root)).encode())
                digest.update(text)
    return digest.hexdigest()[:16]


def use_keyed_cache() -> Path | None:
    """Point numba's cache at ``<cache home>/hive-zero/numba-<source key>``; None when
    ``NUMBA_CACHE_DIR`` is set (the user's choice) or no cache home is writable."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return None
    root = Path(__file__).resolve().parents[1]
    home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "hive-zero"
    target = home / f"numba-{source_key(root)}"
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    numba.config.CACHE_DIR = str(target)
    _prune(home, target)
    return target


def _prune(home: Path, current: Path) -> None:
    old = sorted((p for p in home.glob("numba-*") if p != current), key=lambda p: p.stat().st_mtime)
    for path in old[: max(0, len(old) - (KEEP - 1))]:
        shutil.rmtree(path, ignore_errors=True)


CACHE_DIR = use_keyed_cache()
"""The keyed cache directory in use (None: numba's default or the user's NUMBA_CACHE_DIR)."""

from . import compile_notice  # noqa: E402, F401  (registers the first-compile notice)
