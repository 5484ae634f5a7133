"""``hive-train``: AlphaZero-style self-play training (Hydra config in configs/).

    hive-train experiment=smoke              # a few minutes on a CPU
    hive-train experiment=cpu                # at most an hour on 2 cores: beats random and greedy
    hive-train experiment=gpu name=run1      # one GPU
    hive-train experiment=cpu model.width=64 seed=3
    hive-train -m experiment=ablation search=puct,gumbel16 seed=1,2,3   # a sweep: one job a core

Under ``-m`` (a sweep, training.sweep) every job gets its own run directory in
``sweeps/<name>/`` and a core of its own; the sweep ends with a summary line, and rerunning it
resumes every job.

Rerunning the same command resumes the run in ``runs/<name>`` (settings that change the
network are refused, others recorded in ``resumes.log``). Ctrl-C (exit 130) and SIGTERM
(exit 143) stop it cleanly with one line. A start-up error (an unknown key or option, a bad
value) is one line with exit 2, before anything is created; ``--help`` lists every setting. A
full disk (or the file size limit) is one line naming the file, exit 74 (training.faults):
nothing the run reads back is half written, and the same command resumes once there is room.
A self-play worker that dies is restarted (one line each); one that dies again and again before
writing a shard stops the run with one line naming it and its last error, exit 70.
Progress goes to stdout and ``<run_dir>/train.log`` (Hydra's job logging, configs/train.yaml):
a bar on a terminal (log lines printed above it), plain periodic lines otherwise.
The job itself is :func:`training.loop.train`; this is its command line and its words.
"""

from __future__ import annotations

import logging
import os
import re
import signal
import socket
import sys

# Until main() takes over, a signal ends the start-up quietly (nothing is written yet).
for _s in (signal.SIGINT, signal.SIGTERM):
    signal.signal(_s, lambda n, f: sys.exit(128 + n))

from pathlib import Path  # noqa: E402
from typing import TYPE_CHECKING  # noqa: E402

import hydra  # noqa: E402
from omegaconf import DictConfig  # noqa: E402

from hive_env.files import is_disk_full  # noqa: E402
from training.config import ConfigError, register_configs  # noqa: E402
from training.faults import (  # noqa: E402
    CLUSTER_LOST_EXIT,
    DISK_FULL_EXIT,
    SELFPLAY_FAILED_EXIT,
    ClusterError,
    SelfPlayError,
    disk_full_line,
    stop_on_log_write_errors,
)
from training.loop import CONFIGS  # noqa: E402

if TYPE_CHECKING:
    from arena.report import ArenaReport

register_configs()  # the defaults of every setting, first in configs/train.yaml's defaults list

STRENGTH_STEPS = 1000
"""Training steps below which the final match is reported as a pipeline check, not a strength
measurement (the ``cpu`` preset, which learns to beat random and greedy, trains far more)."""


def is_short_run(name: str, steps: int) -> bool:
    """Whether a run is too short for its final match to say anything about strength: the smoke
    preset, or fewer than :data:`STRENGTH_STEPS` training steps."""
    return name == "smoke" or steps < STRENGTH_STEPS


def final_match_lines(report: ArenaReport, name: str, steps: int, final: Path) -> list[str]:
    """What hive-train prints of the final match: the arena's tables (players by their short
    names, ``az@final``), the score against each opponent, and for a short run (:func:`is_short_run`)
    a note that it checks the pipeline, not strength, and where strength is measured."""
    from arena.report import format_report

    lines = [format_report(report)]
    for _, j, stats in report.pairings:
        lines.append(f"final score vs {report.names[j]}: {stats.score:.3f} over {stats.games} games "
                     f"({_count(stats.wins, 'win')}, {_count(stats.draws, 'draw')}, "
                     f"{_count(stats.losses, 'loss')})")
    if is_short_run(name, steps):
        what = "the smoke preset" if name == "smoke" else "a short run"
        lines.append(f"note: this is {what} ({steps} training steps): "
                     "it checks that the pipeline runs\n"
                     "      end to end, not playing strength. For strength: "
                     "hive-train experiment=cpu (beats\n"
                     f"      random and greedy), then hive-arena ladder \"alphazero:ckpt={final},sims=32\"")
    return lines


def _count(n: int, word: str) -> str:
    """``"1 loss"``, ``"0 wins"``, ``"2 draws"``."""
    if n == 1:
        return f"1 {word}"
    return f"{n} {word}es" if word.endswith("s") else f"{n} {word}s"


def main() -> None:
    """hive-train: ``--help``, and every start-up check before Hydra creates the run directory
    (a bad flag, override or setting: one line, exit 2, nothing written); then the run."""
    from search.checkpoint import CheckpointError
    from training.loop import check_command_line

    try:
        text = check_command_line(sys.argv[1:])
    except (ConfigError, CheckpointError) as e:
        print(f"hive-train: error: {e}", file=sys.stderr)
        sys.exit(2)
    if text is not None:
        print(text)
        return
    # Hydra raises what fails before the job (its own report is a traceback): a full disk while it
    # writes its files is one line, as in the job (run)
    os.environ.setdefault("HYDRA_FULL_ERROR", "1")
    try:
        run()
    except OSError as e:
        stop_on_disk_full(e)
        raise
    except RuntimeError as e:
        stop_on_killed_job(e)
        raise
    from training import sweep

    if sweep.LAST_SWEEP is not None:  # hive-train -m: how the jobs ended
        line, all_done = sweep.summary(sweep.LAST_SWEEP)
        print(f"hive-train: {line}", file=sys.stdout if all_done else sys.stderr)
        if not all_done:
            sys.exit(1)


@hydra.main(config_path=str(CONFIGS), config_name="train", version_base=None)
def run(cfg: DictConfig) -> None:
    """The run, under Hydra (its run directory, job logging and ``--cfg``-like flags); under
    ``-m``, one job of a sweep (:func:`sweep_job`)."""
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode

    from search.checkpoint import CheckpointError
    from training.run import Stopped, stop_on_signals

    stop_on_signals()
    stop_on_log_write_errors()  # train.log on a full disk: the run stops with one line, as for any file
    log = logging.getLogger("hive-train").info  # console (plain) and train.log (timed)
    hc = HydraConfig.get()
    if hc.mode == RunMode.MULTIRUN:
        sweep_job(cfg, log)
        return
    try:
        train_job(cfg, list(hc.overrides.task), log)
    except (ConfigError, CheckpointError) as e:  # a bad setting; a crafted checkpoint in the run directory
        print(f"hive-train: error: {e}", file=sys.stderr)
        sys.exit(2)
    except Stopped as e:
        at = f"at step {e.step}" if e.step is not None else "during start-up"
        print(f"hive-train: interrupted {at}; rerun the same command to resume", file=sys.stderr)
        sys.exit(e.exit_code)
    except SelfPlayError as e:  # a self-play worker that keeps failing at its start
        print(f"hive-train: {e}", file=sys.stderr)
        sys.exit(SELFPLAY_FAILED_EXIT)
    except ClusterError as e:  # the Ray cluster lost an evaluation's game again and again
        print(f"hive-train: {e}", file=sys.stderr)
        sys.exit(CLUSTER_LOST_EXIT)
    except OSError as e:
        stop_on_disk_full(e)
        raise


def stop_on_killed_job(e: RuntimeError) -> None:
    """A sweep job's process killed from outside (joblib's ``TerminatedWorkerError``: the OOM
    killer, a ``kill``): one line with the sweep's state and how to resume, exit 1; any other
    error returns (the caller raises it)."""
    from joblib.externals.loky.process_executor import TerminatedWorkerError

    from training import sweep

    if not isinstance(e, TerminatedWorkerError):
        return
    codes = re.search(r"exit codes of the workers are (\{[^}]*\})", str(e))
    why = f"exit codes {codes.group(1)}" if codes else type(e).__name__
    jobs = f" ({sweep.summary(sweep.LAST_SWEEP)[0].split('; compare:')[0]})" if sweep.LAST_SWEEP else ""
    print(f"hive-train: a sweep job's process was killed from outside ({why}); rerun the same command to "
          f"resume{jobs}", file=sys.stderr)
    sys.exit(1)


def stop_on_disk_full(e: OSError) -> None:
    """A full disk (or the file size limit): one line naming the file, exit 74
    (training.faults); any other error returns (the caller raises it)."""
    if is_disk_full(e):
        print(f"hive-train: {disk_full_line(e)}", file=sys.stderr)
        sys.exit(DISK_FULL_EXIT)


def train_job(cfg: DictConfig, overrides: list[str], log) -> None:
    """Train (or resume) the run of ``cfg``, a fine-tune taking its parent's size where the
    command line's ``overrides`` leave it unset, and log the words on its final match. Raises
    what :func:`training.loop.train` raises."""
    from training.lineage import adopt_parent_size
    from training.loop import train

    if adopted := adopt_parent_size(cfg, overrides):
        log(adopted)
    result = train(cfg, log=log)
    for line in final_match_lines(result.report, result.name, result.steps, result.final):
        log(line)


def sweep_job(cfg: DictConfig, log) -> None:
    """One job of ``hive-train -m`` (training.sweep): its run directory is the one Hydra made for
    it, it runs on a core of its own, and its status goes to ``sweep.json``. A failure is one line
    and ``failed`` there (the sweep's other jobs go on; ``main`` sums up), never an exit."""
    import multiprocessing

    from hydra.core.hydra_config import HydraConfig
    from omegaconf import open_dict

    from search.checkpoint import CheckpointError
    from training import sweep
    from training.run import Stopped
    from training.worker import limit_threads

    # joblib's loky workers make 'loky' the default start method, which the self-play workers'
    # spawned children cannot find: back to Python's default
    multiprocessing.set_start_method(None, force=True)
    hc = HydraConfig.get()
    task = list(hc.overrides.task)
    sweep_dir, out = Path(hc.sweep.dir), Path(hc.runtime.output_dir)
    with open_dict(cfg):
        cfg.run_dir = str(out)
    shared = sweep.shares_machine(str(hc.launcher.get("_target_", "")))
    if shared:  # the joblib launcher: the jobs side by side on this machine, a core each
        core = sweep.lease_core(sweep_dir)
        limit_threads(1)
        where = f"pinned to core {core}" if core is not None else "warning: more jobs than cores, not pinned"
    else:  # a job of its own (submitit: a Slurm job on its node), every core it was given
        where = f"on {socket.gethostname()}, {len(os.sched_getaffinity(0))} core(s)"
    number = sweep.set_status(sweep_dir, task, "running", run_dir=os.path.relpath(out, sweep_dir))
    log(f"sweep job {number}: {' '.join(task)}; {where}")
    error = None
    try:
        train_job(cfg, task, log)
    except (ConfigError, CheckpointError, SelfPlayError, ClusterError) as e:
        error = f"error: {e}"
    except Stopped as e:
        error = f"interrupted at step {e.step}" if e.step is not None else "interrupted during start-up"
    except Exception as e:  # a crash of this job must not end the others: recorded, the sweep goes on
        if is_disk_full(e):
            error = f"error: {disk_full_line(e)}"
        else:
            logging.getLogger("hive-train").exception("sweep job failed")
            error = f"error: {type(e).__name__}: {e}"
    finally:
        sweep.release_core()
    if error is not None:
        print(f"hive-train: {out.name}: {error}", file=sys.stderr)
    sweep.set_status(sweep_dir, task, "failed" if error else "done", error)


if __name__ == "__main__":
    main()
