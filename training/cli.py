"""``hive-train``'s command line: the checks before Hydra starts, the Hydra job (one run, or one
job of a ``-m`` sweep), and its words: every start-up error one line with exit 2, a full disk one
line with exit 74, the final match's lines. The job itself is :func:`training.loop.train`;
``scripts/train.py`` (the ``hive-train`` command) runs :func:`main`.

See docs/training.md and docs/reliability.md (exit statuses).
"""

from __future__ import annotations

import logging
import os
import re
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import hydra
from omegaconf import DictConfig

from hive_env.files import is_disk_full

from .config import ConfigError, register_configs
from .faults import (
    CLUSTER_LOST_EXIT,
    DISK_FULL_EXIT,
    SELFPLAY_FAILED_EXIT,
    ClusterError,
    SelfPlayError,
    disk_full_line,
    stop_on_log_write_errors,
)
from .loop import CONFIGS

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

    from .loop import check_command_line

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
    from . import sweep

    if sweep.LAST_SWEEP is not None:  # hive-train -m: how the jobs ended
        line, all_done = sweep.summary(sweep.LAST_SWEEP)
        print(f"hive-train: {line}", file=sys.stdout if all_done else sys.stderr)
        if not all_done:
            sys.exit(1)


@hydra.main(config_path=str(CONFIGS), config_name="train", version_base=None)
def run(cfg: DictConfig) -> None:
    """The run, under Hydra (its run directory, job logging and ``--cfg``-like flags); under
    ``-m``, one job of a sweep (:func:`sweep_job`). The job's name, which names ``train.log``, is
    configs/train.yaml's ``hydra.job.name``, not this module's."""
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode

    from search.checkpoint import CheckpointError

    from .run import Stopped, stop_on_signals

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

    from . import sweep

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
    from .lineage import adopt_parent_size
    from .loop import train

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

    from . import sweep
    from .run import Stopped
    from .worker import limit_threads

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
