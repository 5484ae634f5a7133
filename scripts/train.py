"""``hive-train``: AlphaZero-style self-play training (Hydra config in configs/).

    hive-train experiment=smoke              # a few minutes on a CPU
    hive-train experiment=cpu                # about an hour on 2 cores: learns to beat greedy
    hive-train experiment=gpu name=run1      # one GPU
    hive-train experiment=cpu model.width=64 seed=3

Rerunning the same command resumes the run in ``runs/<name>``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import hydra
from omegaconf import DictConfig, OmegaConf

from hive_env.files import write_atomic
from training.config import ConfigError, register_configs, run_config

CONFIGS = str(Path(__file__).resolve().parents[1] / "configs")
register_configs()  # the defaults of every setting, first in configs/train.yaml's defaults list


@hydra.main(config_path=CONFIGS, config_name="train", version_base=None)
def main(cfg: DictConfig) -> None:
    from training.gating import Evaluation
    from training.loop import Run, git_commit, save_final

    try:
        rc = run_config(cfg)
    except ConfigError as e:
        print(f"hive-train: error: {e}", file=sys.stderr)
        sys.exit(2)
    rc.run_dir.mkdir(parents=True, exist_ok=True)
    resolved = OmegaConf.to_container(cfg, resolve=True)
    text = OmegaConf.to_yaml(cfg, resolve=True) + f"# git: {git_commit()}\n"
    write_atomic(rc.run_dir / "config.yaml", text)
    run = Run(rc, resolved)
    evaluation = Evaluation(rc)
    run.run(evaluate_hook=evaluation.on_checkpoint)
    final = save_final(run)
    print(f"final checkpoint: {final}")
    evaluation.final_match(final, run)


if __name__ == "__main__":
    main()
