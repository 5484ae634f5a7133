"""The project as one installed thing: its version, its configs, and the check that its packages
are its own.

:data:`__version__` is the one version (the distribution's metadata, else ``pyproject.toml``),
:data:`CONFIGS` hive-train's Hydra configs, and :mod:`hive_zero.layout` the import-time check that
names a clash with another ``models``, ``scripts``... in one line. Imports nothing of the
project's and no third-party package (every package imports it first).

See docs/setup.md (installing the package) and docs/layout.md.
"""

from __future__ import annotations

from pathlib import Path

DISTRIBUTION = "hive-zero"
"""The distribution's name (``pip install hive-zero``)."""
HERE = Path(__file__).resolve().parent
CONFIGS = HERE / "configs"
"""hive-train's Hydra configs (``train.yaml`` and its groups), inside the package: in a checkout
a link to the repository's ``configs/``, in the wheel a copy."""


def _version() -> str:
    """The installed distribution's version; in a checkout that was never installed, the one in
    ``pyproject.toml`` beside the package; ``0+unknown`` when neither is there."""
    from importlib import metadata

    try:
        dist = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        dist = None
    if dist is not None:
        return dist.version
    pyproject = HERE.parent / "pyproject.toml"
    try:
        import tomllib

        return tomllib.loads(pyproject.read_text())["project"]["version"]
    except (OSError, KeyError, ValueError):
        return "0+unknown"


__version__ = _version()
"""The one version: ``--version`` of every command, ``hive-uhp``'s ``id`` line, the run's
``config.yaml`` and the model cards."""


def version_line(prog: str) -> str:
    """What ``PROG --version`` prints: ``hive-train (hive-zero 0.1.0)``."""
    return f"{prog} ({DISTRIBUTION} {__version__})"
