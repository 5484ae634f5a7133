"""Sweeps (training.sweep): the jobs and arms of a command, sweep.json shared by the jobs, one
core a job."""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys

from training import sweep
from training.sweep import arm_labels, dirname, expand, plan, read_sweep, set_status, start_sweep, summary

from helpers import ROOT


def test_a_command_expands_into_hydras_jobs_and_their_arms():
    jobs = expand(["experiment=cpu", "search=puct,gumbel16", "seed=1,2"])
    assert jobs == [["experiment=cpu", "search=puct", "seed=1"], ["experiment=cpu", "search=puct", "seed=2"],
                    ["experiment=cpu", "search=gumbel16", "seed=1"],
                    ["experiment=cpu", "search=gumbel16", "seed=2"]]
    assert arm_labels(jobs) == ["search=puct", "search=puct", "search=gumbel16", "search=gumbel16"]
    one_arm = expand(["experiment=cpu", "train.max_minutes=30", "seed=1,2,3"])
    assert set(arm_labels(one_arm)) == {"experiment=cpu train.max_minutes=30"}
    assert dirname(["seed=2", "experiment=cpu"]) == "experiment=cpu+seed=2"  # no comma: specs split there


def test_a_second_sweep_in_the_directory_adds_its_jobs_and_keeps_the_statuses(tmp_path):
    first = start_sweep(tmp_path, ["experiment=smoke", "search=puct,gumbel16", "seed=1,2"])
    assert [j["status"] for j in first["jobs"]] == ["planned"] * 4
    assert set_status(tmp_path, ["experiment=smoke", "search=puct", "seed=1"], "done") == 0
    set_status(tmp_path, ["experiment=smoke", "search=gumbel16", "seed=2"], "failed", "error: boom")
    data = start_sweep(tmp_path, ["experiment=smoke", "selfplay.proven_targets=true", "seed=1,2"])
    proven = ["experiment=smoke", "selfplay.proven_targets=True", "seed=2"]
    assert set_status(tmp_path, proven, "running") == 5  # its number in the study, not in its command
    assert data["arms"] == ["search=puct", "search=gumbel16", "selfplay.proven_targets=True"]
    assert [(j["arm"], j["seed"], j["status"]) for j in data["jobs"]] == [
        ("search=puct", 1, "done"), ("search=puct", 2, "planned"), ("search=gumbel16", 1, "planned"),
        ("search=gumbel16", 2, "failed"), ("selfplay.proven_targets=True", 1, "planned"),
        ("selfplay.proven_targets=True", 2, "planned")]
    line, done = summary(tmp_path)
    assert not done
    assert "6 jobs: 3 planned, 1 running, 1 done, 1 failed" in line and "error: boom" in line
    assert f"hive-arena compare {tmp_path}" in line


def _mark(args) -> None:
    path, i = args
    set_status(path, [f"seed={i}"], "running")
    set_status(path, [f"seed={i}"], "done")


def test_jobs_writing_at_once_lose_no_status(tmp_path):
    start_sweep(tmp_path, ["seed=" + ",".join(map(str, range(12)))])
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        pool.map(_mark, [(tmp_path, i) for i in range(12)])
    data = read_sweep(tmp_path)
    assert [j["status"] for j in data["jobs"]] == ["done"] * 12
    assert plan(expand(["seed=0,1"]), data)["jobs"][0]["status"] == "done"


LEASE = """
import sys, time
from training.sweep import lease_core
core = lease_core(sys.argv[1])
print(core, flush=True)
time.sleep(float(sys.argv[2]))
"""


def test_each_job_leases_a_core_of_its_own_and_gives_it_back_when_it_ends(tmp_path):
    cores = sorted(os.sched_getaffinity(0))
    cmd = [sys.executable, "-c", LEASE, str(tmp_path)]
    holders = [subprocess.Popen([*cmd, "30"], cwd=ROOT, stdout=subprocess.PIPE, text=True) for _ in cores]
    try:
        taken = sorted(int(p.stdout.readline()) for p in holders)
        assert taken == cores  # one core each, all different
        extra = subprocess.run([*cmd, "0"], cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert extra.stdout.strip() == "None"  # every core taken: unpinned
    finally:
        for p in holders:
            p.kill()
            p.wait()
    again = subprocess.run([*cmd, "0"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert int(again.stdout) == cores[0]  # the kernel released the dead holders' locks


def test_a_process_holds_one_lease_at_a_time(tmp_path):
    before = os.sched_getaffinity(0)
    try:
        first = sweep.lease_core(tmp_path)
        second = sweep.lease_core(tmp_path)  # the next job in the same worker process
        assert first == second == min(before)
        assert os.sched_getaffinity(0) == {first}
    finally:
        sweep.release_core()
        os.sched_setaffinity(0, before)
    assert json.dumps(sorted(before))  # the test's affinity restored for the rest of the session
