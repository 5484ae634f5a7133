"""The whole training job of ``hive-train``, callable from Python: :func:`train`.

    from training.loop import train, compose_config
    result = train(compose_config(["experiment=smoke", "run_dir=/tmp/smoke"]))

Checks the settings (:func:`training.config.run_config`) and, for an existing run directory,
the changes since its last start (training.resume) and the network it starts from
(``train.init_from``, training.lineage) before writing anything; saves the
resolved config beside the run's outputs; trains (training.run) with evaluation of
checkpoints and gating (training.gating); saves ``final.pt`` and plays the final match
(its report returned). Rerunning with the same run directory resumes. The command line
(scripts/train.py) adds Hydra's command-line parsing and logging, signal handling, the
messages of a user error and the words on the final match.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from hive_env.compile_notice import notice_first_compile
from hive_env.files import write_atomic

from .checkpoint import CheckpointStore
from .config import register_configs, run_config
from .gating import Gatekeeper
from .lineage import load_parent
from .resume import check_resume, record_resume
from .run import Run, Stopped, git_commit, save_final
from .selfplay_backend import arena_executor

CONFIGS = Path(__file__).resolve().parents[1] / "configs"
"""The Hydra configs of hive-train (configs/train.yaml and its groups)."""


@dataclass
class TrainResult:
    """What a finished :func:`train` leaves: the run directory, ``final.pt``, the final match's
    report, and the run's name and training steps (what the final match can say depends on them)."""

    run_dir: Path
    final: Path
    report: Any
    name: str
    steps: int


def compose_config(overrides: list[str] | tuple[str, ...] = ()) -> DictConfig:
    """hive-train's config for command-line style ``overrides`` (``["experiment=smoke",
    "run_dir=..."]``), composed by Hydra as the command line composes it."""
    from hydra import compose, initialize_config_dir

    register_configs()
    with initialize_config_dir(config_dir=str(CONFIGS), version_base=None):
        return compose(config_name="train", overrides=list(overrides))


def train(cfg: DictConfig, log=print) -> TrainResult:
    """Run (or resume) the training job of ``cfg`` (module docstring).

    Raises:
        training.config.ConfigError: a bad setting, or a change a resumed run cannot take;
            nothing was written.
        search.checkpoint.CheckpointError: a crafted checkpoint in the run directory.
        training.run.Stopped: SIGINT or SIGTERM (with :func:`training.run.stop_on_signals`);
            ``step`` says where; rerun to resume.
    """
    resolved = OmegaConf.to_container(cfg, resolve=True)
    rc = run_config(cfg)
    changes = check_resume(rc.run_dir, resolved)  # before anything is written
    parent = None
    if rc.train.init_from and not CheckpointStore(rc.run_dir / "checkpoints", create=False).exists():
        parent = load_parent(rc.train.init_from, rc.env.game_type, vars(rc.model), rc.train.init_optimizer)
    rc.run_dir.mkdir(parents=True, exist_ok=True)
    commit = git_commit()
    write_atomic(rc.run_dir / "config.yaml", OmegaConf.to_yaml(cfg, resolve=True) + f"# git: {commit}\n")
    if changes:
        record_resume(rc.run_dir, changes, commit)
        log(f"hive-train: resuming with changed settings: {'; '.join(changes)}")
    log(f"run directory: {rc.run_dir} (rerun the same command to resume)")
    log(f"TensorBoard: tensorboard --logdir {rc.run_dir / 'tb'}")
    notice_first_compile()  # before the workers start: they inherit the notice, and stay quiet
    run = None
    try:
        run = Run(rc, resolved, log=log, parent=parent)
        gatekeeper = Gatekeeper(rc, log=log, executor=arena_executor(rc, log))
        run.evaluate(lambda r, _: gatekeeper.catch_up(r), run.trainer.step)
        run.run(evaluate_hook=gatekeeper.on_checkpoint)
        log(f"time: training {run.trainer.seconds / 60:.1f} min (train.max_minutes counts it), "
            f"evaluation {run.trainer.eval_seconds / 60:.1f} min (self-play paused meanwhile)")
        final = save_final(run)
        log(f"final checkpoint: {final}")
        return TrainResult(rc.run_dir, final, gatekeeper.final_match(final), rc.name, rc.train.steps)
    except Stopped as e:
        e.step = run.trainer.step if run is not None else None
        raise
    finally:
        if run is not None:
            run.metrics.close()
