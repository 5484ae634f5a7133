"""The console commands (``[project.scripts]``): each checks that hive-zero's packages are its own
(:func:`hive_zero.layout.check`: a clash is one line, exit 2), then runs its ``main``.

The commands start here, under this package's unique name, and not at ``scripts.perft:main``: a
``scripts`` or ``arena`` of someone else's earlier on the path would otherwise be imported
instead, and the command would end in a bare ``ModuleNotFoundError``. Imported by name only, so
``hive_zero`` itself imports none of the project's packages.
"""

from __future__ import annotations

import importlib
from typing import Any

from .layout import check

COMMANDS = {
    "hive-perft": "scripts.perft:main",
    "hive-train": "scripts.train:main",
    "hive-arena": "arena.cli:main",
    "hive-bench-engine": "scripts.bench_engine:main",
    "hive-uhp": "scripts.uhp_engine:main",
    "hive-play": "scripts.play:main",
    "hive-bench-env": "scripts.bench_env:main",
    "hive-bench-backend": "scripts.bench_backend:main",
    "hive-web": "scripts.web:main",
    "hive-show": "scripts.show:main",
    "hive-analyse": "scripts.analyse:main",
    "hive-curve": "scripts.curve:main",
}
"""Every console command and the function it runs."""


def run(command: str) -> Any:
    """Run ``command`` (a key of :data:`COMMANDS`) after the layout check."""
    check(command=True)
    module, function = COMMANDS[command].split(":")
    return getattr(importlib.import_module(module), function)()


def hive_perft() -> Any:
    return run("hive-perft")


def hive_train() -> Any:
    return run("hive-train")


def hive_arena() -> Any:
    return run("hive-arena")


def hive_bench_engine() -> Any:
    return run("hive-bench-engine")


def hive_uhp() -> Any:
    return run("hive-uhp")


def hive_play() -> Any:
    return run("hive-play")


def hive_bench_env() -> Any:
    return run("hive-bench-env")


def hive_bench_backend() -> Any:
    return run("hive-bench-backend")


def hive_web() -> Any:
    return run("hive-web")


def hive_show() -> Any:
    return run("hive-show")


def hive_analyse() -> Any:
    return run("hive-analyse")


def hive_curve() -> Any:
    return run("hive-curve")
