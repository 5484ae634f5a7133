"""Where numba caches the compiled kernels: a directory keyed by the source of every kernel.

numba's own cache checks only the timestamp of the file that defines a function, not of the
files whose functions it calls and inlines: after an edit to ``encode.py``, a cached kernel of
``vec_env.py`` would silently keep the old code. Keying the cache directory by a hash of the
kernel sources and every project module they import makes any such edit start from a fresh
cache. An explicit ``NUMBA_CACHE_DIR`` wins; importing this module applies it.

See docs/setup.md.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from pathlib import Path

import numba

PACKAGES = ("hive_env", "players", "search", "training")
"""Packages whose modules define cached kernels (``@njit(cache=True)``)."""
KEEP = 4
"""Keyed cache directories kept (other checkouts or branches may use the older ones)."""


_IMPORT = re.compile(rb"^\s*(?:from\s+(\.*[\w.]*)\s+import\s+([\w, ()]+)|import\s+([\w.]+))", re.M)


def _module_files(root: Path) -> dict[str, Path]:
    """Every module of :data:`PACKAGES` under ``root`` by dotted name (a package by its own)."""
    out = {}
    for package in PACKAGES:
        for path in (root / package).rglob("*.py"):
            parts = path.relative_to(root).with_suffix("").parts
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _imports(name: str, path: Path, text: bytes, modules: dict[str, Path]) -> set[str]:
    """The project modules ``text`` (module ``name`` at ``path``) imports: ``import a.b``,
    ``from a import b`` and relative forms, each as the module (or the package) it names."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for source, names, plain in _IMPORT.findall(text):
        if plain:
            base, members = plain.decode(), []
        else:
            base = source.decode()
            dots = len(base) - len(base.lstrip("."))
            if dots:
                anchor = package.split(".")[: len(package.split(".")) - (dots - 1)]
                base = ".".join([*anchor, base[dots:]] if base[dots:] else anchor)
            members = [m.strip() for m in names.decode().strip("() ").split(",") if m.strip()]
        found.update(m for m in (base, *(f"{base}.{m.split()[0]}" for m in members)) if m in modules)
    return found


def source_key(root: Path) -> str:
    """A short hash of every ``.py`` file of :data:`PACKAGES` under ``root`` that compiles
    kernels (mentions ``njit``) and of every project module those import, directly or not: a
    constant a kernel compiles in (``hive_env.pieces``) keys the cache as the kernels do;
    edits elsewhere keep it."""
    modules = _module_files(root)
    texts = {name: path.read_bytes() for name, path in modules.items()}
    todo = [name for name, text in texts.items() if b"njit" in text]
    keyed: set[str] = set()
    while todo:
        name = todo.pop()
        if name not in keyed:
            keyed.add(name)
            todo.extend(_imports(name, modules[name], texts[name], modules) - keyed)
    digest = hashlib.sha1()
    for name in sorted(keyed):
        digest.update(str(modules[name].relative_to(root)).encode())
        digest.update(texts[name])
    return digest.hexdigest()[:16]


def use_keyed_cache() -> Path | None:
    """Point numba's cache at ``<cache home>/hive-zero/numba-<source key>``; None when
    ``NUMBA_CACHE_DIR`` is set (the user's choice) or no cache home is writable. Older keyed
    directories beyond the newest :data:`KEEP` are removed. ``hive_env/__init__`` imports this
    module before any kernel; on a cold cache (a fresh install or an edited kernel) the first
    compile prints a notice to stderr, once per process tree (``hive_env.compile_notice``), and
    ``make setup`` warms the cache ahead (``scripts/warm_kernels.py``)."""
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
