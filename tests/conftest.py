"""Shared test helpers: where ../shared lives, and skipping when it is absent.

Only other engines' files are read from ../shared (nokamute's UHP suite, its binary); the project's own
facts, such as the published perft counts, are in tests/data/ so every clone checks them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from helpers import ROOT

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
REFERENCE = SHARED / "reference"
TOOLS = SHARED / "tools"


def require_reference(name: str) -> Path:
    """Path of a file in ../shared/reference, or skip the test when it is absent."""
    path = REFERENCE / name
    if not path.is_file():
        pytest.skip(f"{path} not available")
    return path


def require_tool(name: str) -> Path:
    """Path of an executable in ../shared/tools (another engine, e.g. ``nokamute``), or skip."""
    path = TOOLS / name
    if not (path.is_file() and os.access(path, os.X_OK)):
        pytest.skip(f"{path} not available")
    return path


@pytest.fixture(scope="session")
def smoke_run(tmp_path_factory):
    """One ``hive-train experiment=smoke`` run shared by the tests that inspect its output:
    (run directory, combined output, exit status)."""
    import subprocess
    import sys

    run_dir = tmp_path_factory.mktemp("runs") / "smoke"
    proc = subprocess.run([sys.executable, "-m", "scripts.train", "experiment=smoke", f"run_dir={run_dir}"],
                          cwd=ROOT, capture_output=True, text=True, timeout=900)
    return run_dir, proc.stdout + proc.stderr, proc.returncode


@pytest.fixture
def unshipped(monkeypatch):
    """``unshipped("Base+L")`` makes that game type's shipped network absent for the test (every
    type may ship one, so a refusal is tested on a type made to lack it); returns the type."""
    from dataclasses import replace

    from models import shipped

    def remove(game_type: str) -> str:
        net = shipped.NETWORKS[game_type]
        monkeypatch.setitem(shipped.NETWORKS, game_type,
                            replace(net, checkpoint=net.checkpoint.with_name("not-shipped.pt")))
        return game_type

    return remove
