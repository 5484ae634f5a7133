"""The project as one installed thing: its version, its configs, and the check that its packages
are its own.

hive-zero installs its packages under their own names (``hive_env``, ``models``, ``players``,
``search``, ``training``, ``arena``, ``scripts``, ``web``) and this one, whose name is the
distribution's. Everything a command reads ships inside the packages and is found through them,
never through the current folder or a checkout:

- :data:`__version__`: the one version (the distribution's metadata; a checkout without an
  install reads ``pyproject.toml``): ``--version`` of every command, ``hive-uhp``'s ``id`` line,
  the run's ``config.yaml`` and the model cards.
- :data:`CONFIGS`: hive-train's Hydra configs (``hive_zero/configs``: in a checkout a link to the
  repository's ``configs/``, in the wheel a copy).
- :mod:`hive_zero.layout`: the import-time check that names a clash with another ``models``,
  ``scripts``, ``training``... in one line.

Imports nothing of the project's and no third-party package (every package imports it first).
"""

from __future__ import annotations

from pathlib import Path

DISTRIBUTION = "hive-zero"
"""The distribution's name (``pip install hive-zero``)."""
HERE = Path(__file__).resolve().parent
CONFIGS = HERE / "configs"
"""hive-train's Hydra configs (``train.yaml`` and its groups), inside the package."""


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


def version_line(prog: str) -> str:
    """What ``PROG --version`` prints: ``hive-train (hive-zero 0.1.0)``."""
    return f"{prog} ({DISTRIBUTION} {__version__})"
