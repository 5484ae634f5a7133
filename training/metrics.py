"""The run's one TensorBoard writer (its settings, training losses, self-play statistics,
evaluation scores) and its progress report for a person (:class:`Progress`: a bar on a terminal,
plain lines in a log).

``run_dir/tb`` holds ``config`` and the HParams dashboard, ``train/*``, ``selfplay/*``, ``eval/*``,
``final/*``, ``clock/*`` and ``time/*``; a resumed run purges what the stopped process logged
after its last checkpoint. A full disk under the event file stops the run as any full disk does.

See docs/training.md (what TensorBoard shows) and docs/reliability.md.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from hive_env.board import BLACK_WINS, DRAW, WHITE_WINS
from hive_env.files import naming

from .faults import quiet_writer_threads
from .selfplay import GAME_STATS

RECENT_GAMES = 500
"""Self-play games (the newest seen) behind the per-checkpoint game length and result shares."""

HPARAM_METRICS = ("train/total", "train/value_accuracy", "eval/elo_vs_random")
"""Scalars the HParams dashboard shows beside each run's settings (their last values)."""


def write_line(text: str) -> None:
    """Print a line above an active progress bar (``tqdm.write``; plain ``print`` without one):
    the default ``log`` of a run started from Python."""
    from tqdm import tqdm

    tqdm.write(text)


def flat_settings(tree: Any, prefix: str = "") -> dict[str, Any]:
    """A resolved config as ``{"train.lr": 0.001, ...}`` with HParams values (numbers, text and
    booleans; lists and None as text)."""
    if isinstance(tree, dict):
        out: dict[str, Any] = {}
        for k, v in tree.items():
            out.update(flat_settings(v, f"{prefix}{k}."))
        return out
    value = tree if isinstance(tree, (bool, int, float, str)) else str(tree)
    return {prefix[:-1]: value}


class Metrics:
    """Scalars of a run under ``run_dir/tb`` (docs/training.md lists the tags).

    A full disk under the event file (the writer's thread finds it; the next call here raises
    it, an OSError naming the event file) stops the run as any full disk does
    (training.faults): events are the run's record of itself, and the next checkpoint would
    find no room either.

    Args:
        directory: the event files' directory.
        purge_step: the first step this process logs (a resumed run: its checkpoint's step + 1).
            TensorBoard discards the events of this step and later that an earlier process
            wrote (it stopped after its last checkpoint; those steps are trained again).
    """

    def __init__(self, directory: str | Path, purge_step: int | None = None):
        from torch.utils.tensorboard import SummaryWriter

        quiet_writer_threads()
        self.path = Path(directory)  # the event file once the writer made it (:meth:`_writing`)
        with self._writing():
            self._writer = SummaryWriter(str(directory), purge_step=purge_step)
            event_writer = getattr(self._writer.file_writer, "event_writer", None)
            self.path = Path(getattr(event_writer, "_file_name", directory))  # tensorboard's name for it
        self._games = 0  # self-play games and positions seen by this process
        self._positions = 0
        self._since = (time.monotonic(), 0, 0)  # (time, games, positions) at the last self-play log
        self._recent = {k: np.zeros(0, dtype) for k, dtype in GAME_STATS}

    @property
    def games(self) -> int:
        """Self-play games finished (read from new replay shards) since this process started."""
        return self._games

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """Calls of the writer: a full disk (found now or by its thread) names the event file."""
        with naming(self.path):
            yield

    def scalar(self, tag: str, value: float, step: int) -> None:
        with self._writing():
            self._writer.add_scalar(tag, float(value), step)

    def scalars(self, prefix: str, values: dict[str, float], step: int) -> None:
        """Each ``values[k]`` as ``prefix/k``."""
        for k, v in values.items():
            self.scalar(f"{prefix}/{k}", v, step)

    def text(self, tag: str, text: str, step: int) -> None:
        """A line of text under ``tag`` (e.g. ``inference``: what runs self-play's network)."""
        with self._writing():
            self._writer.add_text(tag, text, step)

    def config(self, resolved: dict[str, Any], step: int) -> None:
        """The run's resolved config: as YAML text (tag ``config``) and as hyper-parameters of
        the HParams dashboard (every setting by its full key, ``hydra`` left out; the metrics
        :data:`HPARAM_METRICS`)."""
        import yaml
        from torch.utils.tensorboard.summary import hparams

        settings = {k: v for k, v in resolved.items() if k != "hydra"}
        text = yaml.safe_dump(settings, sort_keys=False)
        with self._writing():
            self._writer.add_text("config", "".join(f"    {line}\n" for line in text.splitlines()), step)
            for summary in hparams(flat_settings(settings), dict.fromkeys(HPARAM_METRICS, 0.0)):
                self._writer.file_writer.add_summary(summary, step)

    def selfplay(self, stats: dict[str, np.ndarray], new: bool = True) -> None:
        """Per-game arrays of finished self-play games (from replay shards; keys: the names of
        ``training.selfplay.GAME_STATS``), kept for the next
        :meth:`log_selfplay`; ``new=False`` for games finished before this process started
        (a resumed run's statistics start from them, its rates do not)."""
        if new:
            self._games += len(stats["plies"])
            self._positions += int(np.sum(stats["plies"]))
        for key, _ in GAME_STATS:
            self._recent[key] = np.concatenate([self._recent[key], stats[key]])[-RECENT_GAMES:]

    def log_selfplay(self, step: int, replay_positions: int) -> tuple[dict[str, float], int]:
        """Self-play at a checkpoint: ``games_per_s`` and ``positions_per_s`` (played, since the
        previous checkpoint or the process's start), ``games_finished`` (since then),
        ``replay_positions``, and over the newest :data:`RECENT_GAMES` games seen
        ``game_length_mean`` and the shares of white wins, black wins, draws and games capped.
        Returns the values logged and how many games the shares are over."""
        now, games, positions = time.monotonic(), self._games, self._positions
        then, games0, positions0 = self._since
        elapsed = max(1e-6, now - then)
        values = {"games_per_s": (games - games0) / elapsed,
                  "positions_per_s": (positions - positions0) / elapsed,
                  "games_finished": games - games0, "replay_positions": replay_positions}
        plies, status, truncated = self._recent["plies"], self._recent["status"], self._recent["truncated"]
        if len(plies):
            values.update({"game_length_mean": float(plies.mean()),
                           "white_wins_share": float((status == WHITE_WINS).mean()),
                           "black_wins_share": float((status == BLACK_WINS).mean()),
                           "draw_share": float((status == DRAW).mean()),
                           "capped_share": float(truncated.mean())})
        self.scalars("selfplay", values, step)
        self._since = (now, games, positions)
        return values, len(plies)

    def flush(self, quiet: bool = False) -> None:
        """Write what is queued to the event file; ``quiet``: an error is ignored (the run is
        stopping for another one already, which must be the one reported)."""
        self._finish(self._writer.flush, quiet)

    def close(self, quiet: bool = False) -> None:
        """Flush and close the event file (``quiet`` as for :meth:`flush`)."""
        self._finish(self._writer.close, quiet)

    def _finish(self, call: Callable[[], None], quiet: bool) -> None:
        try:
            with self._writing():
                call()
        except OSError:
            if not quiet:
                raise


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
    While the bar is shown, the root logger's console handlers (hive-train's: Hydra's job
    logging) write through ``tqdm.write``, so the run's log lines land above the bar instead of
    inside it; log files are left as they are.

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
        self._redirect = ExitStack()
        if self.interactive:
            from tqdm import tqdm
            from tqdm.contrib.logging import logging_redirect_tqdm

            self.bar = tqdm(total=total, initial=initial, desc="train", unit="step", dynamic_ncols=True,
                            file=stream)
            self._redirect.enter_context(logging_redirect_tqdm())
        self.started = time.monotonic()
        self._step0, self._t0 = initial, self.started  # for the plain lines' steps per second
        self._last_line = -float("inf")
        self._trained = False  # no step yet in this process: waiting lines come more often

    def waiting(self, games: int, positions: int, needed: int, step: int = 0) -> None:
        """The trainer waits for self-play: ``games`` finished so far, ``positions`` in replay,
        ``needed`` before training may start (at ``step`` 0) or take its next step (each step
        waits for new positions: ``train.samples_per_position``)."""
        text = f"self-play: {games} games finished, {positions} positions in replay"
        if positions < needed:
            text += (f" (training starts at {needed})" if step == 0 else
                     f" (step {step + 1} at {needed}: train.samples_per_position)")
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
        self._redirect.close()  # the console handlers back
        if self.bar is not None:
            self.bar.close()
