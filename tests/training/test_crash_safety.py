"""Crash safety of training: kills during evaluations, re-trained steps, resumes with changed
settings, Ctrl-C and SIGTERM, and RNG states that survive ``torch.load(weights_only=True)``.

The whole-run tests start ``python -m scripts.train experiment=smoke`` with self-play in the
trainer process and tiny evaluations; one killed-and-resumed run is shared (copied) by several.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest
import torch
from hydra import compose, initialize_config_dir

import training.run
from search.checkpoint import load_model
from training.config import register_configs, run_config
from training.gating import file_hash
from training.resume import resume_changes
from training.run import Run, Stopped, stop_on_signals

from helpers import ROOT, hive_train, wait_for

CONFIGS = str(ROOT / "configs")
QUICK = ("selfplay.workers=0", "eval.games=4", "eval.sims=8", "eval.final_games=2", "eval.final_sims=2")
"""Overrides of the shared run: evaluations long enough (4 games) to be killed in."""


def finish(proc: subprocess.Popen, timeout: float = 600) -> str:
    out, _ = proc.communicate(timeout=timeout)
    return out


def ledger(run_dir: Path) -> list[dict]:
    path = run_dir / "eval" / "ledger.json"
    try:
        return json.loads(path.read_text())["evaluations"]
    except (OSError, ValueError):
        return []


def games_in(run_dir: Path, entry: dict) -> list[str]:
    return (run_dir / "eval" / entry["dir"] / "games.jsonl").read_text().splitlines()


def evaluations_lost(run_dir: Path, steps: int, every: int, games: int) -> list[int]:
    """Steps due an evaluation (every checkpoint) without a finished one of the checkpoint now
    at that step, with all its games (``games`` per opponent: random, and best after the first)."""
    done = {e["step"]: e for e in ledger(run_dir) if e["state"] == "done"}
    lost = []
    for step in range(every, steps + 1, every):
        entry = done.get(step)
        ckpt = run_dir / "checkpoints" / f"ckpt_{step:08d}.pt"
        want = games * (1 if step == every else 2)
        if (entry is None or (ckpt.exists() and file_hash(ckpt) != entry["checkpoint"])
                or len(games_in(run_dir, entry)) != want):
            lost.append(step)
    return lost


# ----- a kill during an evaluation ----------------------------------------------------------------


@pytest.fixture(scope="module")
def killed_in_evaluation(tmp_path_factory):
    """A run SIGKILLed during the evaluation of step 10 (after its first game), then rerun to the
    end: (run directory, ledger at the kill, games of step 10 at the kill, rerun's output, status)."""
    run_dir = tmp_path_factory.mktemp("crash") / "run"
    proc = hive_train(run_dir, *QUICK)
    step10 = run_dir / "eval"

    def one_game_played():
        return any(p.stat().st_size > 0 for p in step10.glob("step_00000010_*/games.jsonl"))

    assert wait_for(proc, one_game_played), finish(proc)[-3000:]
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    at_kill = ledger(run_dir)
    (games_file,) = step10.glob("step_00000010_*/games.jsonl")
    games_at_kill = games_file.read_text().splitlines()
    proc = hive_train(run_dir, *QUICK)
    out = finish(proc)
    return run_dir, at_kill, games_at_kill, out, proc.returncode


def copy_run(src: Path, tmp_path: Path) -> Path:
    dst = tmp_path / "run"
    shutil.copytree(src, dst)
    return dst


def test_a_kill_during_an_evaluation_is_finished_on_resume(killed_in_evaluation):
    run_dir, at_kill, games_at_kill, out, returncode = killed_in_evaluation
    assert returncode == 0, out[-3000:]
    assert [(e["step"], e["state"]) for e in at_kill] == [(10, "started")]
    assert 1 <= len(games_at_kill) < 4
    assert "step 10: finishing its evaluation" in out
    assert evaluations_lost(run_dir, 20, 10, 4) == []
    done = {e["step"]: e for e in ledger(run_dir) if e["state"] == "done"}
    assert games_in(run_dir, done[10])[: len(games_at_kill)] == games_at_kill  # resumed, not replayed
    assert load_model(run_dir / "checkpoints" / "final.pt")[1]["step"] == 20
    assert not list((run_dir / "eval" / "frozen").iterdir())
    trained = torch.load(run_dir / "checkpoints" / "ckpt_00000020.pt", weights_only=True)
    assert trained["trainer"]["train_step"] == 20 and trained["rng"]["numpy"][0] == "MT19937"


def test_a_retrained_step_is_evaluated_afresh(killed_in_evaluation, tmp_path):
    run_dir = copy_run(killed_in_evaluation[0], tmp_path)
    old = {e["step"]: e for e in ledger(run_dir) if e["state"] == "done"}[20]
    (run_dir / "checkpoints" / "ckpt_00000020.pt").write_bytes(b"damaged")  # step 20 is trained again
    proc = hive_train(run_dir, *QUICK)
    out = finish(proc)
    assert proc.returncode == 0, out[-3000:]
    assert "resumed from checkpoint step 10" in out
    new = {e["step"]: e for e in ledger(run_dir) if e["state"] == "done"}[20]
    assert new["checkpoint"] == file_hash(run_dir / "checkpoints" / "ckpt_00000020.pt") != old["checkpoint"]
    assert new["dir"] != old["dir"]
    assert len(games_in(run_dir, new)) == 8 and len(games_in(run_dir, old)) == 8
    assert all(new["checkpoint"] in line for line in games_in(run_dir, new))


def test_an_incompatible_resume_is_refused_before_writing(killed_in_evaluation, tmp_path):
    run_dir = copy_run(killed_in_evaluation[0], tmp_path)
    config = (run_dir / "config.yaml").read_bytes()
    before = sorted(p.name for p in (run_dir / "checkpoints").iterdir())
    proc = hive_train(run_dir, *QUICK, "model.width=32", "env.ply_cap=80")
    out = finish(proc, 120)
    assert proc.returncode == 2
    lines = [line for line in out.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in out
    assert "model.width: 16 -> 32" in lines[0] and "env.ply_cap: 60 -> 80" in lines[0]
    assert (run_dir / "config.yaml").read_bytes() == config
    assert sorted(p.name for p in (run_dir / "checkpoints").iterdir()) == before
    assert not (run_dir / "resumes.log").exists()


def test_a_compatible_change_is_accepted_and_recorded(killed_in_evaluation, tmp_path):
    run_dir = copy_run(killed_in_evaluation[0], tmp_path)
    evaluations = ledger(run_dir)
    proc = hive_train(run_dir, *QUICK, "eval.every=2", "train.keep_checkpoints=5")
    out = finish(proc, 300)
    assert proc.returncode == 0, out[-3000:]
    changed = [line for line in out.splitlines() if "changed settings" in line]
    assert changed == ["hive-train: resuming with changed settings: eval.every: 1 -> 2; "
                       "train.keep_checkpoints: 20 -> 5"]
    (record,) = (run_dir / "resumes.log").read_text().splitlines()
    assert record.endswith("eval.every: 1 -> 2; train.keep_checkpoints: 20 -> 5")
    assert "every: 2" in (run_dir / "config.yaml").read_text()
    assert ledger(run_dir) == evaluations  # nothing evaluated again


def test_resume_changes_names_refused_and_allowed_settings():
    saved = {"env": {"game_type": "Base", "ply_cap": 60}, "train": {"steps": 20}, "run_dir": "a",
             "model": {"size": "tiny", "width": None, "layers": None}}
    new = {"env": {"game_type": "Base+M", "ply_cap": 60}, "train": {"steps": 40}, "run_dir": "b",
           "model": {"size": "small", "width": 32, "layers": 2}}
    refused, allowed = resume_changes(saved, new)
    assert refused == ["env.game_type: Base -> Base+M"]  # small at 32x2 is the tiny network
    assert allowed == ["model.layers: None -> 2", "model.size: tiny -> small", "model.width: None -> 32",
                       "train.steps: 20 -> 40"]
    small = {**saved, "model": {"size": "small", "width": None, "layers": None}}
    assert resume_changes(saved, small)[0] == ["model.size: tiny -> small"]


# ----- signals -------------------------------------------------------------------------------------------


def train_steps_logged(run_dir: Path) -> set[int]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    steps = set()
    for events in (run_dir / "tb").glob("events.out.tfevents.*"):
        acc = EventAccumulator(str(events))
        acc.Reload()
        if "train/total" in acc.Tags()["scalars"]:
            steps |= {e.step for e in acc.Scalars("train/total")}
    return steps


@pytest.mark.parametrize("signum,code", [pytest.param(signal.SIGINT, 130, marks=pytest.mark.slow),
                                         (signal.SIGTERM, 143)])  # one in the default suite (its time)
def test_a_signal_stops_cleanly_and_the_run_resumes(tmp_path, signum, code):
    run_dir = tmp_path / "run"
    overrides = ("selfplay.workers=1", "eval.games=2", "eval.sims=2", "eval.final_games=2")
    proc = hive_train(run_dir, *overrides)
    ckpt = run_dir / "checkpoints" / "ckpt_00000010.pt"
    assert wait_for(proc, ckpt.exists, poll=0.1), finish(proc)[-3000:]
    os.killpg(proc.pid, signum)  # as a terminal's Ctrl-C: the trainer and its worker
    out = finish(proc, 120)
    assert proc.returncode == code, out[-3000:]
    assert "Traceback" not in out
    (line,) = [line for line in out.splitlines() if "interrupted" in line]
    assert line.startswith("hive-train: interrupted at step ")
    assert line.endswith("; rerun the same command to resume")
    step = int(line.split("at step ")[1].split(";")[0])
    assert step >= 10
    logged = train_steps_logged(run_dir)  # TensorBoard was flushed
    assert set(range(1, step)) <= logged and max(logged) >= step - 1
    proc = hive_train(run_dir, *overrides)
    out = finish(proc)
    assert proc.returncode == 0, out[-3000:]
    assert "resumed from checkpoint step" in out and "Traceback" not in out
    assert load_model(run_dir / "checkpoints" / "final.pt")[1]["step"] == 20
    assert evaluations_lost(run_dir, 20, 10, 2) == []


class SignalledInFinalizer:
    """An object whose finalizer receives SIGTERM: Python drops the exception its handler raises."""

    def __del__(self):
        os.kill(os.getpid(), signal.SIGTERM)
        for _ in range(1000):  # the handler runs between bytecodes, here
            pass


def test_a_signal_lost_in_a_finalizer_still_stops_the_run(monkeypatch):
    reported = []
    monkeypatch.setattr(sys, "unraisablehook", reported.append)  # Python's report of what it drops
    monkeypatch.setattr(training.run, "_signalled", [])
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        stop_on_signals()
        training.run.raise_if_signalled()  # nothing caught yet: nothing raised
        obj = SignalledInFinalizer()
        del obj  # the Stopped raised inside __del__ is lost...
        with pytest.raises(Stopped) as e:  # ...and raised again where the loop checks
            training.run.raise_if_signalled()
        assert e.value.exit_code == 143
        assert reported == []  # the lost one printed no traceback
        sys.unraisablehook(types.SimpleNamespace(exc_value=ValueError()))
        assert len(reported) == 1  # other lost exceptions are reported as before
    finally:
        for s, h in handlers.items():
            signal.signal(s, h)


# ----- RNG states in checkpoints --------------------------------------------------------------------------


def run_cfg(run_dir: Path):
    register_configs()
    with initialize_config_dir(config_dir=CONFIGS, version_base=None):
        return run_config(compose(config_name="train", overrides=["experiment=smoke", f"run_dir={run_dir}",
                                                                  "selfplay.workers=0"]))


def draws(run: Run) -> tuple:
    return np.random.random(), random.random(), float(torch.rand(1)), run.rng.random()


def test_a_resumed_run_continues_every_random_stream(tmp_path):
    cfg = run_cfg(tmp_path / "run")
    first = Run(cfg, {"seed": 0}, log=lambda *_: None)
    draws(first)  # move every stream away from its seed
    np.random.standard_normal()  # numpy's cached Gaussian is part of its state
    path = first.publish()
    state = torch.load(path, weights_only=True)  # plain data and tensors only
    assert set(state["rng"]) == {"python", "numpy", "torch", "generator"}
    expected = [draws(first) for _ in range(3)]
    second = Run(cfg, {"seed": 0}, log=lambda *_: None)  # a fresh process resuming the checkpoint
    assert second.resumed_from == 0
    assert [draws(second) for _ in range(3)] == expected
    first.metrics.close()
    second.metrics.close()


# ----- random kills (slow) ----------------------------------------------------------------------------


@pytest.mark.slow
def test_random_kills_lose_no_evaluation(tmp_path):
    """SIGKILL at random moments of runs with evaluations, then rerun to the end: every run
    ends at its step count with every due evaluation finished. Prints the figures."""
    rng = random.Random(2024)
    tries, survived, lost, in_evaluation = 12, 0, 0, 0
    overrides = (*QUICK, "train.steps=30")
    for trial in range(tries):
        run_dir = tmp_path / f"trial{trial}"
        proc = hive_train(run_dir, *overrides)
        wait_for(proc, lambda: False, timeout=rng.uniform(2.0, 25.0), poll=0.05)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        in_evaluation += any(e["state"] in ("due", "started") for e in ledger(run_dir))
        proc = hive_train(run_dir, *overrides)
        out = finish(proc)
        missing = evaluations_lost(run_dir, 30, 10, 4)
        lost += len(missing)
        final = run_dir / "checkpoints" / "final.pt"
        ok = (proc.returncode == 0 and final.exists() and load_model(final)[1]["step"] == 30
              and load_model(run_dir / "checkpoints" / "ckpt_00000030.pt")[1]["trainer"]["train_step"] == 30)
        survived += ok and not missing
        if not ok:
            print(out[-2000:])
    print(f"\nrandom kills: tries {tries} ({in_evaluation} during an evaluation), survived {survived}, "
          f"evaluations lost {lost}")
    assert survived == tries and lost == 0
