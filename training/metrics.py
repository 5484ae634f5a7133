"""The run's one TensorBoard writer: training losses, self-play statistics, evaluation scores."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np


class Metrics:
    """Scalars of a run under ``run_dir/tb`` (tags ``train/*``, ``selfplay/*``, ``eval/*``)."""

    def __init__(self, directory: str | Path):
        from torch.utils.tensorboard import SummaryWriter

        self._writer = SummaryWriter(str(directory))
        self._started = time.time()
        self._games = 0  # self-play games and positions seen by this process
        self._positions = 0

    def scalar(self, tag: str, value: float, step: int) -> None:
        self._writer.add_scalar(tag, float(value), step)

    def scalars(self, prefix: str, values: dict[str, float], step: int) -> None:
        """Each ``values[k]`` as ``prefix/k``."""
        for k, v in values.items():
            self.scalar(f"{prefix}/{k}", v, step)

    def selfplay(self, plies: np.ndarray, status: np.ndarray, truncated: np.ndarray, step: int) -> None:
        """Statistics of newly finished self-play games (per-game arrays from replay shards)."""
        if len(plies) == 0:
            return
        self._games += len(plies)
        self._positions += int(plies.sum())
        elapsed = max(1e-6, time.time() - self._started)
        self.scalars("selfplay", {
            "games_per_s": self._games / elapsed,
            "positions_per_s": self._positions / elapsed,
            "game_length_mean": float(plies.mean()),
            "white_wins_share": float((status == 1).mean()),
            "black_wins_share": float((status == 2).mean()),
            "draw_share": float((status == 3).mean()),
            "capped_share": float(truncated.mean()),
        }, step)

    def flush(self) -> None:
        self._writer.flush()

    def close(self) -> None:
        self._writer.close()
