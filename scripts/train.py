"""``hive-train``: AlphaZero-style self-play training (Hydra config in configs/).

    hive-train experiment=smoke              # a few minutes on a CPU
    hive-train experiment=cpu                # about half an hour on 2 cores: beats greedy
    hive-train experiment=gpu name=run1      # one GPU
    hive-train experiment=cpu model.width=64 seed=3

Rerunning the same command resumes the run in ``runs/<name>`` (settings that change the
network are refused, others recorded in ``resumes.log``). Ctrl-C (exit 130) and SIGTERM
(exit 143) stop it cleanly with one line. Progress goes to stdout and ``<run_dir>/train.log``
(Hydra's job logging, configs/train.yaml): a bar on a terminal, plain periodic lines otherwise.
"""

from __future__ import annotations

import logging
import signal
import sys

# Until main() takes over, a signal ends the start-up quietly (nothing is written yet).
for _s in (signal.SIGINT, signal.SIGTERM):
    signal.signal(_s, lambda n, f: sys.exit(128 + n))

from pathlib import Path  # noqa: E402
from typing import TYPE_CHECKING  # noqa: E402

import hydra  # noqa: E402
from omegaconf import DictConfig, OmegaConf  # noqa: E402

from hive_env.compile_notice import notice_first_compile  # noqa: E402
from hive_env.files import write_atomic  # noqa: E402
from training.config import ConfigError, register_configs, run_config  # noqa: E402

if TYPE_CHECKING:
    from collections.abc import Callable

    from arena.arena import ArenaReport, Executor
    from training.config import RunConfig

CONFIGS = str(Path(__file__).resolve().parents[1] / "configs")
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
    from arena.arena import format_report

    lines = [format_report(report)]
    for _, j, stats in report.pairings:
        lines.append(f"final score vs {report.names[j]}: {stats.score:.3f} over {stats.games} games "
                     f"({_count(stats.wins, 'win')}, {_count(stats.draws, 'draw')}, "
                     f"{_count(stats.losses, 'loss')})")
    if is_short_run(name, steps):
        lines.append(_pipeline_note(name, steps, final))
    return lines


def _pipeline_note(name: str, steps: int, final: Path) -> str:
    """The note of a short run: what it checks, and how to measure strength instead."""
    what = "the smoke preset" if name == "smoke" else "a short run"
    return (f"note: this is {what} ({steps} training steps): it checks that the pipeline runs\n"
            "      end to end, not playing strength. For strength: hive-train experiment=cpu (beats\n"
            f"      random and greedy), then hive-arena ladder \"alphazero:ckpt={final},sims=32\"")


def _count(n: int, word: str) -> str:
    """``"1 loss"``, ``"0 wins"``, ``"2 draws"``."""
    if n == 1:
        return f"1 {word}"
    return f"{n} {word}es" if word.endswith("s") else f"{n} {word}s"


def arena_executor(rc: RunConfig, log: Callable[[str], None]) -> Executor | None:
    """Who plays the evaluation games: Ray tasks anywhere on the cluster with ``backend=ray``
    (Ray imported only then), else None (the arena's own processes)."""
    if rc.backend != "ray":
        return None
    from training.ray_backend import ray_executor

    return ray_executor(rc.ray, log)


@hydra.main(config_path=CONFIGS, config_name="train", version_base=None)
def main(cfg: DictConfig) -> None:
    from search.checkpoint import CheckpointError
    from training.gating import Gatekeeper
    from training.loop import (
        Run,
        Stopped,
        check_resume,
        git_commit,
        record_resume,
        save_final,
        stop_on_signals,
    )

    stop_on_signals()
    log = logging.getLogger("hive-train").info  # console (plain) and train.log (timed)
    resolved = OmegaConf.to_container(cfg, resolve=True)
    try:
        rc = run_config(cfg)
        changes = check_resume(rc.run_dir, resolved)  # before anything is written
    except ConfigError as e:
        print(f"hive-train: error: {e}", file=sys.stderr)
        sys.exit(2)
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
        run = Run(rc, resolved, log=log)
        gatekeeper = Gatekeeper(rc, log=log, executor=arena_executor(rc, log))
        gatekeeper.catch_up(run)
        run.run(evaluate_hook=gatekeeper.on_checkpoint)
        final = save_final(run)
        log(f"final checkpoint: {final}")
        for line in final_match_lines(gatekeeper.final_match(final), rc.name, rc.train.steps, final):
            log(line)
    except CheckpointError as e:  # a crafted checkpoint in the run directory (damaged ones are skipped)
        print(f"hive-train: error: {e}", file=sys.stderr)
        sys.exit(2)
    except Stopped as e:
        at = f"at step {run.trainer.step}" if run is not None else "during start-up"
        print(f"hive-train: interrupted {at}; rerun the same command to resume", file=sys.stderr)
        sys.exit(e.exit_code)
    finally:
        if run is not None:
            run.metrics.close()


if __name__ == "__main__":
    main()
