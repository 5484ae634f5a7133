"""Evaluation during and after training: arena matches of checkpoints, logged and gated.

Each evaluated checkpoint plays a gauntlet against fixed baselines (``eval.opponents``) and
the previous best; scores (``eval/score_vs_<opponent>``, ``eval/score_vs_best``) and the
checkpoint's Elo (anchored on ``random`` when it plays) go to TensorBoard. ``best.pt`` is
chosen by the arena: with ``gating: none`` it follows the newest evaluated checkpoint; with
``score`` a checkpoint replaces it after scoring at least ``gate_score`` against it in that
gauntlet; with ``sprt`` after an SPRT (``elo0=0``, ``elo1=20``, at most ``sprt_max_games``)
accepts it as stronger. An unreadable ``best.pt`` counts as absent (one warning): the next
evaluated checkpoint becomes best. With ``eval.ladder`` the baselines also include the ladder's
opponents (``arena.ladder``: random, greedy, alphabeta at each of ``eval.ladder_depths``), and the
checkpoint's Elo relative to alphabeta:depth=2 (``random`` when depth 2 is left out) goes to
``eval/ladder_elo`` with its 95% interval (``eval/ladder_elo_lo``, ``eval/ladder_elo_hi``) and to
``ladder.json`` in the results directory.

Crash safety. An evaluation is tied to the checkpoint's content, never to its step alone::

    run_dir/eval/
      ledger.json                         every evaluation: step, checkpoint hash, state, rival, results
      frozen/ckpt_<step>_<hash>.pt        copies of checkpoints due an evaluation (and of the
      frozen/best_<hash>.pt               best.pt they play), deleted once it is done
      step_<step>_<hash>_<settings>/      the arena's results (gate_... for an SPRT, final_... for
                                          the final match); <settings> hashes the arena's settings

A published checkpoint due an evaluation (every ``eval.every``-th by step) is registered in the
ledger (``due``) and frozen; its rival (the best.pt of that moment) is recorded when it starts
(``started``); after the gating decision and the atomic copy to ``best.pt`` it is ``done``. A
process killed at any point leaves a ledger that :meth:`Evaluation.catch_up` finishes at the next
start, before training on: the arena resumes its results directory (``games.jsonl``), and the
gating decision is taken again against the recorded rival. A re-trained step has another hash,
so it gets its own directory and never reuses the old games.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path
from typing import Any

from arena.arena import run_arena
from arena.config import ArenaConfig
from arena.ladder import ladder_opponents, ladder_result, write_ladder
from arena.report import format_report
from hive_env.files import atomic_open, write_atomic
from hive_env.outcome import DEFAULT_PLY_CAP
from search.checkpoint import CheckpointError, read_checkpoint

from .checkpoint import CheckpointStore
from .config import RunConfig
from .run import Run

LEDGER_VERSION = 1
"""Version of ``eval/ledger.json``."""


def az_spec(path: Path, sims: int, device: str = "cpu") -> str:
    """Player spec of a checkpoint searched with ``sims`` simulations."""
    return f"alphazero:ckpt={path},sims={sims},device={device}"


def file_hash(path: Path) -> str:
    """The first 12 hex digits of the SHA-256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:12]


def copy_atomic(src: Path, dst: Path) -> Path:
    """Copy ``src`` to ``dst`` through a temp file and a rename (readers see all or nothing)."""
    with open(src, "rb") as f, atomic_open(dst, "wb") as g:
        shutil.copyfileobj(f, g, 1 << 20)
    return dst


def settings_hash(config: ArenaConfig) -> str:
    """Six hex digits naming an arena's settings (players, games, openings...)."""
    return hashlib.sha1(json.dumps(config.settings(), sort_keys=True).encode()).hexdigest()[:6]


def opponent_name(spec: str, specs: tuple[str, ...]) -> str:
    """An opponent's name in metric tags: its kind (``random``, ``alphabeta``), or when another of
    ``specs`` has the same kind, the spec with its punctuation as ``_`` (``alphabeta_depth_2``)."""
    kind = spec.split(":")[0]
    if sum(s.split(":")[0] == kind for s in specs) < 2:
        return kind
    return re.sub(r"[^A-Za-z0-9.]+", "_", spec).strip("_")


class Ledger:
    """``eval/ledger.json``: one entry per evaluation, rewritten atomically on every change.

    An entry is a dict: ``step``, ``checkpoint`` (:func:`file_hash`), ``state`` (``due``,
    ``started``, ``done`` or ``dropped``), ``rival`` (hash of the best.pt it plays, or None),
    and when done ``dir`` (its results directory), ``scores`` and ``promoted``.
    """

    def __init__(self, path: Path, log=print):
        self.path = path
        self.entries: list[dict[str, Any]] = []
        if path.is_file():
            try:
                data = json.loads(path.read_text())
                self.entries = list(data["evaluations"])
            except (OSError, ValueError, KeyError, TypeError) as e:
                log(f"warning: {path} is unreadable ({type(e).__name__}); starting a new ledger")

    def save(self) -> None:
        write_atomic(self.path, json.dumps({"version": LEDGER_VERSION, "evaluations": self.entries},
                                           indent=1) + "\n")

    def find(self, step: int, checkpoint: str) -> dict[str, Any] | None:
        """The live (not dropped) entry of this checkpoint, if any."""
        for entry in self.entries:
            if entry["step"] == step and entry["checkpoint"] == checkpoint and entry["state"] != "dropped":
                return entry
        return None

    def unfinished(self) -> list[dict[str, Any]]:
        """Entries ``due`` or ``started``, by step."""
        return sorted((e for e in self.entries if e["state"] in ("due", "started")), key=lambda e: e["step"])

    def done(self) -> dict[int, dict[str, Any]]:
        """The latest finished entry of each step."""
        return {e["step"]: e for e in self.entries if e["state"] == "done"}


class Evaluation:
    """The evaluation hook of a run (see the module docstring)."""

    def __init__(self, cfg: RunConfig, log=print):
        self.cfg = cfg
        self.ev = cfg.eval
        self.keep = cfg.train.keep_checkpoints
        self.log = log
        self.ckpts = CheckpointStore(cfg.run_dir / "checkpoints")
        self.best = self.ckpts.dir / "best.pt"
        self.dir = cfg.run_dir / "eval"
        self.frozen = self.dir / "frozen"
        self.ledger = Ledger(self.dir / "ledger.json", log)
        self._warned_best = False

    # ----- which checkpoints, and the ledger ---------------------------------------------------
    def is_due(self, step: int) -> bool:
        """Whether the checkpoint of ``step`` is evaluated: every ``eval.every``-th published one,
        counted by step (the n-th is the first at or after ``n * train.checkpoint_every``)."""
        every, interval = self.ev.every, self.cfg.train.checkpoint_every
        return every > 0 and step > 0 and -(-step // interval) % every == 0

    def _frozen_ckpt(self, entry: dict[str, Any]) -> Path:
        return self.frozen / f"ckpt_{entry['step']:08d}_{entry['checkpoint']}.pt"

    def _register(self, step: int) -> dict[str, Any]:
        """The ledger entry of the checkpoint now published at ``step``: a new one (``due``, with
        a frozen copy) unless this very checkpoint is registered already."""
        path = self.ckpts.path(step)
        digest = file_hash(path)
        entry = self.ledger.find(step, digest)
        if entry is not None:
            return entry
        entry = {"step": step, "checkpoint": digest, "state": "due", "rival": None}
        copy_atomic(path, self._frozen_ckpt(entry))
        self.ledger.entries.append(entry)
        self.ledger.save()
        return entry

    def _drop(self, entry: dict[str, Any], why: str) -> None:
        entry["state"], entry["reason"] = "dropped", why
        self.ledger.save()
        self.log(f"step {entry['step']}: evaluation dropped: {why}")

    def _clean_frozen(self) -> None:
        """Delete frozen copies no unfinished evaluation needs (and temp files of killed copies)."""
        if not self.frozen.is_dir():
            return
        keep = set()
        for entry in self.ledger.unfinished():
            keep.add(self._frozen_ckpt(entry).name)
            if entry["rival"]:
                keep.add(f"best_{entry['rival']}.pt")
        for p in self.frozen.iterdir():
            if p.name not in keep:
                p.unlink(missing_ok=True)

    def _freeze_best(self) -> str | None:
        """Hash of the current best.pt after freezing a copy; None when there is none or it is
        unreadable (warned once: the next evaluated checkpoint replaces it)."""
        if not self.best.exists():
            return None
        try:
            read_checkpoint(self.best)
        except CheckpointError as e:
            if not self._warned_best:
                self.log(f"warning: ignoring best.pt: {e}; the next evaluated checkpoint becomes best")
                self._warned_best = True
            return None
        digest = file_hash(self.best)
        copy = self.frozen / f"best_{digest}.pt"
        if not copy.is_file():
            copy_atomic(self.best, copy)
        return digest

    # ----- the hooks ----------------------------------------------------------------------------
    def on_checkpoint(self, run: Run, step: int) -> None:
        """Evaluate the checkpoint just published at ``step`` if it is due: a gauntlet against the
        baselines and the previous best, then the gating decision."""
        if self.is_due(step):
            entry = self._register(step)
            if entry["state"] != "done":  # done: this very checkpoint was evaluated before
                self._evaluate(run, entry)
        self.ckpts.prune(self.keep)

    def catch_up(self, run: Run) -> int:
        """Finish the evaluations a stopped process left unfinished (call at start-up, before
        training on); returns how many ran. The checkpoint resumed from is registered first if it
        is due (a process killed between publishing and registering it); evaluations of steps
        after it are dropped (their checkpoints were unreadable: those steps are trained again)."""
        step = run.trainer.step
        if self.is_due(step) and self.ckpts.path(step).is_file():
            self._register(step)
        finished = 0
        for entry in self.ledger.unfinished():
            frozen = self._frozen_ckpt(entry)
            if entry["step"] > step:
                self._drop(entry, f"the run resumed from step {step}; this step is trained again")
            elif not frozen.is_file() or file_hash(frozen) != entry["checkpoint"]:
                self._drop(entry, f"{frozen} is missing or damaged")
            else:
                self.log(f"step {entry['step']}: finishing its evaluation (checkpoint {entry['checkpoint']})")
                self._evaluate(run, entry)
                finished += 1
        self._clean_frozen()
        return finished

    # ----- one evaluation ---------------------------------------------------------------------------
    def _config(self, mode: str, players: tuple[str, ...], games: int, **extra) -> ArenaConfig:
        return ArenaConfig(mode=mode, players=players, games_per_pairing=games,
                           game_type=self.cfg.env.game_type, seed=self.cfg.seed,
                           openings=f"random:{self.ev.openings_plies}",
                           ply_cap=self.cfg.env.ply_cap or DEFAULT_PLY_CAP, **extra)

    def _arena(self, config: ArenaConfig, prefix: str, checkpoint: str):
        """Play (or finish) ``config`` in ``eval/<prefix>_<checkpoint>_<settings>``."""
        out = self.dir / f"{prefix}_{checkpoint}_{settings_hash(config)}"
        anchor = "random" if "random" in config.players else None
        executor = None
        if self.cfg.backend == "ray":  # the games as Ray tasks anywhere on the cluster
            from .ray_arena import ray_executor

            executor = ray_executor(self.cfg.ray, self.log)
        return run_arena(config, out, workers=self.ev.workers, anchor=anchor, progress=False,
                         executor=executor), out

    def _evaluate(self, run: Run, entry: dict[str, Any]) -> None:
        step, sims, device = entry["step"], self.ev.sims, self.cfg.device
        me = az_spec(self._frozen_ckpt(entry), sims, device)
        if entry["state"] == "due":  # the rival is fixed when the evaluation starts
            entry["rival"], entry["state"] = self._freeze_best(), "started"
            self.ledger.save()
        rival = None
        if entry["rival"]:
            rival_path = self.frozen / f"best_{entry['rival']}.pt"
            if rival_path.is_file():
                rival = az_spec(rival_path, sims, device)
            else:
                self.log(f"step {step}: the frozen best.pt {rival_path.name} is gone; no rival")
        baselines = self.ev.opponents
        if self.ev.ladder:
            baselines = ladder_opponents(self.ev.ladder_depths, extra=baselines)
        opponents = (*baselines, rival) if rival else baselines
        report, out = self._arena(self._config("gauntlet", (me, *opponents), self.ev.games),
                                  f"step_{step:08d}", entry["checkpoint"])
        scores = {}
        for _, j, stats in report.pairings:
            spec = report.config.players[j]
            name = "best" if spec == rival else opponent_name(spec, baselines)
            scores[name] = stats.score
            run.metrics.scalar(f"eval/score_vs_{name}", stats.score, step)
        if report.fit is not None and "random" in opponents:
            run.metrics.scalar("eval/elo_vs_random", float(report.fit.elo[0]), step)
        line = ", ".join(f"{k} {v:.2f}" for k, v in scores.items())
        if self.ev.ladder:
            ladder = ladder_result(report)
            write_ladder(ladder, out)
            for tag, value in (("", ladder.elo), ("_lo", ladder.lo), ("_hi", ladder.hi)):
                run.metrics.scalar(f"eval/ladder_elo{tag}", value, step)
            line += f"; ladder Elo {ladder.elo:+.0f} [{ladder.lo:+.0f}, {ladder.hi:+.0f}] vs {ladder.anchor}"
        self.log(f"step {step}: {line}")
        promoted = self._promote(entry, me, rival, scores.get("best"))
        run.metrics.scalar("eval/promoted", float(promoted), step)
        if promoted:
            copy_atomic(self._frozen_ckpt(entry), self.best)
            self.log(f"step {step}: best.pt is now this checkpoint")
        entry.update(state="done", dir=out.name, scores=scores, promoted=promoted)
        self.ledger.save()
        self._clean_frozen()

    def _promote(self, entry: dict[str, Any], me: str, rival: str | None,
                 score_vs_best: float | None) -> bool:
        """The gating decision (see the module docstring)."""
        gating = self.ev.gating
        if gating == "none" or rival is None:
            return True
        if gating == "score":
            return score_vs_best is not None and score_vs_best >= self.ev.gate_score
        config = self._config("sprt", (me, rival), self.ev.sprt_max_games, elo0=0.0, elo1=20.0)
        report, _ = self._arena(config, f"gate_{entry['step']:08d}", entry["checkpoint"])
        return report.decision == "H1"

    def final_match(self, path: Path, run: Run) -> Any:
        """The final network against ``eval.final_opponents``; logs and returns the report.

        The printed lines name players by their short names (``az@final``); a short run (the
        smoke preset, or fewer than :data:`STRENGTH_STEPS` steps) says that it checks the pipeline,
        not strength, and where strength is measured."""
        me = az_spec(path, self.ev.final_sims or self.ev.sims, self.cfg.device)
        config = self._config("gauntlet", (me, *self.ev.final_opponents), self.ev.final_games)
        report, _ = self._arena(config, "final", file_hash(path))
        self.log(format_report(report))
        names = report.names
        for _, j, stats in report.pairings:
            self.log(f"final score vs {names[j]}: {stats.score:.3f} over {stats.games} games "
                  f"({_count(stats.wins, 'win')}, {_count(stats.draws, 'draw')}, "
                  f"{_count(stats.losses, 'loss')})")
        steps = self.cfg.train.steps
        if self.cfg.name == "smoke" or steps < STRENGTH_STEPS:
            what = "the smoke preset" if self.cfg.name == "smoke" else "a short run"
            self.log(f"note: this is {what} ({steps} training steps): it checks that the pipeline runs\n"
                  f"      end to end, not playing strength. For strength: hive-train experiment=cpu (beats\n"
                  f"      random and greedy), then hive-arena ladder \"alphazero:ckpt={path},sims=32\"")
        return report


STRENGTH_STEPS = 1000
"""Training steps below which the final match is reported as a pipeline check, not a strength
measurement (the ``cpu`` preset trains 4000)."""


def _count(n: int, word: str) -> str:
    """``"1 loss"``, ``"0 wins"``, ``"2 draws"``."""
    if n == 1:
        return f"1 {word}"
    return f"{n} {word}es" if word.endswith("s") else f"{n} {word}s"
