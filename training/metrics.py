"""The run's one TensorBoard writer (training losses, self-play statistics, evaluation scores) and
its progress report for a person (:class:`Progress`: a bar on a terminal, plain lines in a log)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
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

    @property
    def games(self) -> int:
        """Self-play games finished (read from new replay shards) since this process started."""
        return self._games

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


PROGRESS_EVERY_S = 30.0
"""Seconds between plain progress lines (not on a terminal); checkpoints always log one."""
WAITING_EVERY_S = 10.0
"""Seconds between plain self-play lines while the trainer waits for data."""


class Progress:
    """Training progress as a person sees it.

    On a terminal (``stream.isatty()``) a tqdm bar with the loss and the self-play counts; in a
    log file or a pipe, plain lines through ``log`` instead (a bar there writes thousands of
    carriage-return updates into one line): one when waiting starts, then every
    :data:`WAITING_EVERY_S` while the trainer waits for self-play data, and every
    :data:`PROGRESS_EVERY_S` and at each checkpoint while it trains (and waits, after that).

    Args:
        total: the last training step (``train.steps``).
        initial: the step the run starts from (a resumed run's checkpoint).
        log: where plain lines go (the run's logger: console and ``train.log``).
        stream: the bar's stream (stderr); ``interactive`` overrides its ``isatty()``.
    """

    def __init__(self, total: int, initial: int, log: Callable[[str], None] = print,
                 stream=None, interactive: bool | None = None):
        self.total = total
        self.log = log
        stream = stream or sys.stderr
        self.interactive = stream.isatty() if interactive is None else interactive
        self.bar = None
        if self.interactive:
            from tqdm import tqdm

            self.bar = tqdm(total=total, initial=initial, desc="train", unit="step", dynamic_ncols=True,
                            file=stream)
        self.started = time.monotonic()
        self._step0, self._t0 = initial, self.started  # for the plain lines' steps per second
        self._last_line = -float("inf")
        self._trained = False  # no step yet in this process: waiting lines come more often

    def waiting(self, games: int, positions: int, needed: int) -> None:
        """The trainer waits for self-play: ``games`` finished so far, ``positions`` in replay,
        ``needed`` before training may (re)start."""
        text = f"self-play: {games} games finished, {positions} positions in replay"
        if positions < needed:
            text += f" (training starts at {needed})"
        if self.bar is not None:
            self.bar.set_postfix_str(text)
            return
        now = time.monotonic()
        if now - self._last_line >= (PROGRESS_EVERY_S if self._trained else WAITING_EVERY_S):
            self.log(f"{text}, {now - self.started:.0f} s")
            self._last_line = now

    def step(self, step: int, loss: float, positions: int, checkpoint: bool = False) -> None:
        """A training step done."""
        self._trained = True
        if self.bar is not None:
            self.bar.update(1)
            self.bar.set_postfix(loss=f"{loss:.3f}", positions=positions)
            return
        now = time.monotonic()
        if checkpoint or now - self._last_line >= PROGRESS_EVERY_S:
            rate = (step - self._step0) / max(1e-6, now - self._t0)
            self.log(f"train: step {step}/{self.total}, loss {loss:.3f}, {positions} positions, "
                     f"{rate:.2f} steps/s, {now - self.started:.0f} s")
            self._last_line = now

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
