"""Sweeps: ``hive-train -m`` over seeds and arms, the jobs side by side on the local cores.

Hydra's multirun expands the command into jobs and hands them to its joblib launcher; this
module is what the sweep adds around it: one directory a job (named by its overrides, so
rerunning resumes every job), one core a job (:func:`lease_core`), and ``sweep.json`` (every
job's overrides, arm, seed, run directory and status, rewritten atomically under a lock), which
``hive-arena compare SWEEP_DIR`` reads. A job's failure is one line and ``failed``; the rest go on.

See docs/training.md (sweeps: seeds and arms side by side).
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
from collections.abc import Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hydra.experimental.callback import Callback
from omegaconf import DictConfig

from hive_env.files import write_atomic
from hive_zero.run_layout import SWEEP_FILE

STATUSES = ("planned", "running", "done", "failed")
SEED_KEY = "seed"


# ----- the plan: jobs and arms -------------------------------------------------------------------
def expand(overrides: Sequence[str]) -> list[list[str]]:
    """The jobs of a multirun command line (``overrides`` as typed, ``seed=1,2``), in Hydra's
    order: its basic sweeper's expansion (every combination of the swept values)."""
    from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
    from hydra.core.override_parser.overrides_parser import OverridesParser

    parsed = OverridesParser.create().parse_overrides(list(overrides))
    batches = BasicSweeper.split_arguments(parsed, None)
    return [list(job) for batch in batches for job in batch]


def dirname(overrides: Sequence[str]) -> str:
    """A job's subdirectory: its overrides sorted and joined by ``+`` (Hydra's
    ``hydra.job.override_dirname`` as configs/train.yaml sets it: a comma would break the player
    specs that name checkpoints in the directory)."""
    return "+".join(sorted(overrides))


def key_of(override: str) -> str:
    return override.split("=", 1)[0].lstrip("+~")


def seed_of(overrides: Sequence[str]) -> int | None:
    for o in overrides:
        if key_of(o) == SEED_KEY:
            try:
                return int(o.split("=", 1)[1])
            except ValueError:
                return None
    return None


def arm_labels(jobs: Sequence[Sequence[str]]) -> list[str]:
    """Each job's arm: its overrides without ``seed``, less the overrides every job has; when
    nothing is left (one arm), all of them (``experiment=cpu train.max_minutes=30``)."""
    arms = [[o for o in job if key_of(o) != SEED_KEY] for job in jobs]
    common = set.intersection(*(set(a) for a in arms)) if arms else set()
    labels = []
    for arm in arms:
        rest = [o for o in arm if o not in common]
        labels.append(" ".join(rest or arm) or "default")
    return labels


def plan(jobs: Sequence[Sequence[str]], old: dict[str, Any] | None = None) -> dict[str, Any]:
    """The contents of ``sweep.json`` for ``jobs`` (each a list of overrides) after ``old`` (the
    file of earlier sweeps in the directory): its jobs first, with their status and error, then
    the new ones. One directory is one study: a second sweep there (another arm, more seeds)
    adds its jobs, and the arms are named over all of them."""
    known = {tuple(j["overrides"]): j for j in (old or {}).get("jobs", [])}
    jobs = [*(list(k) for k in known), *(list(j) for j in jobs if tuple(j) not in known)]
    labels = arm_labels(jobs)
    entries = []
    for i, (job, arm) in enumerate(zip(jobs, labels, strict=True)):
        before = known.get(tuple(job), {})
        entries.append({"job": i, "overrides": list(job), "arm": arm, "seed": seed_of(job),
                        "run_dir": before.get("run_dir", dirname(job)),
                        "status": before.get("status", "planned"), "error": before.get("error"),
                        "pid": before.get("pid")})
    arms = list(dict.fromkeys(labels))
    return {"arms": arms, "jobs": entries}


# ----- sweep.json, shared by the jobs -------------------------------------------------------------
@contextmanager
def _locked(sweep_dir: Path):
    """An exclusive lock on the sweep's record (one writer at a time across processes)."""
    sweep_dir.mkdir(parents=True, exist_ok=True)
    with open(sweep_dir / f".{SWEEP_FILE}.lock", "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        yield


def read_sweep(sweep_dir: Path) -> dict[str, Any] | None:
    """``sweep.json`` of ``sweep_dir``; None when there is none or it cannot be read."""
    try:
        data = json.loads((Path(sweep_dir) / SWEEP_FILE).read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _write(sweep_dir: Path, data: dict[str, Any]) -> None:
    write_atomic(sweep_dir / SWEEP_FILE, json.dumps(data, indent=1) + "\n")


def start_sweep(sweep_dir: Path, overrides: Sequence[str], command: str = "") -> dict[str, Any]:
    """Write (or, for a rerun of the sweep, bring up to date) ``sweep.json`` before the jobs start."""
    sweep_dir = Path(sweep_dir)
    with _locked(sweep_dir):
        data = plan(expand(overrides), read_sweep(sweep_dir))
        data = {"sweep_dir": str(sweep_dir), "command": command, **data}
        _write(sweep_dir, data)
    return data


def set_status(sweep_dir: Path, overrides: Sequence[str], status: str, error: str | None = None,
               run_dir: str | None = None) -> int:
    """Record a job's ``status`` (and ``error``, and its real ``run_dir`` relative to the sweep
    directory) in ``sweep.json``; a job the file does not list is added. Returns the job's
    number in the study (``job``: over every sweep of the directory, not Hydra's per command)."""
    assert status in STATUSES
    sweep_dir = Path(sweep_dir)
    with _locked(sweep_dir):
        data = read_sweep(sweep_dir) or {"sweep_dir": str(sweep_dir), "arms": [], "jobs": []}
        jobs = data["jobs"]
        entry = next((j for j in jobs if j["overrides"] == list(overrides)), None)
        if entry is None:
            jobs.append({"job": len(jobs), "overrides": list(overrides), "seed": seed_of(overrides),
                         "run_dir": dirname(overrides)})
            entry = jobs[-1]
            for j, label in zip(jobs, arm_labels([j["overrides"] for j in jobs]), strict=True):
                j["arm"] = label
            data["arms"] = list(dict.fromkeys(j["arm"] for j in jobs))
        entry["status"], entry["error"] = status, error
        entry["pid"] = os.getpid() if status == "running" else None
        if run_dir is not None:
            entry["run_dir"] = run_dir
        _write(sweep_dir, data)
    return int(entry["job"])


def summary(sweep_dir: Path) -> tuple[str, bool]:
    """One line on the sweep's jobs (``sweep sweeps/cpu: 6 jobs: 5 done, 1 failed (...)``) and
    whether every job is done."""
    data = read_sweep(sweep_dir)
    if data is None:
        return f"sweep {sweep_dir}: no {SWEEP_FILE}", False
    jobs = data["jobs"]
    counts = [f"{sum(j['status'] == s for j in jobs)} {s}" for s in STATUSES
              if any(j["status"] == s for j in jobs)]
    failed = [f"{j['run_dir']}: {j.get('error') or 'failed'}" for j in jobs if j["status"] == "failed"]
    line = f"sweep {sweep_dir}: {len(jobs)} jobs: {', '.join(counts)}"
    if failed:
        line += " (" + "; ".join(failed) + "); rerun the same command to resume"
    line += f"; compare: hive-arena compare {sweep_dir}"
    return line, all(j["status"] == "done" for j in jobs)


# ----- Hydra's side -------------------------------------------------------------------------------
LAST_SWEEP: Path | None = None
"""The sweep directory of this process's last multirun (what ``hive-train -m`` sums up at its end)."""


class SweepRecord(Callback):
    """Hydra callback (``configs/train.yaml``, ``hydra.callbacks``): ``sweep.json`` written before a
    multirun's jobs start (:func:`start_sweep`); single runs are left alone."""

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        global LAST_SWEEP
        LAST_SWEEP = Path(config.hydra.sweep.dir)
        overrides = list(config.hydra.overrides.task)
        start_sweep(LAST_SWEEP, overrides, command="hive-train -m " + " ".join(overrides))


# ----- one core a job ----------------------------------------------------------------------------
_CORES: set[int] | None = None  # the cores this process could use before any job pinned it
_LEASE = None  # the open lock file of the core this process holds


def shares_machine(launcher: str) -> bool:
    """Whether a sweep's jobs run side by side on this machine (Hydra's joblib launcher, the
    default: each job leases a core, :func:`lease_core`), given the launcher's ``_target_``; a
    submitit launcher's job (``hydra/launcher=slurm``: a Slurm job, or ``submitit_local``) has its
    own node or process and uses every core it was given."""
    return "submitit" not in launcher


def lease_core(sweep_dir: Path) -> int | None:
    """Take the first free core and pin this process (and so its children) there
    (``os.sched_setaffinity``); None (unpinned: the job's log line warns) when every core is
    taken. A core is taken by a lock file a core and machine in ``<sweep dir>/.cores``, held for
    the job's life and released by the kernel if the job dies. A process holds one lease at a
    time (a new job's call first gives back the previous job's)."""
    global _CORES, _LEASE
    if _CORES is None:
        _CORES = set(os.sched_getaffinity(0))
    release_core()
    locks = Path(sweep_dir) / ".cores"
    locks.mkdir(parents=True, exist_ok=True)
    for core in sorted(_CORES):
        f = open(locks / f"{socket.gethostname()}-cpu{core}.lock", "w")  # noqa: SIM115 (held for the job's life)
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            f.close()
            continue
        _LEASE = f
        os.sched_setaffinity(0, {core})
        return core
    os.sched_setaffinity(0, _CORES)
    return None


def release_core() -> None:
    """Give back this process's core lease, if any."""
    global _LEASE
    if _LEASE is not None:
        _LEASE.close()
        _LEASE = None


__all__ = ["SWEEP_FILE", "SweepRecord", "arm_labels", "dirname", "expand", "lease_core", "plan", "read_sweep",
           "release_core", "set_status", "start_sweep", "summary"]
