"""The check that ``models``, ``scripts``, ``training``... are hive-zero's own: a clash named in one
line, never a confusing ``ImportError`` deep in a command.

hive-zero's packages keep their short import names (:data:`PACKAGES`), which other code may use
too: a ``models.py`` in the folder ``python -m`` runs from, a folder on ``PYTHONPATH``, another
installed package. Each package's ``__init__`` but ``hive_env``'s calls :func:`check`: under a
console command a clash is one line and exit status 2, in a library import a :class:`LayoutError`.

See docs/setup.md (names).
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import sys
from pathlib import Path

from . import DISTRIBUTION, HERE

PACKAGES = ("hive_env", "models", "players", "search", "training", "arena", "scripts", "web")
"""hive-zero's top-level packages besides this one."""
EXIT = 2
"""The exit status of a command stopped by a clash."""


class LayoutError(ImportError):
    """One of :data:`PACKAGES` is not hive-zero's own (the message names it and what to do)."""


_checked: list[str] | None = None


def origin(name: str) -> Path | None:
    """Where the module ``name`` is (or would be) imported from: its ``__init__.py`` or module
    file; None for a namespace package or one not found. Imports nothing."""
    module = sys.modules.get(name)
    if module is not None:
        file = getattr(module, "__file__", None)
    else:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        file = spec.origin if spec is not None and spec.has_location else None
    return Path(file).resolve() if file else None


def problems() -> list[str]:
    """One line for each package of :data:`PACKAGES` that is not hive-zero's (empty: all are)."""
    root = HERE.parent
    found = []
    for name in PACKAGES:
        expected = root / name / "__init__.py"
        where = origin(name)
        if where != expected:
            what = f"{where}" if where else "a namespace package or nothing"
            found.append(f"the '{name}' imported here is {what}, not hive-zero's ({expected}): "
                         f"a module or package named '{name}' earlier on sys.path shadows it; rename "
                         "it or run from another folder")
    if not found:
        found += _overwritten(root)
    return found


def _overwritten(root: Path) -> list[str]:
    """The packages whose ``__init__.py`` differs from the one this installed copy's wheel put there
    (nothing to compare in a checkout or an editable install)."""
    from importlib import metadata

    try:
        dist = metadata.distribution(DISTRIBUTION)
        files = {str(f): f for f in dist.files or ()}
    except (metadata.PackageNotFoundError, OSError):
        return []
    mine = files.get("hive_zero/__init__.py")
    if mine is None or Path(dist.locate_file(mine)).resolve() != HERE / "__init__.py":
        return []  # a checkout or an editable install, or another copy's metadata
    found = []
    for name in PACKAGES:
        record = files.get(f"{name}/__init__.py")
        path = root / name / "__init__.py"
        if record is None or record.hash is None:
            continue
        try:
            digest = hashlib.new(record.hash.mode, path.read_bytes()).digest()
        except (OSError, ValueError):
            continue
        if base64.urlsafe_b64encode(digest).rstrip(b"=").decode() != record.hash.value:
            owners = [d for d in _owners(name) if d != DISTRIBUTION]
            who = f"another package ({', '.join(owners)})" if owners else "another package"
            found.append(f"{path} is not hive-zero's: {who} installed a '{name}' over it; install "
                         "hive-zero in a virtual environment of its own")
    return found


def _owners(name: str) -> list[str]:
    """The installed distributions that say they hold the top-level package ``name``."""
    from importlib import metadata

    owners = []
    for dist in metadata.distributions():
        top = (dist.read_text("top_level.txt") or "").split()
        files = [str(f) for f in dist.files or ()] if not top else []
        if name in top or any(f.startswith(f"{name}/") for f in files):
            owners.append(dist.metadata["Name"])
    return sorted(set(owners))


def check(command: bool | None = None) -> None:
    """Stop on a clash; once per process, quietly when there is none. ``command``: whether to stop
    as a command does (one line, exit 2); None: when ``sys.argv`` says this is one (``hive-*``,
    ``python -m``).

    Each package's ``__init__`` but ``hive_env``'s calls it (the engine imports none of ours, so
    a user's code may import it beside modules of its own with our names); the first call does
    the work, in microseconds to a few milliseconds: every one of :data:`PACKAGES` must be the
    one beside this package, and in an installed copy its ``__init__.py`` must be the file the
    wheel installed (its SHA-256 in the distribution's ``RECORD``: another package installed into
    the same ``site-packages/models/`` overwrites it). A ``models.py`` or ``scripts/`` in the
    folder a script or ``python -m`` runs from is put first on ``sys.path``; the console
    commands ``hive-*`` never put the current folder there."""
    global _checked
    if _checked is None:
        _checked = problems()
    if not _checked:
        return
    line = f"hive-zero: {_checked[0]}"
    if command or (command is None and _is_command()):
        print(line, file=sys.stderr, flush=True)
        sys.exit(EXIT)
    raise LayoutError(line)


def _is_command() -> bool:
    """Whether this process is one of the console commands (``hive-*``) or ``python -m``."""
    first = sys.argv[0] if sys.argv else ""
    return first == "-m" or Path(first).name.startswith("hive-")
