"""The trainer process of a run: the network, its trainer and the stores, and the loop that
trains while self-play (training.selfplay_backend) fills the replay store.

Processes talk only through two stores in the run directory: the checkpoint store the trainer
publishes to and workers poll, and the replay store workers write shards to (with
``backend=ray`` the actors hand their shards to this process, which writes them). A run killed at
any moment resumes from its directory with the same command (:class:`Run`).

See docs/training.md (the run directory, stopping and resuming).
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from hive_env.encode import ADAPTED_VERSIONS, ENCODING_VERSION
from hive_zero.run_layout import RunLayout
from search.checkpoint import CheckpointError, read_checkpoint, save_checkpoint
from search.network import pick_device

from .checkpoint import CheckpointStore
from .config import RunConfig
from .lineage import Parent, device_name, lineage, parent_from_lineage
from .metrics import RECENT_GAMES, Metrics, Progress
from .replay import ReplayStore
from .selfplay import GAME_STATS
from .selfplay_backend import SelfPlayBackend, make_backend
from .trainer import Trainer
from .worker import describe_inference, limit_threads, seed_everything

DRAWN_WARNING = 0.9
"""The share of drawn recent self-play games from which the run warns (once) that results teach nothing."""


# ----- signals and resuming ----------------------------------------------------------------------


class Stopped(KeyboardInterrupt):
    """SIGINT or SIGTERM in the trainer process (:func:`stop_on_signals`); ``exit_code`` is
    128 + the signal's number (130, 143)."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum
        self.exit_code = 128 + signum
        self.step: int | None = None  # the training step it stopped at, when known


_signalled: list[int] = []
"""The signal :func:`stop_on_signals` caught, if any (its exception may be lost: raise_if_signalled)."""


def stop_on_signals() -> None:
    """Make SIGINT and SIGTERM raise :class:`Stopped` in this (the main) thread, so ``finally``
    blocks stop the workers and flush TensorBoard. A second signal while stopping exits at
    once with the same status (a run may be killed at any moment and resumed)."""

    def handler(signum, frame):
        for s in (signal.SIGINT, signal.SIGTERM):
            signal.signal(s, lambda n, f: os._exit(128 + n))
        _signalled.append(signum)
        raise Stopped(signum)

    def unraisable(info) -> None:  # Stopped lost in a finalizer: raised again, so not a traceback
        if not isinstance(info.exc_value, Stopped):
            default_unraisable(info)

    default_unraisable = sys.unraisablehook
    sys.unraisablehook = unraisable
    for s in (signal.SIGINT, signal.SIGTERM):
        signal.signal(s, handler)


def raise_if_signalled() -> None:
    """Raise :class:`Stopped` again for a signal already caught: Python drops an exception
    raised inside a finalizer (``__del__``, as llvmlite's run during garbage collection), so the
    loops call this at each step to stop all the same."""
    if _signalled:
        raise Stopped(_signalled[0])


def _plain_rng_states(rng: np.random.Generator) -> dict[str, Any]:
    """Python's, numpy's, torch's and ``rng``'s states as plain data and tensors (weights_only-safe)."""
    name, keys, pos, has_gauss, cached = np.random.get_state()
    return {"python": random.getstate(),
            "numpy": (str(name), [int(k) for k in keys], int(pos), int(has_gauss), float(cached)),
            "torch": torch.get_rng_state(),
            "generator": rng.bit_generator.state}


def _restore_rng_states(states: dict[str, Any], rng: np.random.Generator) -> None:
    """The inverse of :func:`_plain_rng_states` (also reads numpy states stored as arrays)."""
    version, internal, gauss = states["python"]
    random.setstate((version, tuple(internal), gauss))
    name, keys, pos, has_gauss, cached = states["numpy"]
    np.random.set_state((name, np.asarray(keys, dtype=np.uint32), int(pos), int(has_gauss), float(cached)))
    torch.set_rng_state(states["torch"])
    rng.bit_generator.state = states["generator"]


# ----- the trainer side ------------------------------------------------------------------------


def git_commit() -> str:
    """The commit of the checkout this code runs from; ``unknown`` for an installed copy (whose
    site-packages may sit inside someone else's repository: that commit is not this code's)."""
    root = Path(__file__).resolve().parents[1]
    try:
        out = subprocess.run(["git", "rev-parse", "--show-toplevel", "HEAD"], capture_output=True, text=True,
                             timeout=5, cwd=root)
        lines = out.stdout.split()
        if len(lines) == 2 and Path(lines[0]).resolve() == root:
            return lines[1]
        return "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def usable_cpus() -> int:
    """The cores this process may run on (its affinity where the system tells it)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


class Run:
    """The trainer process of a run::

        run_dir/
          config.yaml          resolved config (+ git commit) of the run
          checkpoints/         CheckpointStore: ckpt_<step>.pt (model + full trainer state), best.pt
          replay/              ReplayStore: shard_<worker>_<seq>.npz, games_<worker>.txt
          resumes.log          one line per resume with changed settings
          tb/                  TensorBoard events (training.metrics lists the tags)
          eval/                evaluations (training.gating): ledger.json, frozen/, arena results

    Workers (``selfplay.workers`` processes; 0 = self-play inside the trainer process, for tiny
    runs and tests) poll the checkpoint store for the newest network and write shards. The
    trainer trains while ``samples_trained <= samples_per_position * positions_in_replay`` and
    publishes a checkpoint every ``checkpoint_every`` steps. On resume the newest readable
    checkpoint restores model, optimiser, step and RNG states (stored as plain data and tensors,
    loadable with ``torch.load(weights_only=True)``); replay shards on disk are kept. Before
    writing anything, :func:`training.resume.check_resume` compares the new settings with the
    saved ones (``config.yaml``, else the newest checkpoint's): changes of the network or of the
    data's meaning are refused, the others recorded in ``resumes.log``. SIGINT and SIGTERM stop
    the trainer cleanly (:func:`stop_on_signals`: workers stopped, TensorBoard flushed); workers
    ignore SIGINT and are stopped by the trainer."""

    def __init__(self, cfg: RunConfig, resolved_config: dict, log=print,
                 parent: tuple[Parent, dict[str, Any]] | None = None):
        self.cfg = cfg
        self.log = log
        cfg.run_dir.mkdir(parents=True, exist_ok=True)
        layout = RunLayout(cfg.run_dir)
        self.ckpts = CheckpointStore(layout.checkpoints)
        # a damaged shard: one warning in the run's log, counted (replay/damaged_shards)
        self.replay = ReplayStore(layout.replay, warn=lambda text: self.log(f"warning: {text}"))
        self.device = pick_device(cfg.device)
        if self.device.type == "cpu" and cfg.selfplay.workers > 0:
            limit_threads()  # the cores belong to the workers: spinning threads stall all
        self.resolved_config = resolved_config
        self.rng = np.random.default_rng(cfg.seed)
        seed_everything(cfg.seed)
        from models.gnn import HiveGNN

        self.model = HiveGNN(cfg.model)
        self.trainer = Trainer(self.model, cfg.train, self.device, cfg.max_legal,
                               compile=cfg.compile)
        self.seen_shards: set[str] = set()
        self.trained = 0  # steps trained by this process (0: final.pt, if there, is still current)
        self._warned_draws = False
        self.selfplay: SelfPlayBackend | None = None  # while run() runs
        self.parent: Parent | None = None  # the network the run started from (train.init_from)
        self._eval_spent = 0.0  # evaluation seconds since the training clock last advanced
        # the stage of cfg.stages the trainer's network has reached, and the settings in force there
        self.stage, self.now = 0, cfg.staged(0)
        self.resumed_from = self._resume(parent)
        self.stage, self.now = cfg.stage_at(self.trainer.step), cfg.staged(self.trainer.step)
        if self.stage:
            since = cfg.stages[self.stage - 1].at_step
            settings = ", ".join(f"{k} {v}" for k, v in self.now.stage_settings().items())
            self.log(f"in stage {self.stage} of {len(cfg.stages)} (from step {since}): {settings}")
        # Steps after the checkpoint resumed from are trained (and logged) again: purge them.
        self.metrics = Metrics(layout.tb, purge_step=self.trainer.step + 1)
        self.metrics.config(resolved_config, self.trainer.step)
        inference = describe_inference(cfg, self.model, self.device)
        self.log(f"self-play inference: {inference}")
        self.metrics.text("inference", inference, self.trainer.step)
        self._recall_selfplay()

    # ----- checkpoints ------------------------------------------------------------------------
    def _resume(self, parent: tuple[Parent, dict[str, Any]] | None) -> int | None:
        """Restore the newest readable checkpoint (a damaged one: one warning naming it, and the
        one before it is tried; the steps after the one restored are trained again); without
        one, start (from ``parent``) and publish step 0. Returns the step resumed from, or None."""
        latest = self.ckpts.latest(warn=lambda message: self.log(f"warning: {message}"))
        if latest is None:
            if parent is not None:
                self._start_from(*parent)
            self.publish()
            return None
        step, state = latest
        self.model.load_state_dict(state["model"])
        self.model.to(self.device)
        if "trainer" in state:
            self.trainer.load_state(state["trainer"])
        self.parent = parent_from_lineage(state.get("lineage"))
        rng = state.get("rng")
        if rng:
            _restore_rng_states(rng, self.rng)
        self.seen_shards = set(state.get("seen_shards", []))
        self.log(f"resumed from checkpoint step {step} ({len(self.seen_shards)} shards seen)")
        return step

    def _start_from(self, parent: Parent, state: dict[str, Any]) -> None:
        """A new run from ``parent`` (training.lineage): its weights (and optimiser state with
        ``train.init_optimizer``); the step counter, the replay store and the schedule start anew."""
        self.model.load_state_dict(state["model"])
        self.model.to(self.device)
        if self.cfg.train.init_optimizer:
            self.trainer.load_optimizer(state["trainer"]["optimizer"])
        self.parent = parent
        optimizer = ", its optimiser state" if self.cfg.train.init_optimizer else ""
        version = state["encoding"]["version"]
        if version != ENCODING_VERSION:
            self.log(f"the parent's observations are encoding {version}'s, this run's {ENCODING_VERSION}'s: "
                     f"fine-tuning relearns what changed ({ADAPTED_VERSIONS[version]})")
        self.log(f"started from {parent.path} (step {parent.step}, sha256 {parent.sha256[:12]}, network "
                 f"{parent.generations + 1} of its line): new step counter, fresh replay, "
                 f"learning-rate warm-up again{optimizer}")

    def lineage(self) -> dict[str, Any]:
        """The ``lineage`` of the network as it is now (training.lineage)."""
        t = self.trainer
        return lineage(self.parent, self.cfg.env.game_type, t.step, self.replay.count(), t.seconds / 60,
                       t.eval_seconds / 60, ply_cap=self.now.env.ply_cap,
                       game_types=tuple(self.cfg.selfplay.game_types), device=device_name(self.device),
                       cpus=usable_cpus())

    def publish(self) -> Path:
        return self.ckpts.publish(self.trainer.step, self.model, trainer=self.trainer.state(),
                                  rng=_plain_rng_states(self.rng),
                                  config=self.resolved_config, seen_shards=sorted(self.seen_shards),
                                  git=git_commit(), lineage=self.lineage())

    # ----- logging of self-play --------------------------------------------------------------
    def _read_selfplay(self) -> None:
        """Hand the games of replay shards not seen yet to the metrics (logged at the next checkpoint)."""
        new = [p for p in self.replay.shard_paths() if p.name not in self.seen_shards]
        self.seen_shards.update(p.name for p in new)
        self._feed_selfplay([self.replay.stats(p) for p in new], new=True)

    def _recall_selfplay(self) -> None:
        """Hand the metrics the newest :data:`~training.metrics.RECENT_GAMES` games seen before
        this process started, so that a resumed run's first checkpoint has game statistics
        even before new games arrive."""
        stats, count = [], 0
        for p in reversed(self.replay.shard_paths()):
            if count >= RECENT_GAMES:
                break
            if p.name in self.seen_shards and (s := self.replay.stats(p)):
                stats.append(s)
                count += len(s["game_plies"])
        self._feed_selfplay(stats[::-1], new=False)

    def _feed_selfplay(self, shard_stats: list[dict[str, np.ndarray]], new: bool) -> None:
        """Shards' per-game stats (``ReplayStore.stats``; empty ones skipped) to the metrics."""
        shard_stats = [s for s in shard_stats if s]
        if shard_stats:
            self.metrics.selfplay({k: np.concatenate([s[f"game_{k}"] for s in shard_stats])
                                   for k, _ in GAME_STATS}, new=new)

    # ----- the loop --------------------------------------------------------------------------
    def run(self, evaluate_hook=None) -> None:
        """Train to ``train.steps`` (or ``train.max_minutes``), with self-play from the run's
        backend (training.selfplay_backend)."""
        tc = self.cfg.train
        progress = Progress(tc.steps, self.trainer.step, self.log)
        selfplay = None
        stopping = True  # until the loop ends: an error on the way out must not hide the first
        try:
            selfplay = self.selfplay = make_backend(self.cfg, self.model, self.trainer.step, self.device,
                                                    self.log)
            clock = time.monotonic()
            self._eval_spent = 0.0  # evaluations before the loop (catching up) are not inside it
            while self.trainer.step < tc.steps and not self.trainer.out_of_time():
                raise_if_signalled()
                now = time.monotonic()
                self.trainer.seconds += now - clock - self._eval_spent  # training time only
                self._eval_spent = 0.0
                clock = now
                positions = self.replay.count()
                if positions < tc.min_positions or self.trainer.step >= self._allowed_steps(positions):
                    selfplay.wait()
                    self._read_selfplay()
                    progress.waiting(self.metrics.games, self.replay.count(), self._needed_positions(),
                                     self.trainer.step)
                    continue
                self._train_step(positions, progress, evaluate_hook)
            if self.trainer.out_of_time() and self.trained:
                self.publish()  # the time spent is part of the state a resume reads
            stopping = False
        finally:
            progress.close()
            if selfplay is not None:
                selfplay.close()
            self.metrics.flush(quiet=stopping)

    def _enter_stage(self, step: int) -> None:
        """The network of ``step`` reached a stage of the run's schedule: the trainer's window
        changes now, self-play's settings with the first checkpoint from it (its workers
        restage when they load it); one line in the log, ``train/stage`` in TensorBoard."""
        self.stage, self.now = self.cfg.stage_at(step), self.cfg.staged(step)
        self.log(f"stage {self.stage} of {len(self.cfg.stages)} from step {step}: "
                 f"{self.cfg.stage_changes(step)} (self-play from the next checkpoint)")
        self.metrics.scalar("train/stage", self.stage, step)

    def _allowed_steps(self, positions: int) -> float:
        """Steps the replay store's ``positions`` allow: ``samples_per_position`` each."""
        tc = self.cfg.train
        return positions * tc.samples_per_position / tc.batch_size

    def _needed_positions(self) -> int:
        """Positions the next step needs in the replay store."""
        tc = self.cfg.train
        return max(tc.min_positions, int(self.trainer.step * tc.batch_size / tc.samples_per_position) + 1)

    def _train_step(self, positions: int, progress: Progress, evaluate_hook) -> None:
        """One training step; at a checkpoint step, publish it and evaluate it."""
        tc = self.cfg.train
        batch = self.replay.sample(tc.batch_size, self.now.train.window, self.rng, tc.augment)
        metrics = self.trainer.train_step(batch)
        self.trained += 1
        step = self.trainer.step
        if self.cfg.stage_at(step) != self.stage:
            self._enter_stage(step)
        self.metrics.scalars("train", metrics, step)
        checkpoint = step % tc.checkpoint_every == 0 or step == tc.steps or self.trainer.out_of_time()
        progress.step(step, metrics["total"], positions, checkpoint)
        if not checkpoint:
            return
        self._read_selfplay()
        self.publish()
        self.selfplay.publish(self.model, step)
        self._warn_of_draws(*self.metrics.log_selfplay(step, self.replay.count()))
        self.metrics.scalar("replay/damaged_shards", len(self.replay.damaged), step)
        self.selfplay.check()  # workers that died while the trainer trained: restarted now
        self.selfplay.report(self.metrics, step)
        if evaluate_hook is not None:
            self.evaluate(evaluate_hook, step)
        self.metrics.scalar("time/train_minutes", self.trainer.seconds / 60, step)
        self.metrics.scalar("time/eval_minutes", self.trainer.eval_seconds / 60, step)
        total = self.trainer.seconds + self.trainer.eval_seconds
        self.metrics.scalar("time/total_minutes", total / 60, step)
        self.metrics.flush()

    def _warn_of_draws(self, shares: dict[str, float], games: int) -> None:
        """Say once when nearly every recent self-play game was drawn: their results then teach
        the value head nothing (a run stuck shuffling pieces into repetitions, or capped games
        without adjudication)."""
        draws = shares.get("draw_share", 0.0)
        if self._warned_draws or games < RECENT_GAMES or draws < DRAWN_WARNING:
            return
        self._warned_draws = True
        capped, sp = shares["capped_share"], self.cfg.selfplay
        if capped >= draws / 2:
            hint = ("; selfplay.adjudicate_margin=2 scores games stopped by the cap by queen pressure"
                    if sp.adjudicate_margin <= 0 else "")
        else:
            hint = ("; selfplay.avoid_repetition=true keeps self-play from shuffling into repetitions"
                    if not sp.avoid_repetition else "")
        self.log(f"warning: {draws:.0%} of the last {games} self-play games were draws ({capped:.0%} by the "
                 f"ply cap, the rest by repetition or a double surround): their results teach the network "
                 f"nothing{hint}")

    def evaluate(self, hook, step: int) -> None:
        """Evaluate the checkpoint of ``step`` with self-play paused (evaluation takes the cores
        without starving self-play), its time counted apart from training's
        (``time/eval_minutes``; ``train.max_minutes`` counts it with ``train.budget_includes_eval``)."""
        start = time.monotonic()
        if self.selfplay is not None:
            self.selfplay.pause()
        try:
            hook(self, step)
        finally:
            if self.selfplay is not None:
                self.selfplay.resume()
            spent = time.monotonic() - start
            self.trainer.eval_seconds += spent
            self._eval_spent += spent


def save_final(run: Run) -> Path:
    """The final network as ``final.pt`` beside the checkpoints; kept as it is when this process
    trained nothing and it already holds this step (a rerun of a finished run), so that its
    final match resumes; a damaged one is written again (one warning)."""
    path = RunLayout(run.cfg.run_dir).final
    if run.trained == 0 and path.exists():
        try:
            if read_checkpoint(path).get("step") == run.trainer.step:
                return path
        except CheckpointError as e:
            run.log(f"warning: {e}; writing it again from step {run.trainer.step}")
    return save_checkpoint(path, run.model, step=run.trainer.step, lineage=run.lineage())
