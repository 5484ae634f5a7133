"""The whole training job of ``hive-train``, callable from Python: :func:`train`.

    from training.loop import train, compose_config
    result = train(compose_config(["experiment=smoke", "run_dir=/tmp/smoke"]))

The command line (training.cli) adds Hydra's parsing and logging, signals and error messages;
:func:`check_command_line` checks every setting before Hydra creates anything. See docs/training.md.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from hive_env.compile_notice import notice_first_compile
from hive_env.files import write_atomic
from hive_zero import version_line
from hive_zero.run_layout import RunLayout

from .checkpoint import CheckpointStore
from .config import ConfigError, RunConfig, run_config
from .gating import Gatekeeper
from .lineage import Parent, load_parent
from .metrics import write_line
from .overrides import CONFIGS, compose_config, one_line, settings_help
from .resume import check_resume, record_resume
from .run import Run, Stopped, git_commit, raise_if_signalled, save_final
from .selfplay_backend import arena_executor

__all__ = ["CONFIGS", "Prepared", "TrainResult", "check_command_line", "compose_config", "prepare", "train"]


@dataclass
class TrainResult:
    """What a finished :func:`train` leaves: the run directory, ``final.pt``, the final match's
    report, the run's name and training steps (what the final match can say depends on them), and
    the final ladder's result (``eval.final_ladder``; None without)."""

    run_dir: Path
    final: Path
    report: Any
    name: str
    steps: int
    ladder: Any = None  # arena.ladder.LadderResult with eval.final_ladder


@dataclass
class Prepared:
    """What :func:`prepare` checked: the typed settings, the resolved config, the changes since
    the run directory's last start, and the network a new run starts from."""

    rc: RunConfig
    resolved: dict[str, Any]
    changes: list[str]
    parent: tuple[Parent, dict[str, Any]] | None


def prepare(cfg: DictConfig) -> Prepared:
    """Every check of a run's start that writes nothing (see :func:`train` for what it raises)."""
    resolved = OmegaConf.to_container(cfg, resolve=True)
    rc = run_config(cfg)
    changes = check_resume(rc.run_dir, resolved)
    parent = None
    if rc.train.init_from and not CheckpointStore(RunLayout(rc.run_dir).checkpoints, create=False).exists():
        parent = load_parent(rc.train.init_from, rc.env.game_type, vars(rc.model), rc.train.init_optimizer)
    return Prepared(rc, resolved, changes, parent)


def check_command_line(argv: Sequence[str]) -> str | None:
    """What hive-train does before Hydra takes over ``argv`` (its arguments): the text of
    ``--help`` to print (training.overrides.settings_help), or None once every start-up check
    passed: the overrides compose (training.overrides.check_overrides) and, for a run, the
    settings hold (:func:`prepare`). ``--version``: hive-zero's version (``hive_zero``) and
    Hydra's. Hydra's other flags pass (``--cfg`` and the like: the
    overrides are checked; ``--multirun``, another config: nothing is).

    Raises:
        ConfigError: a bad flag, override or setting, in one line.
        search.checkpoint.CheckpointError: a crafted checkpoint in the run directory or parent.
    """
    from hydra import __version__ as hydra_version
    from hydra._internal.utils import get_args_parser

    if "--version" in argv:
        return f"{version_line('hive-train')}, Hydra {hydra_version}"
    parser = get_args_parser()

    def refuse(message: str):
        raise ConfigError(message)

    parser.error = refuse  # one line, no usage text
    args = parser.parse_args(list(argv))
    if args.help:
        return settings_help(args.overrides)
    if args.config_path or args.config_name or args.config_dir or args.experimental_rerun:
        return None
    if args.multirun:
        check_sweep(args.overrides)
        return None
    cfg = compose_config(args.overrides)
    if not (args.cfg or args.info or args.hydra_help or args.shell_completion):
        prepare(cfg)
    return None


def check_sweep(overrides: Sequence[str]) -> None:
    """The start-up checks of ``hive-train -m`` (training.sweep): every job's settings compose and
    hold (as a single run's would), and no job names its own ``run_dir`` (the sweep gives each
    job its directory: ``hydra.sweep.dir`` moves the sweep). Raises :class:`ConfigError`."""
    from .sweep import expand, key_of

    if any(key_of(o) == "run_dir" for o in overrides):
        raise ConfigError("run_dir is set per job in a sweep (<hydra.sweep.dir>/<the job's overrides>): "
                          "set hydra.sweep.dir=DIR instead")
    try:
        jobs = expand(overrides)
    except Exception as e:  # Hydra's override grammar
        raise ConfigError(f"cannot expand the sweep: {one_line(e)}") from None
    for job in jobs:
        cfg = compose_config(job)
        try:
            run_config(cfg)
        except ConfigError as e:
            raise ConfigError(f"sweep job {' '.join(job)}: {e}") from None


def train(cfg: DictConfig, log: Callable[[str], None] = write_line) -> TrainResult:
    """Run (or resume) the training job of ``cfg``. ``log`` takes the run's lines (the default
    prints them above a progress bar).

    Checks the settings (:func:`prepare`: :func:`training.config.run_config`, for an existing
    run directory the changes since its last start (training.resume), and the network it starts
    from (``train.init_from``, training.lineage)) before writing anything; saves the resolved
    config beside the run's outputs; trains (training.run) with evaluation of checkpoints and
    gating (training.gating); saves ``final.pt`` and plays the final match (its report returned,
    its scores logged under ``final/``) and, with ``eval.final_ladder``, the final ladder
    (``<run_dir>/ladder/ladder.json``). Rerunning with the same run directory resumes.

    Raises:
        training.config.ConfigError: a bad setting, or a change a resumed run cannot take;
            nothing was written.
        search.checkpoint.CheckpointError: a crafted checkpoint in the run directory.
        training.run.Stopped: SIGINT or SIGTERM (with :func:`training.run.stop_on_signals`);
            ``step`` says where; rerun to resume.
        OSError: a full disk (``hive_env.files.is_disk_full``; ``training.faults.failed_file``
            names the file): nothing the run reads back is half written; rerun to resume.
        training.faults.SelfPlayError: a self-play worker died again and again before writing a
            shard (its text is one line naming it and its last error); rerun once it is fixed.
    """
    p = prepare(cfg)  # before anything is written
    rc = p.rc
    rc.run_dir.mkdir(parents=True, exist_ok=True)
    commit = git_commit()
    layout = RunLayout(rc.run_dir)
    write_atomic(layout.config, OmegaConf.to_yaml(cfg, resolve=True) + f"# git: {commit}\n")
    if p.changes:
        record_resume(rc.run_dir, p.changes, commit)
        log(f"hive-train: resuming with changed settings: {'; '.join(p.changes)}")
    log(f"run directory: {rc.run_dir} (rerun the same command to resume)")
    log(f"TensorBoard: tensorboard --logdir {layout.tb}")
    notice_first_compile()  # before the workers start: they inherit the notice, and stay quiet
    run = None
    stopping = True  # until the job ends: an error on the way out must not hide the first
    try:
        run = Run(rc, p.resolved, log=log, parent=p.parent)
        gatekeeper = Gatekeeper(rc, log=log, executor=arena_executor(rc, log))
        run.evaluate(lambda r, _: gatekeeper.catch_up(r), run.trainer.step)
        run.run(evaluate_hook=gatekeeper.on_checkpoint)
        counted = "both" if rc.train.budget_includes_eval else "the training"
        log(f"time: training {run.trainer.seconds / 60:.1f} min, evaluation "
            f"{run.trainer.eval_seconds / 60:.1f} min (self-play paused meanwhile; train.max_minutes "
            f"counts {counted})")
        raise_if_signalled()
        final = save_final(run)
        log(f"final checkpoint: {final}")
        raise_if_signalled()
        report = gatekeeper.final_match(final, run.metrics, run.trainer.step)
        ladder = gatekeeper.final_ladder(final, run.metrics, run.trainer.step)
        if ladder is not None:
            log(f"final {ladder.line()}")
        raise_if_signalled()
        stopping = False
        return TrainResult(rc.run_dir, final, report, rc.name, rc.train.steps, ladder)
    except Stopped as e:
        e.step = run.trainer.step if run is not None else None
        raise
    finally:
        if run is not None:
            run.metrics.close(quiet=stopping)
