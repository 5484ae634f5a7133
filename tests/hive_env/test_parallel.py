"""Parallel numba kernels launched from several threads at once (hive-web searches from its
worker threads): the process must not abort. numba's workqueue layer aborts the process when
two threads launch parallel kernels together, so each case runs in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from helpers import ROOT

SCRIPT = """
import threading, numpy as np
from hive_env.encode import MAX_LEGAL, observe_batch_with_moves
from hive_env import Game
from models.gnn import build_model
from search.fastnet import FastNet
from search.mcts import BatchedMCTS, SearchConfig
from search.network import make_evaluator

game = Game("Base")
for _ in range(6):
    game.play(int(game.legal_moves()[0]))
boards = np.stack([game.board] * 64)
model = build_model("tiny")
net = FastNet(model)
evaluate = make_evaluator(model, "cpu", backend="auto")
errors = []

def work():
    try:
        for _ in range(5):
            obs, _ = observe_batch_with_moves(boards, MAX_LEGAL)
            net(obs)
            mcts = BatchedMCTS(SearchConfig(sims=8, dirichlet_eps=0.0), 32, game.expansions, evaluate)
            mcts.search(boards[:32], np.stack([game.hist] * 32), np.arange(32), add_noise=False)
    except Exception as e:
        errors.append(e)

threads = [threading.Thread(target=work) for _ in range(3)]
for t in threads: t.start()
for t in threads: t.join()
assert not errors, errors
print("ok")
"""


@pytest.mark.slow
def test_parallel_kernels_launched_from_several_threads_do_not_abort_the_process():
    proc = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True,
                          timeout=600, env={**os.environ, "NUMBA_NUM_THREADS": "2"})
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-2000:]
