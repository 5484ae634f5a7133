"""Self-play's memory stays flat in a process that compiled its kernels itself (a cold kernel
cache): no kernel compiled without reference counting (``hive_env.board.NO_REFCOUNT``) may make
an array or call one that does, or every search step leaks it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from helpers import ROOT

SCRIPT = """
import resource
from search.mcts import SearchConfig
from training.selfplay import SelfPlay, SelfPlayConfig
from search.network import make_evaluator
from models.gnn import build_model

evaluate = make_evaluator(build_model("tiny"), "cpu")
sp = SelfPlay(SelfPlayConfig(games=64), SearchConfig(sims=32), "Base", 120, evaluate, seed=1)
for _ in range(30):
    sp.step()
warm = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
for _ in range(200):
    sp.step()
print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - warm) // 1024)
"""


@pytest.mark.slow
def test_self_play_with_kernels_compiled_in_process_keeps_its_memory(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cold"), "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=900)
    assert proc.returncode == 0, proc.stderr[-2000:]
    grown_mb = int(proc.stdout.split()[-1])
    assert grown_mb < 150, f"self-play grew {grown_mb} MB over 200 steps with a cold kernel cache"
