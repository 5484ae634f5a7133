"""A new user's first hour: the first-compile notice, warming the kernel cache ahead (``make
setup``), and what ``hive-train`` says while it works (run directory, TensorBoard, self-play
before the first step, plain lines instead of a bar in a log, ``train.log``)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hive_env.compile_notice import NOTICE, NOTICE_ENV, own_subdir
from training import metrics
from training.metrics import Progress

from helpers import ROOT

# Compiles two throwaway functions (no cache): the notice comes at the first compile only.
COMPILE_TWICE = "import hive_env, numba; numba.njit(lambda x: x + 1)(1); numba.njit(lambda x: x + 2)(1)"


def run_python(code: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    drop = (NOTICE_ENV, "NUMBA_CACHE_DIR", "XDG_CACHE_HOME")
    clean = {k: v for k, v in os.environ.items() if k not in drop}
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**clean, **env}, capture_output=True,
                          text=True, timeout=600)  # a cold warm-up compiles every kernel: ~2 min under load


# ----- the first-compile notice ----------------------------------------------------------------------


def test_a_cold_cache_prints_the_notice_once_on_stderr(tmp_path):
    done = run_python(COMPILE_TWICE, {"NUMBA_CACHE_DIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert done.stderr == f"{NOTICE.removesuffix('...')}, into {tmp_path}...\n" and done.stdout == ""


def test_a_warm_cache_or_a_parent_that_said_it_prints_nothing(tmp_path):
    own = own_subdir(tmp_path)
    own.mkdir()
    (own / "kernel-1.py311.nbi").write_bytes(b"")  # a compiled kernel's index, of this copy
    warm = run_python(COMPILE_TWICE, {"NUMBA_CACHE_DIR": str(tmp_path)})
    assert warm.returncode == 0 and warm.stderr == ""
    told = run_python(COMPILE_TWICE, {"NUMBA_CACHE_DIR": str(tmp_path / "empty"), NOTICE_ENV: "1"})
    assert told.returncode == 0 and told.stderr == ""


def test_kernels_of_another_copy_of_the_engine_leave_the_cache_cold(tmp_path):
    """An installed copy beside a checkout (the same sources, so the same keyed cache): numba files
    the checkout's kernels under another folder, so the copy's first compile still says it."""
    other = tmp_path / f"hive_env_{'0' * 40}"
    other.mkdir()
    (other / "kernel-1.py311.nbi").write_bytes(b"")
    done = run_python(COMPILE_TWICE, {"NUMBA_CACHE_DIR": str(tmp_path)})
    said = f"{NOTICE.removesuffix('...')}, into {tmp_path}...\n"
    assert done.returncode == 0 and done.stderr == said, done.stderr


@pytest.mark.slow
def test_warming_the_cache_makes_the_first_perft_silent_and_compile_free(tmp_path):
    env = {"XDG_CACHE_HOME": str(tmp_path)}

    def run(*args: str) -> subprocess.CompletedProcess:
        code = (f"import runpy, sys; sys.argv = {list(args)!r}; "
                "runpy.run_module(sys.argv[0], run_name='__main__')")
        return run_python(code, env)

    cold = run("scripts.perft", "Base", "1")  # a cold first run says why it waits
    assert cold.returncode == 0 and cold.stdout.startswith("1\t4\t")
    (told,) = cold.stderr.splitlines()  # says why it waits, and where the kernels go
    assert told.startswith(NOTICE.removesuffix("...") + ", into " + str(tmp_path / "hive-zero")), told
    first = run("scripts.warm_kernels")
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith("compiling the engine's kernels") and "first run only" not in first.stderr
    indexes = set(tmp_path.rglob("*.nbi"))
    again = run("scripts.warm_kernels")  # make setup stays quick: nothing to do
    assert again.returncode == 0 and again.stdout.startswith("kernels already compiled")
    perft = run("scripts.perft", "Base", "4")
    assert perft.returncode == 0 and perft.stderr == ""
    assert perft.stdout.splitlines()[-1].startswith("4\t21600\t")
    assert set(tmp_path.rglob("*.nbi")) == indexes  # nothing left to compile


# ----- progress: a bar on a terminal, plain lines in a log -------------------------------------------


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_plain_progress_lines_are_periodic_and_carry_the_counts(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(metrics.time, "monotonic", clock)
    lines: list[str] = []
    stream = io.StringIO()
    progress = Progress(20, 0, lines.append, stream=stream)  # StringIO is no terminal
    assert not progress.interactive
    for t in range(0, 25, 1):  # waiting for self-play: the first line at once, then every 10 s
        clock.now = float(t)
        progress.waiting(games=t // 5, positions=10 * t, needed=150)
    assert lines == ["self-play: 0 games finished, 0 positions in replay (training starts at 150), 0 s",
                     "self-play: 2 games finished, 100 positions in replay (training starts at 150), 10 s",
                     "self-play: 4 games finished, 200 positions in replay, 20 s"]
    lines.clear()
    for step in range(1, 21):
        clock.now += 1.0
        progress.step(step, 1.5, 300, checkpoint=step % 10 == 0)
    assert lines == ["train: step 10/20, loss 1.500, 300 positions, 0.29 steps/s, 34 s",
                     "train: step 20/20, loss 1.500, 300 positions, 0.45 steps/s, 44 s"]
    progress.close()
    assert stream.getvalue() == ""


def test_a_wait_once_training_is_under_way_names_the_next_step_not_the_start():
    lines: list[str] = []
    progress = Progress(100, 40, lines.append, stream=io.StringIO())
    progress.waiting(games=9, positions=290, needed=320, step=41)
    assert len(lines) == 1 and lines[0].startswith(
        "self-play: 9 games finished, 290 positions in replay (step 42 at 320: train.samples_per_position), ")
    progress.close()


def test_a_terminal_gets_a_bar_and_no_lines():
    lines: list[str] = []
    stream = io.StringIO()
    progress = Progress(3, 0, lines.append, stream=stream, interactive=True)
    progress.waiting(games=1, positions=40, needed=64)
    progress.step(1, 2.0, 70)
    progress.close()
    assert lines == [] and "\r" in stream.getvalue() and "1/3" in stream.getvalue()


# ----- hive-train, as a log file sees it ----------------------------------------------------------------


@pytest.mark.slow  # moved for the default suite's 10 minutes
def test_hive_train_into_a_pipe_says_where_and_what_in_plain_lines(tmp_path):
    run_dir = tmp_path / "run"
    cmd = [sys.executable, "-m", "scripts.train", "experiment=smoke", f"run_dir={run_dir}",
           "selfplay.workers=0", "train.steps=4", "train.checkpoint_every=2", "train.min_positions=32",
           "eval.games=2", "eval.sims=2", "eval.final_games=2", "eval.final_sims=2"]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-3000:]
    assert "\r" not in out
    lines = done.stdout.splitlines()
    assert lines[0] == f"run directory: {run_dir} (rerun the same command to resume)"
    assert lines[1] == f"TensorBoard: tensorboard --logdir {run_dir / 'tb'}"
    assert lines[2].startswith("self-play inference: auto -> ")  # what runs the network, and why
    assert lines[3].startswith("self-play: ") and "games finished" in lines[3]  # before the first step
    assert lines[3].endswith(" s") and "positions in replay" in lines[3]
    steps = [line for line in lines if line.startswith("train: step ")]
    assert [s.split(",")[0] for s in steps] == ["train: step 2/4", "train: step 4/4"]
    log = (run_dir / "train.log").read_text().splitlines()  # the same lines, time-stamped
    for line in (*lines[:4], *steps, f"final checkpoint: {run_dir}/checkpoints/final.pt"):
        assert any(entry.endswith(" " + line) for entry in log), line


def test_the_readme_and_make_setup_point_at_tensorboard_and_the_warm_up():
    assert "tensorboard --logdir" in (ROOT / "docs" / "training.md").read_text()  # the README's Training page
    assert "$(BIN)/python -m scripts.warm_kernels" in (ROOT / "Makefile").read_text()
    assert Path(ROOT / "scripts" / "warm_kernels.py").is_file()
