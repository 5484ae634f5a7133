"""``hive-train``: AlphaZero-style self-play training (Hydra config in configs/).

    hive-train experiment=smoke              # a few minutes on a CPU
    hive-train experiment=cpu                # at most an hour on 2 cores: beats random and greedy
    hive-train experiment=gpu name=run1      # one GPU
    hive-train experiment=cpu model.width=64 seed=3

Rerunning the same command resumes the run in ``runs/<name>`` (settings that change the
network are refused, others recorded in ``resumes.log``). Ctrl-C (exit 130) and SIGTERM
(exit 143) stop it cleanly with one line. Progress goes to stdout and ``<run_dir>/train.log``
(Hydra's job logging, configs/train.yaml): a bar on a terminal, plain periodic lines otherwise.
The job itself is :func:`training.loop.train`; this is its command line.
"""

from __future__ import annotations

import logging
import signal
import sys

# Until main() takes over, a signal ends the start-up quietly (nothing is written yet).
for _s in (signal.SIGINT, signal.SIGTERM):
    signal.signal(_s, lambda n, f: sys.exit(128 + n))

import hydra  # noqa: E402
from omegaconf import DictConfig  # noqa: E402

from training.config import ConfigError, register_configs  # noqa: E402
from training.loop import CONFIGS  # noqa: E402

register_configs()  # the defaults of every setting, first in configs/train.yaml's defaults list


@hydra.main(config_path=str(CONFIGS), config_name="train", version_base=None)
def main(cfg: DictConfig) -> None:
    from search.checkpoint import CheckpointError
    from training.loop import train
    from training.run import Stopped, stop_on_signals

    stop_on_signals()
    log = logging.getLogger("hive-train").info  # console (plain) and train.log (timed)
    try:
        train(cfg, log=log)
    except (ConfigError, CheckpointError) as e:  # a bad setting; a crafted checkpoint in the run directory
        print(f"hive-train: error: {e}", file=sys.stderr)
        sys.exit(2)
    except Stopped as e:
        at = f"at step {e.step}" if e.step is not None else "during start-up"
        print(f"hive-train: interrupted {at}; rerun the same command to resume", file=sys.stderr)
        sys.exit(e.exit_code)


if __name__ == "__main__":
    main()
