"""Shared fixtures. Helpers (where ../shared lives, skipping when it is absent, known positions) are in
tests/helpers.py: a test imports them from there, never from ``conftest`` (tests/web has a conftest of
its own, and ``import conftest`` would find whichever was loaded last)."""

from __future__ import annotations

import pytest

from helpers import ROOT


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
