"""hive-train -m as a researcher runs it: a sweep's jobs side by side, one directory and one core
each, sweep.json naming the arms, each run ending with its ladder; a killed job resumed by
running the sweep again; a bad sweep refused in one line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from models import shipped
from search.checkpoint import read_checkpoint

from helpers import ROOT, wait_for


def sweep_cmd(sweep, *overrides: str) -> list[str]:
    return [sys.executable, "-m", "scripts.train", "-m", "experiment=smoke", *overrides,
            f"hydra.sweep.dir={sweep}"]


def test_a_sweep_runs_its_jobs_side_by_side_and_ends_with_their_ladders(tmp_path):
    sweep = tmp_path / "sweep"
    cmd = sweep_cmd(sweep, "train.init_from=shipped", "eval.final_ladder=2", "eval.final_ladder_depths=[1]",
                    "seed=1,2")
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, (out.stdout + out.stderr)[-3000:]
    assert f"sweep {sweep}: 2 jobs: 2 done; compare: hive-arena compare {sweep}" in out.stdout
    data = json.loads((sweep / "sweep.json").read_text())
    assert [(j["seed"], j["status"]) for j in data["jobs"]] == [(1, "done"), (2, "done")]
    assert len(data["arms"]) == 1 and {j["arm"] for j in data["jobs"]} == set(data["arms"])
    width = read_checkpoint(shipped.CHECKPOINT)["model_config"]["width"]
    for job in data["jobs"]:
        run_dir = sweep / job["run_dir"]
        assert f"seed={job['seed']}" in run_dir.name
        final = read_checkpoint(run_dir / "checkpoints" / "final.pt")
        assert final["model_config"]["width"] == width  # the parent's, adopted
        assert f"seed: {job['seed']}" in (run_dir / "config.yaml").read_text()
        ladder = json.loads((run_dir / "ladder" / "ladder.json").read_text())
        assert set(ladder["scores"]) == {"random", "greedy", "alphabeta:depth=1"}
        assert str(run_dir / "checkpoints" / "final.pt") in ladder["player"]
    if len(os.sched_getaffinity(0)) >= 2:  # one core each, at the same time
        cores = {line.rsplit(" ", 1)[1] for line in out.stdout.splitlines() if "; pinned to core" in line}
        assert len(cores) == 2, out.stdout[-3000:]


def test_a_bad_sweep_is_refused_in_one_line_before_anything_runs(tmp_path):
    sweep = tmp_path / "sweep"
    for overrides, message in [(["seed=1,2", "trian.lr=0.1"], "unknown setting trian.lr"),
                               (["seed=1,2", f"run_dir={tmp_path}"], "run_dir is set per job in a sweep"),
                               (["train.lr=0.1,-1"], "sweep job experiment=smoke train.lr=-1")]:
        cmd = sweep_cmd(sweep, *overrides)
        out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert out.returncode == 2, out.stderr
        assert message in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert not sweep.exists()


@pytest.mark.slow
def test_a_job_killed_in_a_sweep_resumes_when_the_sweep_is_run_again(tmp_path):
    sweep = tmp_path / "sweep"
    cmd = sweep_cmd(sweep, "train.steps=60", "train.checkpoint_every=10", "eval.every=0",
                    "eval.final_games=2", "seed=1,2")
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    victim = {}

    def a_job_has_a_checkpoint() -> bool:
        data = json.loads((sweep / "sweep.json").read_text()) if (sweep / "sweep.json").is_file() else {}
        for job in data.get("jobs", []):
            ckpt = sweep / job["run_dir"] / "checkpoints" / "ckpt_00000010.pt"
            if job["status"] == "running" and ckpt.exists():
                victim.update(job)
                return True
        return False

    try:
        assert wait_for(proc, a_job_has_a_checkpoint, timeout=400, poll=0.2), proc.communicate()[0][-3000:]
        os.kill(victim["pid"], signal.SIGKILL)  # the job's process, mid-run
        out, _ = proc.communicate(timeout=600)
        assert proc.returncode == 1 and "Traceback" not in out, out[-3000:]
        # one line of ours: what happened and how to go on (multiprocessing's resource tracker may
        # still warn of leaked semaphores after it, from its own process)
        ours = "hive-train: a sweep job's process was killed"
        (line,) = [x for x in out.splitlines() if x.startswith(ours)]
        assert "; rerun the same command to resume (" in line and line.endswith(")"), line
        assert f"(sweep {sweep}: 2 jobs: " in line, line
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    time.sleep(1)
    again = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, (again.stdout + again.stderr)[-3000:]
    data = json.loads((sweep / "sweep.json").read_text())
    assert [j["status"] for j in data["jobs"]] == ["done", "done"]
    log = (sweep / victim["run_dir"] / "train.log").read_text()
    assert "resumed from checkpoint step" in log
    assert read_checkpoint(sweep / victim["run_dir"] / "checkpoints" / "final.pt")["step"] == 60


@pytest.mark.slow
def test_a_sweep_through_the_submitit_launcher_runs_its_jobs_each_on_its_own(tmp_path):
    """``hydra/launcher=slurm`` (configs/hydra/launcher/slurm.yaml) submits each job to Slurm
    through Hydra's submitit launcher; ``submitit_local`` is the same launcher with local processes
    for executors: each job runs in a process of its own, unpinned (it has its node), and the
    sweep's record and summary are as with the local launcher."""
    pytest.importorskip("hydra_plugins.hydra_submitit_launcher")
    sweep = tmp_path / "sweep"
    cmd = sweep_cmd(sweep, "hydra/launcher=submitit_local", "train.steps=10", "eval.every=0",
                    "eval.final_games=2", "eval.final_sims=2", "seed=1,2")
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, (out.stdout + out.stderr)[-3000:]
    assert f"sweep {sweep}: 2 jobs: 2 done; compare: hive-arena compare {sweep}" in out.stdout
    data = json.loads((sweep / "sweep.json").read_text())
    assert [(j["seed"], j["status"]) for j in data["jobs"]] == [(1, "done"), (2, "done")]
    for job in data["jobs"]:
        run_dir = sweep / job["run_dir"]
        assert read_checkpoint(run_dir / "checkpoints" / "final.pt")["step"] == 10
        log = (run_dir / "train.log").read_text()
        assert "core(s)" in log and "pinned to core" not in log  # its own process, every core it has
    assert (sweep / ".submitit").is_dir()  # submitit's own folder: each job's stdout and stderr


def test_the_slurm_launcher_config_composes_with_its_documented_settings():
    pytest.importorskip("hydra_plugins.hydra_submitit_launcher")
    out = subprocess.run([sys.executable, "-m", "scripts.train", "hydra/launcher=slurm",
                          "hydra.launcher.partition=gpu", "--cfg", "hydra", "-p", "hydra.launcher"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "SlurmLauncher" in out.stdout and "partition: gpu" in out.stdout
    assert "gpus_per_node: 1" in out.stdout and "timeout_min: 240" in out.stdout

