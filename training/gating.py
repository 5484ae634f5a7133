"""Gating during and after training: arena matches of checkpoints, logged, and the choice of best.pt.

Each evaluated checkpoint plays a gauntlet against fixed baselines (``eval.opponents``, the
ladder's rungs, nokamute) and the previous best; its scores and Elo go to TensorBoard once decided,
and :func:`promote` chooses ``best.pt`` (``eval.gating``). Each evaluation is tied to the
checkpoint's content in ``eval/ledger.json``, so a killed process loses none (:class:`Gatekeeper`).

See docs/training.md (evaluations survive crashes) and docs/reliability.md.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, ClassVar

from arena.arena import run_arena
from arena.config import ArenaConfig, ArenaError
from arena.executor import Executor
from arena.ladder import (
    LadderResult,
    ladder_anchor,
    ladder_config,
    ladder_opponents,
    ladder_result,
    write_ladder,
)
from arena.report import ArenaReport, PairingStats
from hive_env.files import atomic_open, sha256_file, write_atomic
from hive_env.outcome import DEFAULT_PLY_CAP
from hive_zero.run_layout import (
    FROZEN,
    FROZEN_BEST_PATTERN,
    RunLayout,
    frozen_best_name,
    frozen_name,
    frozen_step,
)
from players.engines import missing_line, nokamute_spec
from players.registry import spec_option
from search.checkpoint import CheckpointError, read_checkpoint

from .checkpoint import CheckpointStore
from .config import RunConfig
from .metrics import Metrics
from .run import Run

Log = Callable[[str], None]

# ----- files -----------------------------------------------------------------------------------


def az_spec(path: Path, sims: int, device: str = "cpu") -> str:
    """Player spec of a checkpoint searched with ``sims`` simulations."""
    return f"alphazero:ckpt={path},sims={sims},device={device}"


def file_hash(path: Path) -> str:
    """The first 12 hex digits of the SHA-256 of a file's bytes."""
    return sha256_file(path)[:12]


def copy_atomic(src: Path, dst: Path) -> Path:
    """Copy ``src`` to ``dst`` through a temp file and a rename (readers see all or nothing)."""
    with open(src, "rb") as f, atomic_open(dst, "wb") as g:
        shutil.copyfileobj(f, g, 1 << 20)
    return dst


def settings_hash(config: ArenaConfig) -> str:
    """Six hex digits naming an arena's settings (players, games, openings...)."""
    return hashlib.sha1(json.dumps(config.settings(), sort_keys=True).encode()).hexdigest()[:6]


# ----- the ledger ------------------------------------------------------------------------------

LEDGER_VERSION = 1
"""Version of ``eval/ledger.json``."""


class EvalState(StrEnum):
    """Where an evaluation stands; the values are ledger.json's ``state`` strings."""

    DUE = "due"  # registered, its checkpoint frozen
    STARTED = "started"  # its rival (the best.pt of that moment) fixed
    DONE = "done"  # decided, best.pt updated
    DROPPED = "dropped"  # given up (``reason``): its step is trained again or its copy is damaged


@dataclass
class LedgerEntry:
    """One evaluation in ``eval/ledger.json``.

    ``checkpoint`` is the :func:`file_hash` of the evaluated checkpoint, ``rival`` that of the
    best.pt it plays (None: none). A dropped entry has a ``reason``; a done one its results
    directory ``dir`` (under ``eval/``), its ``scores`` by opponent name and ``promoted``.
    """

    step: int
    checkpoint: str
    state: EvalState = EvalState.DUE
    rival: str | None = None
    reason: str | None = None
    dir: str | None = None
    scores: dict[str, float] | None = None
    promoted: bool | None = None

    OPTIONAL: ClassVar[tuple[str, ...]] = ("reason", "dir", "scores", "promoted")
    """Keys written only when set, in this order (after step, checkpoint, state and rival)."""

    @property
    def unfinished(self) -> bool:
        """Due or started: a process stopped before its decision."""
        return self.state in (EvalState.DUE, EvalState.STARTED)

    def to_json(self) -> dict[str, Any]:
        """The entry as ledger.json holds it (the key order of LEDGER_VERSION 1)."""
        data = {"step": self.step, "checkpoint": self.checkpoint, "state": self.state.value,
                "rival": self.rival}
        data.update((key, getattr(self, key)) for key in self.OPTIONAL if getattr(self, key) is not None)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LedgerEntry:
        """An entry read from ledger.json; KeyError or ValueError when it is not one."""
        return cls(data["step"], data["checkpoint"], EvalState(data["state"]), data["rival"],
                   **{key: data.get(key) for key in cls.OPTIONAL})


_HASH_RE = re.compile(r"^[0-9a-f]{12}$")
_FROZEN_BEST_RE = re.compile(rf"/{FROZEN}/{FROZEN_BEST_PATTERN}\b")
_RESULTS_RE = re.compile(r"^step_(\d{8})_([0-9a-f]{12})_[0-9a-f]{6}$")
"""The name of an evaluation's results directory (its gauntlet): step, checkpoint hash, settings."""


def _check_entry(entry: LedgerEntry) -> LedgerEntry:
    """``entry`` when its step and hashes have their types and forms; ValueError when not (a
    damaged file that still parses as JSON)."""
    if (isinstance(entry.step, bool) or not isinstance(entry.step, int) or entry.step < 0
            or not isinstance(entry.checkpoint, str) or not _HASH_RE.match(entry.checkpoint)
            or not (entry.rival is None or (isinstance(entry.rival, str) and _HASH_RE.match(entry.rival)))):
        raise ValueError(f"not a ledger entry: step {entry.step!r}, checkpoint {entry.checkpoint!r}")
    return entry


def _named(lost: list[str], most: int = 5) -> str:
    """``none``, or the count and the first ``most`` of ``lost``."""
    if not lost:
        return "none"
    more = f"; and {len(lost) - most} more" if len(lost) > most else ""
    return f"{len(lost)} ({'; '.join(lost[:most])}{more})"


def _steps(entries: list[LedgerEntry], most: int = 10) -> str:
    """The entries' steps (``none``; past ``most``, the first and last few around ``...``)."""
    steps = [str(e.step) for e in entries]
    if len(steps) > most:
        steps = [*steps[: most // 2], "...", *steps[-(most // 2):]]
    return ", ".join(steps) or "none"


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _canonical(data: Any) -> bytes:
    """The bytes a checksum is taken over: JSON with sorted keys and no spaces."""
    return json.dumps(data, sort_keys=True, separators=(",", ":")).encode()


class ChecksumError(ValueError):
    """A well-formed file whose checksum does not match its content (a flipped digit)."""


def _why(e: Exception) -> str:
    """Why a file is damaged, for a warning: a checksum's own words, else the error's kind."""
    return str(e) if isinstance(e, ChecksumError) else type(e).__name__


class Ledger:
    """``eval/ledger.json``: one :class:`LedgerEntry` per evaluation, rewritten atomically on
    every change, with the SHA-256 of its bytes in ``ledger.json.sha256`` beside it (written
    first, with the digest of the version it replaces: a kill between the two writes leaves a
    ledger whose digest is listed). A ledger whose digest is not listed (a flipped digit that
    leaves it JSON) is damaged like an unreadable one; without the file (a run from before it)
    the ledger is read unchecked. A damaged ledger (truncated, bytes flipped: not JSON, entries
    without their fields and forms, or the checksum) is moved aside to ``ledger.json.damaged``
    and replaced by a new one (``damaged``: why; :class:`Gatekeeper` restores it), with one
    warning when ``log`` is given (None: the caller reports it)."""

    def __init__(self, path: Path, log: Log | None = print):
        self.path = path
        self.sums = path.with_name(path.name + ".sha256")
        self.entries: list[LedgerEntry] = []
        self.damaged: str | None = None
        self.kept: str | None = None
        self._digest: str | None = None  # of the bytes at ``path``, as read or last written
        if path.is_file():
            try:
                self._read()
            except (OSError, ValueError, KeyError, TypeError) as e:
                self._move_aside(_why(e))
                if log is not None:
                    log(f"warning: {path} is unreadable ({self.damaged}; {self.kept}); starting a new ledger")

    def _read(self) -> None:
        """Read the entries, the checksum checked when ``ledger.json.sha256`` is there."""
        data = self.path.read_bytes()
        entries = [_check_entry(LedgerEntry.from_json(e)) for e in json.loads(data)["evaluations"]]
        digest = _sha256(data)
        if self.sums.is_file() and digest not in self.sums.read_text(errors="replace").split():
            raise ChecksumError(f"its SHA-256 is not in {self.sums.name}")
        self.entries, self._digest = entries, digest

    def _move_aside(self, why: str) -> None:
        self.damaged, self.entries, self._digest = why, [], None
        aside = self.path.with_name(self.path.name + ".damaged")
        try:
            os.replace(self.path, aside)
            self.kept = f"moved to {aside.name}"
        except OSError:
            self.kept = "left as it is"

    def save(self) -> None:
        """Write the ledger atomically, its digest (and the previous one) first."""
        entries = [e.to_json() for e in self.entries]
        text = json.dumps({"version": LEDGER_VERSION, "evaluations": entries}, indent=1) + "\n"
        digest = _sha256(text.encode())
        write_atomic(self.sums, "".join(f"{d}\n" for d in dict.fromkeys((self._digest, digest)) if d))
        write_atomic(self.path, text)
        self._digest = digest

    def add(self, entry: LedgerEntry) -> LedgerEntry:
        self.entries.append(entry)
        self.save()
        return entry

    def find(self, step: int, checkpoint: str) -> LedgerEntry | None:
        """The live (not dropped) entry of this checkpoint, if any."""
        for entry in self.entries:
            if entry.step == step and entry.checkpoint == checkpoint and entry.state != EvalState.DROPPED:
                return entry
        return None

    def unfinished(self) -> list[LedgerEntry]:
        """Entries ``due`` or ``started``, by step."""
        return sorted((e for e in self.entries if e.unfinished), key=lambda e: e.step)

    def done(self) -> dict[int, LedgerEntry]:
        """The latest finished entry of each step."""
        return {e.step: e for e in self.entries if e.state == EvalState.DONE}


# ----- the record of an evaluation, in its results directory -----------------------------------

RECORD = "evaluation.json"
"""The record of a decided evaluation in its results directory (``eval/step_<step>_<hash>_<settings>/``)."""

RECORD_VERSION = 1
"""Version of :data:`RECORD`."""


def write_record(out: Path, entry: LedgerEntry, seq: int) -> Path:
    """Write the record of the done ``entry`` into its results directory ``out``, atomically:
    ``{"version", "seq", "evaluation": entry.to_json(), "sha256"}``, ``seq`` ordering the
    decisions of the run, ``sha256`` over the canonical JSON of ``seq`` and ``evaluation``."""
    body = {"seq": seq, "evaluation": entry.to_json()}
    data = {"version": RECORD_VERSION, **body, "sha256": _sha256(_canonical(body))}
    return write_atomic(out / RECORD, json.dumps(data, indent=1) + "\n")


def read_record(out: Path) -> tuple[int, LedgerEntry]:
    """The ``seq`` and done entry recorded in the results directory ``out``.

    Raises:
        OSError: no record (an unfinished evaluation, or one decided before records existed).
        ValueError, KeyError, TypeError: a damaged record: not JSON, its checksum, its fields,
            or an entry that is not the done evaluation of this directory.
    """
    data = json.loads((out / RECORD).read_bytes())
    body = {"seq": data["seq"], "evaluation": data["evaluation"]}
    if data["sha256"] != _sha256(_canonical(body)):
        raise ChecksumError("its checksum does not match")
    entry = _check_entry(LedgerEntry.from_json(data["evaluation"]))
    m = _RESULTS_RE.match(out.name)
    if (not m or (int(m.group(1)), m.group(2)) != (entry.step, entry.checkpoint) or entry.dir != out.name
            or entry.state != EvalState.DONE or not isinstance(entry.promoted, bool)
            or not isinstance(entry.scores, dict) or isinstance(data["seq"], bool)
            or not isinstance(data["seq"], int)):
        raise ValueError(f"not the done evaluation of {out.name}")
    return data["seq"], entry


# ----- the decision and the metrics (pure) -----------------------------------------------------


def promote(gating: str, has_rival: bool, score_vs_best: float | None, gate_score: float,
            sprt_decision: str | None = None) -> bool:
    """Whether an evaluated checkpoint becomes best.pt (``gating`` is ``eval.gating``).

    Without a rival (no readable best.pt) or with ``none`` it always does; with ``score`` when
    it scored at least ``gate_score`` against best.pt; with ``sprt`` when the SPRT against best.pt
    accepted H1 (``sprt_decision == "H1"``; H0 or undecided at its most games: not)."""
    if gating == "none" or not has_rival:
        return True
    if gating == "score":
        return score_vs_best is not None and score_vs_best >= gate_score
    if gating == "sprt":
        return sprt_decision == "H1"
    raise ValueError(f"unknown gating {gating!r}")


def opponent_name(spec: str, specs: tuple[str, ...]) -> str:
    """An opponent's name in metric tags: the spec's ``name=`` (``nokamute``), else its kind
    (``random``, ``alphabeta``), or when another of ``specs`` has the same kind, the spec with its
    punctuation as ``_`` (``alphabeta_depth_2``)."""
    if name := spec_option(spec, "name"):
        return re.sub(r"[^A-Za-z0-9.]+", "_", name).strip("_")
    kind = spec.split(":")[0]
    if sum(s.split(":")[0] == kind for s in specs) < 2:
        return kind
    return re.sub(r"[^A-Za-z0-9.]+", "_", spec).strip("_")


def gauntlet_stats(report: ArenaReport, rival: str | None,
                   baselines: tuple[str, ...]) -> dict[str, PairingStats]:
    """The evaluated checkpoint's results against each opponent (counts, score and its 95%
    interval), by name (``best`` for the rival)."""
    players = report.config.players
    return {"best" if players[j] == rival else opponent_name(players[j], baselines): stats
            for _, j, stats in report.pairings}


def elo_vs_random(report: ArenaReport) -> tuple[float, float, float] | None:
    """The first player's Elo relative to ``random`` (the anchor) and its 95% interval, when
    random played."""
    if report.fit is None or "random" not in report.config.players:
        return None
    return float(report.fit.elo[0]), float(report.fit.lo[0]), float(report.fit.hi[0])


CLOCK_TAGS = ("eval/ladder_elo", "eval/score_vs_nokamute")
"""Evaluation scalars logged a second time as ``clock/<name>`` with the run's clock (training plus
evaluation seconds) as TensorBoard's step: the strength curve by wall clock during the run."""
PROMOTED_TAG = "eval/promoted"
"""TensorBoard tag of the gating decision (1: the checkpoint became best.pt)."""


def gauntlet_scalars(stats: dict[str, PairingStats], elo: tuple[float, float, float] | None,
                     ladder: LadderResult | None, prefix: str = "eval") -> dict[str, float]:
    """The TensorBoard scalars of a gauntlet by tag, in logging order: per opponent
    ``<prefix>/score_vs_<name>`` with its 95% interval (``_lo``, ``_hi``) and
    ``<prefix>/games_vs_<name>``; ``<prefix>/elo_vs_random``, ``_lo``, ``_hi`` (``elo``: when
    random played) and ``<prefix>/ladder_elo``, ``_lo``, ``_hi`` (with the ladder). With
    :data:`PROMOTED_TAG`, every tag an evaluation writes."""
    scalars: dict[str, float] = {}
    for name, s in stats.items():
        scalars.update({f"{prefix}/score_vs_{name}": s.score, f"{prefix}/score_vs_{name}_lo": s.score_lo,
                        f"{prefix}/score_vs_{name}_hi": s.score_hi, f"{prefix}/games_vs_{name}": s.games})
    if elo is not None:
        scalars.update(zip((f"{prefix}/elo_vs_random", f"{prefix}/elo_vs_random_lo",
                            f"{prefix}/elo_vs_random_hi"), elo, strict=True))
    if ladder is not None:
        scalars.update({f"{prefix}/ladder_elo": ladder.elo, f"{prefix}/ladder_elo_lo": ladder.lo,
                        f"{prefix}/ladder_elo_hi": ladder.hi})
    return scalars


def gauntlet_line(stats: dict[str, PairingStats], ladder: LadderResult | None) -> str:
    """``random 0.75 of 4 [0.28, 0.96], best 0.50 of 4 [0.13, 0.87]; ladder Elo +35 [-40, +110]
    vs alphabeta:depth=2``: each score with its games and 95% interval."""
    line = ", ".join(f"{k} {s.score:.2f} of {s.games} [{s.score_lo:.2f}, {s.score_hi:.2f}]"
                     for k, s in stats.items())
    if ladder is not None:
        line += f"; ladder Elo {ladder.elo:+.0f} [{ladder.lo:+.0f}, {ladder.hi:+.0f}] vs {ladder.anchor}"
    return line


# ----- the gatekeeper --------------------------------------------------------------------------


class Gatekeeper:
    """Evaluates a run's published checkpoints in the arena and keeps best.pt (docs/training.md).
    ``executor`` plays the arena's games (None: in this process or a process pool; the caller
    passes ``training.ray_backend.ray_executor`` for ``backend=ray``).

    An evaluation is tied to the checkpoint's content, never to its step alone::

        run_dir/eval/
          ledger.json                     every evaluation: step, checkpoint hash, state, rival, results
          ledger.json.sha256              the SHA-256 of ledger.json (and of the one it replaced)
          frozen/ckpt_<step>_<hash>.pt    copies of checkpoints due an evaluation (and of the
          frozen/best_<hash>.pt           best.pt they play), deleted once it is done
          step_<step>_<hash>_<settings>/  the arena's results (gate_... for an SPRT, final_... for
                                          the final match); <settings> hashes the arena's settings
            evaluation.json               the record of the decided evaluation: its ledger entry
                                          (``seq``: the order decided; ``sha256``): write_record

    A published checkpoint due an evaluation (every ``eval.every``-th by step) is registered in
    the ledger (``due``) and frozen; its rival (the best.pt of that moment) is recorded when it
    starts (``started``); after the gating decision and the atomic copy to ``best.pt`` it is
    ``done``. A process killed at any point leaves a ledger that :meth:`catch_up` finishes at the
    next start: the arena resumes its results directory (``games.jsonl``), and the decision is
    taken again against the recorded rival. A re-trained step has another hash, so it gets its own
    directory and never reuses the old games. An unreadable ``best.pt`` counts as absent (one
    warning): the next evaluated checkpoint becomes best. A damaged ledger is restored from the
    records of the results directories (:meth:`_restore_ledger`); a results directory the arena
    refuses is moved aside (``<dir>.damaged``, one warning) and its games are played again.
    Scores, Elo and ``promoted`` are logged at the checkpoint's step once its evaluation is
    decided, so one finished after a restart is logged once; the final match logs the same under
    ``final/``."""

    def __init__(self, cfg: RunConfig, log: Log = print, executor: Executor | None = None):
        self.cfg = cfg
        self.ev = cfg.eval
        self.log = log
        self.executor = executor
        layout = RunLayout(cfg.run_dir)
        self.ckpts = CheckpointStore(layout.checkpoints)
        self.best = layout.best
        self.dir = layout.eval
        self.frozen = layout.frozen
        self.ledger = Ledger(layout.ledger, log=None)  # damaged: one warning, after restoring
        self._warned_best = False
        self.nokamute = nokamute_spec(self.ev.nokamute_time) if self.ev.nokamute_time else None
        if self.ev.nokamute_time and self.nokamute is None:
            log(f"evaluation: {missing_line()}")
        if self.ledger.damaged:
            self._restore_ledger()

    # ----- the hooks ---------------------------------------------------------------------------
    def on_checkpoint(self, run: Run, step: int) -> None:
        """Evaluate the checkpoint just published at ``step`` if it is due: a gauntlet against the
        baselines and the previous best, then the gating decision."""
        if self.is_due(step):
            entry = self._register(step)
            if entry.state != EvalState.DONE:  # done: this very checkpoint was evaluated before
                self._evaluate(run, entry)
        self.ckpts.prune(self.cfg.train.keep_checkpoints)

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
            if entry.step > step:
                self._drop(entry, f"the run resumed from step {step}; this step is trained again")
            elif not frozen.is_file() or file_hash(frozen) != entry.checkpoint:
                self._drop(entry, f"{frozen} is missing or damaged")
            else:
                self.log(f"step {entry.step}: finishing its evaluation (checkpoint {entry.checkpoint})")
                self._evaluate(run, entry)
                finished += 1
        self._clean_frozen()
        return finished

    def final_match(self, path: Path, metrics: Metrics | None = None, step: int = 0) -> ArenaReport:
        """Play (or finish) the final network at ``path`` against ``eval.final_opponents`` in
        ``eval/final_<hash>_<settings>``; returns the report (the caller prints it). When this
        call played games, its scalars go to ``metrics`` under ``final/`` at ``step`` (a rerun
        of a finished match logs nothing again)."""
        me = az_spec(path, self.ev.final_sims or self.ev.sims, self.cfg.device)
        config = self._arena_config("gauntlet", (me, *self.ev.final_opponents), self.ev.final_games)
        played: list[dict[str, Any]] = []
        report, _ = self._arena(config, "final", file_hash(path), on_record=played.append)
        if metrics is not None and played:
            stats = gauntlet_stats(report, None, self.ev.final_opponents)
            for tag, value in gauntlet_scalars(stats, elo_vs_random(report), None, "final").items():
                metrics.scalar(tag, value, step)
        return report

    def final_ladder(self, path: Path, metrics: Metrics | None = None, step: int = 0) -> LadderResult | None:
        """With ``eval.final_ladder``: the final network at ``path`` plays (or finishes) the ladder
        (``arena.ladder``: its fixed seed and openings, the same for every run, so that runs
        compare) in ``eval/ladder_<hash>_<settings>``; the result is also written to
        ``<run_dir>/ladder/ladder.json`` and its Elo to ``metrics`` (``final/ladder_elo``, with
        ``_lo`` and ``_hi``). None without ``eval.final_ladder``."""
        if not self.ev.final_ladder:
            return None
        me = az_spec(path, self.ev.final_sims or self.ev.sims, self.cfg.device)
        config = ladder_config(me, self.ev.final_ladder_depths, games_per_pairing=self.ev.final_ladder,
                               game_type=self.cfg.env.game_type)
        out = self.dir / f"ladder_{file_hash(path)}_{settings_hash(config)}"
        report = self._play(config, out, ladder_anchor(config.players))
        result = ladder_result(report)
        write_ladder(result, out)
        write_ladder(result, RunLayout(self.cfg.run_dir).ladder)
        if metrics is not None:
            for tag, value in (("elo", result.elo), ("elo_lo", result.lo), ("elo_hi", result.hi)):
                metrics.scalar(f"final/ladder_{tag}", value, step)
        return result

    # ----- which checkpoints, and the ledger ---------------------------------------------------
    def is_due(self, step: int) -> bool:
        """Whether the checkpoint of ``step`` is evaluated: every ``eval.every``-th published one,
        counted by step (the n-th is the first at or after ``n * train.checkpoint_every``)."""
        every, interval = self.ev.every, self.cfg.train.checkpoint_every
        return every > 0 and step > 0 and -(-step // interval) % every == 0

    def _frozen_ckpt(self, entry: LedgerEntry) -> Path:
        return self.frozen / frozen_name(entry.step, entry.checkpoint)

    def _frozen_best(self, digest: str) -> Path:
        return self.frozen / frozen_best_name(digest)

    def _register(self, step: int) -> LedgerEntry:
        """The ledger entry of the checkpoint now published at ``step``: a new one (``due``, with
        a frozen copy) unless this very checkpoint is registered already."""
        path = self.ckpts.path(step)
        digest = file_hash(path)
        entry = self.ledger.find(step, digest)
        if entry is not None:
            return entry
        entry = LedgerEntry(step, digest)
        copy_atomic(path, self._frozen_ckpt(entry))
        return self.ledger.add(entry)

    # ----- a damaged ledger, restored -----------------------------------------------------------
    def _restore_ledger(self) -> None:
        """A new ledger after a damaged one, from the run directory, with one warning: every
        evaluation with a whole record in its results directory (:func:`read_record`), in the
        order decided; best.pt as the last promoted evaluation (:meth:`_agree_with_best`); each
        frozen checkpoint not decided yet (its hash checked) due again (its games resume from
        its results directory). The results directories without a whole record are named in
        the warning: their evaluations' history is lost (runs from before the records)."""
        frozen = self._frozen_due()
        restored, lost = self._read_records({(e.step, e.checkpoint) for e in frozen})
        decided = {(e.step, e.checkpoint) for e in restored}
        due = [self._restore_rival(e) for e in frozen if (e.step, e.checkpoint) not in decided]
        best, from_best = self._agree_with_best(restored, due)
        self.ledger.entries = restored + from_best + due
        self.ledger.save()
        steps = _steps(restored)
        self.log(f"warning: {self.ledger.path} is unreadable ({self.ledger.damaged}; {self.ledger.kept}); "
                 f"restored {len(restored)} finished evaluation(s) (steps {steps}), {len(due)} unfinished "
                 f"due again; {best}; not restorable: {_named(lost)}")

    def _results_dirs(self) -> list[Path]:
        """The results directories of the run's gauntlets (``step_<step>_<hash>_<settings>``)."""
        if not self.dir.is_dir():
            return []
        return sorted(p for p in self.dir.iterdir() if p.is_dir() and _RESULTS_RE.match(p.name))

    def _read_records(self, unfinished: set[tuple[int, str]]) -> tuple[list[LedgerEntry], list[str]]:
        """The done entries recorded in the results directories, in the order decided, and what
        cannot be restored (``<dir>: why``): a damaged record, or none outside an ``unfinished``
        evaluation (step and hash of a frozen checkpoint, due again)."""
        found: list[tuple[int, int, LedgerEntry]] = []
        lost = []
        for out in self._results_dirs():
            try:
                seq, entry = read_record(out)
                found.append((seq, entry.step, entry))
            except FileNotFoundError:
                m = _RESULTS_RE.match(out.name)
                if m and (int(m.group(1)), m.group(2)) not in unfinished:
                    lost.append(f"{out.name}: no {RECORD}")
            except (OSError, ValueError, KeyError, TypeError) as e:
                lost.append(f"{out.name}: {RECORD} damaged ({_why(e)})")
        return [entry for *_, entry in sorted(found, key=lambda f: f[:2])], lost

    def _frozen_due(self) -> list[LedgerEntry]:
        """An entry due for each frozen checkpoint copy whose hash checks, by step."""
        due = []
        for p in sorted(self.frozen.iterdir()) if self.frozen.is_dir() else []:
            found = frozen_step(p.name)  # a name gating wrote, whose file still has its hash
            if found and frozen_name(*found) == p.name and file_hash(p) == found[1]:
                due.append(LedgerEntry(*found))
        return sorted(due, key=lambda e: e.step)

    def _restore_rival(self, entry: LedgerEntry) -> LedgerEntry:
        """``entry`` (due again) as started against the rival its results directory already
        plays (a ``frozen/best_<hash>.pt`` in its ``config.json``, the copy still there), so that
        its games resume; as it is when it has none."""
        for out in sorted(self.dir.glob(f"step_{entry.step:08d}_{entry.checkpoint}_*")):
            try:
                players = json.loads((out / "config.json").read_bytes())["settings"]["players"]
                found = [m["hash"] for p in players
                         if (m := _FROZEN_BEST_RE.search(str(p))) and _HASH_RE.match(m["hash"])]
            except (OSError, ValueError, KeyError, TypeError):
                continue
            if found and self._frozen_best(found[-1]).is_file():
                entry.rival, entry.state = found[-1], EvalState.STARTED
        return entry

    def _agree_with_best(self, restored: list[LedgerEntry],
                         due: list[LedgerEntry]) -> tuple[str, list[LedgerEntry]]:
        """What makes the restored evaluations agree with best.pt (docs/reliability.md: best.pt
        is the checkpoint of the last promoted evaluation), for the warning, and the entry to
        record after them: when best.pt is neither the last promoted one's nor that of an
        evaluation under way (promoted, killed before its record), its record is lost (an older
        run): best.pt is recorded as a done, promoted evaluation of its step."""
        try:
            step = int(read_checkpoint(self.best)["step"])
            digest = file_hash(self.best)
        except (CheckpointError, KeyError, TypeError, ValueError):
            return "no readable best.pt: the next evaluated checkpoint becomes best", []
        promoted = [e for e in restored if e.promoted]
        if promoted and promoted[-1].checkpoint == digest:
            return f"best.pt (step {step}) is the last promoted", []
        if any(e.checkpoint == digest for e in due):
            return f"best.pt (step {step}) is that of the evaluation under way", []
        found = sorted(self.dir.glob(f"step_{step:08d}_{digest}_*"))
        entry = LedgerEntry(step, digest, EvalState.DONE, dir=found[-1].name if found else None,
                            promoted=True)
        last = f"step {promoted[-1].step}" if promoted else "none"
        return f"best.pt (step {step}) recorded as the last promoted (the last restored: {last})", [entry]

    def _next_seq(self) -> int:
        """The ``seq`` of the next decided evaluation's record: one past the largest recorded."""
        seqs = [0]
        for out in self._results_dirs():
            with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
                seqs.append(read_record(out)[0])
        return max(seqs) + 1

    def _drop(self, entry: LedgerEntry, why: str) -> None:
        entry.state, entry.reason = EvalState.DROPPED, why
        self.ledger.save()
        self.log(f"step {entry.step}: evaluation dropped: {why}")

    def _clean_frozen(self) -> None:
        """Delete frozen copies no unfinished evaluation needs (and temp files of killed copies)."""
        if not self.frozen.is_dir():
            return
        keep = set()
        for entry in self.ledger.unfinished():
            keep.add(self._frozen_ckpt(entry).name)
            if entry.rival:
                keep.add(self._frozen_best(entry.rival).name)
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
        copy = self._frozen_best(digest)
        if not copy.is_file():
            copy_atomic(self.best, copy)
        return digest

    # ----- one evaluation ----------------------------------------------------------------------
    def _evaluate(self, run: Run, entry: LedgerEntry) -> None:
        """Start (fix the rival), play the gauntlet, decide, and record the entry as done."""
        if entry.state == EvalState.DUE:  # the rival is fixed when the evaluation starts
            entry.rival, entry.state = self._freeze_best(), EvalState.STARTED
            self.ledger.save()
        me = self._spec(self._frozen_ckpt(entry))
        rival = self._rival_spec(entry)
        scores, scalars, out = self._gauntlet(entry, me, rival)
        promoted = self._decide(entry, me, rival, scores.get("best"))
        for tag, value in {**scalars, PROMOTED_TAG: float(promoted)}.items():  # logged once: when decided
            run.metrics.scalar(tag, value, entry.step)
        seconds = int(run.trainer.seconds + run.trainer.eval_seconds)  # the run's clock: the curve's x
        for tag in CLOCK_TAGS:
            if tag in scalars:
                run.metrics.scalar(f"clock/{tag.split('/', 1)[1]}", scalars[tag], seconds)
        if promoted:
            copy_atomic(self._frozen_ckpt(entry), self.best)
            why = " (eval.gating=none: every evaluated checkpoint is)" if self.ev.gating == "none" else ""
            self.log(f"step {entry.step}: best.pt is now this checkpoint{why}")
        entry.state, entry.dir, entry.scores, entry.promoted = EvalState.DONE, out.name, scores, promoted
        write_record(out, entry, self._next_seq())  # after best.pt: a record says best.pt is updated
        self.ledger.save()
        self._clean_frozen()

    def _spec(self, path: Path) -> str:
        return az_spec(path, self.ev.sims, self.cfg.device)

    def _rival_spec(self, entry: LedgerEntry) -> str | None:
        """Player spec of the entry's frozen rival; None without one, or when its copy is gone."""
        if not entry.rival:
            return None
        path = self._frozen_best(entry.rival)
        if path.is_file():
            return self._spec(path)
        self.log(f"step {entry.step}: the frozen best.pt {path.name} is gone; no rival")
        return None

    def _baselines(self) -> tuple[str, ...]:
        """``eval.opponents``, with the ladder's opponents before them when ``eval.ladder``, and
        nokamute after them with ``eval.nokamute_time`` (where it is found)."""
        extra = (*self.ev.opponents, *((self.nokamute,) if self.nokamute else ()))
        if self.ev.ladder:
            return ladder_opponents(self.ev.ladder_depths, extra=extra)
        return extra

    def _gauntlet(self, entry: LedgerEntry, me: str,
                  rival: str | None) -> tuple[dict[str, float], dict[str, float], Path]:
        """Play (or finish) the entry's gauntlet and log its line; returns the scores by opponent
        name, its TensorBoard scalars (:func:`gauntlet_scalars`) and the results directory."""
        baselines = self._baselines()
        opponents = (*baselines, rival) if rival else baselines
        config = self._arena_config("gauntlet", (me, *opponents), self.ev.games)
        report, out = self._arena(config, f"step_{entry.step:08d}", entry.checkpoint)
        stats = gauntlet_stats(report, rival, baselines)
        ladder = None
        if self.ev.ladder:
            ladder = ladder_result(report)
            write_ladder(ladder, out)
        self.log(f"step {entry.step}: {gauntlet_line(stats, ladder)}")
        scores = {name: s.score for name, s in stats.items()}
        return scores, gauntlet_scalars(stats, elo_vs_random(report), ladder), out

    def _decide(self, entry: LedgerEntry, me: str, rival: str | None, score_vs_best: float | None) -> bool:
        """The gating decision (:func:`promote`), after the SPRT against the rival when it needs one."""
        decision = None
        if self.ev.gating == "sprt" and rival is not None:
            config = self._arena_config("sprt", (me, rival), self.ev.sprt_max_games,
                                        elo0=self.ev.sprt_elo0, elo1=self.ev.sprt_elo1)
            decision = self._arena(config, f"gate_{entry.step:08d}", entry.checkpoint)[0].decision
        return promote(self.ev.gating, rival is not None, score_vs_best, self.ev.gate_score, decision)

    # ----- the arena ---------------------------------------------------------------------------
    def _arena_config(self, mode: str, players: tuple[str, ...], games: int, **extra: Any) -> ArenaConfig:
        return ArenaConfig(mode=mode, players=players, games_per_pairing=games,
                           game_type=self.cfg.env.game_type, seed=self.cfg.seed,
                           openings=f"random:{self.ev.openings_plies}",
                           ply_cap=self.cfg.env.ply_cap or DEFAULT_PLY_CAP, **extra)

    def _arena(self, config: ArenaConfig, prefix: str, checkpoint: str,
               on_record: Callable[[dict[str, Any]], None] | None = None) -> tuple[ArenaReport, Path]:
        """Play (or finish) ``config`` in ``eval/<prefix>_<checkpoint>_<settings>`` (``on_record``:
        each game played now)."""
        out = self.dir / f"{prefix}_{checkpoint}_{settings_hash(config)}"
        anchor = "random" if "random" in config.players else None
        report = self._play(config, out, anchor, on_record)
        return report, out

    def _play(self, config: ArenaConfig, out: Path, anchor: str | None,
              on_record: Callable[[dict[str, Any]], None] | None = None) -> ArenaReport:
        """``run_arena`` in ``out``; a damaged results directory (a record or ``config.json`` the
        arena refuses; a torn last record it drops itself) is moved aside to ``<out>.damaged``
        with one warning, and its games are played again."""
        def play() -> ArenaReport:
            return run_arena(config, out, workers=self.ev.workers, anchor=anchor, progress=False,
                             executor=self.executor, on_record=on_record)

        try:
            return play()
        except ArenaError as e:
            if not out.is_dir() or str(out) not in str(e):
                raise
            aside = out.with_name(out.name + ".damaged")
            shutil.rmtree(aside, ignore_errors=True)
            os.replace(out, aside)
            self.log(f"warning: {e}; moved to {aside.name}, its games are played again")
        return play()
