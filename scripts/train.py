"""``hive-train``: AlphaZero-style self-play training (Hydra config in configs/).

    hive-train experiment=smoke              # a few minutes on a CPU
    hive-train experiment=cpu                # at most an hour on 2 cores: beats random and greedy
    hive-train experiment=gpu name=run1      # one GPU
    hive-train experiment=cpu model.width=64 seed=3

Rerunning the same command resumes the run in ``runs/<name>`` (settings that change the
network are refused, others recorded in ``resumes.log``). Ctrl-C (exit 130) and SIGTERM
(exit 143) stop it cleanly with one line. A start-up error (an unknown key or option, a bad
value) is one line with exit 2, before anything is created; ``--help`` lists every setting.
Progress goes to stdout and ``<run_dir>/train.log`` (Hydra's job logging, configs/train.yaml):
a bar on a terminal (log lines printed above it), plain periodic lines otherwise.
The job itself is :func:`training.loop.train`; this is its command line and its words.
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
from omegaconf import DictConfig  # noqa: E402

from training.config import ConfigError, register_configs  # noqa: E402
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
    run()


@hydra.main(config_path=str(CONFIGS), config_name="train", version_base=None)
def run(cfg: DictConfig) -> None:
    """The run, under Hydra (its run directory, job logging and ``--cfg``-like flags)."""
    from search.checkpoint import CheckpointError
    from training.loop import train
    from training.run import Stopped, stop_on_signals

    stop_on_signals()
    log = logging.getLogger("hive-train").info  # console (plain) and train.log (timed)
    try:
        result = train(cfg, log=log)
    except (ConfigError, CheckpointError) as e:  # a bad setting; a crafted checkpoint in the run directory
        print(f"hive-train: error: {e}", file=sys.stderr)
        sys.exit(2)
    except Stopped as e:
        at = f"at step {e.step}" if e.step is not None else "during start-up"
        print(f"hive-train: interrupted {at}; rerun the same command to resume", file=sys.stderr)
        sys.exit(e.exit_code)
    for line in final_match_lines(result.report, result.name, result.steps, result.final):
        log(line)


if __name__ == "__main__":
    main()
