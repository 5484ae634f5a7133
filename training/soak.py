"""The soak's machinery: a training run (``python -m scripts.train``) with faults injected from
outside at seeded random moments, each survived or not, and a check of what the run left.

:func:`soak` runs it; ``python -m scripts.soak`` is its command line. Not part of the test suite.

See docs/reliability.md (the soak).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import re
import resource
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from hive_zero.run_layout import RunLayout

FAULTS = ("kill-worker", "stop-worker", "kill-trainer", "damage-shard", "disk-full")
"""What the soak injects (what a person or the kernel does to a run, from outside):

- ``kill-worker``: SIGKILL a self-play process, as the OOM killer does: the run restarts it;
- ``stop-worker``: SIGSTOP a self-play process, SIGCONT it some seconds later: the run waits or
  goes on;
- ``kill-trainer``: SIGKILL the whole run (trainer and workers): the same command resumes it;
- ``damage-shard``: the whole run killed, a byte of a replay shard flipped, the run resumed: the
  shard is skipped with one warning;
- ``disk-full``: the trainer's file size limit lowered under it (``prlimit``): it stops with one
  line and exit 74; the same command, without the limit, resumes.
"""
ROOT = Path(__file__).resolve().parents[1]
"""The repository: where the run's command starts."""
_START = re.compile(r"self-play: \d+ worker process\(es\), pid\(s\) ([\d, ]+)")
_RESTART = re.compile(r"self-play worker (\d+) \(pid (\d+)\) died .* as pid (\d+) \(restart \d+\)")


@dataclass
class Tally:
    """Per fault kind: how many were injected and survived; the positions lost with them."""

    injected: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FAULTS, 0))
    survived: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FAULTS, 0))
    lost: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FAULTS, 0))
    notes: list[str] = field(default_factory=list)

    def table(self) -> str:
        rows = [("fault", "injected", "survived", "positions lost")]
        rows += [(k, str(self.injected[k]), str(self.survived[k]), str(self.lost[k])) for k in FAULTS]
        rows.append(("total", str(sum(self.injected.values())), str(sum(self.survived.values())),
                     str(sum(self.lost.values()))))
        widths = [max(len(r[i]) for r in rows) for i in range(4)]
        return "\n".join("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                                   for i, (c, w) in enumerate(zip(r, widths, strict=True)))
                         for r in rows)


class Segment:
    """One process of the run (the first start or a resume): its output read through a pipe
    (a pipe, not a file: the ``disk-full`` fault's file size limit must not stop the line it
    prints) into ``lines`` and the soak's log."""

    def __init__(self, cmd: list[str], log, niceness: int):
        def start():
            os.nice(niceness)

        self.proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True, start_new_session=True,
                                     preexec_fn=start if niceness else None)
        self.lines: list[str] = []
        self._thread = threading.Thread(target=self._read, args=(log,), daemon=True)
        self._thread.start()

    def _read(self, log) -> None:
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))
            log.write(line)
            log.flush()

    def text(self) -> str:
        return "\n".join(self.lines)

    def workers(self) -> dict[int, int]:
        """The self-play processes now: worker -> pid (from the run's start and restart lines)."""
        pids: dict[int, int] = {}
        for line in list(self.lines):
            if m := _START.search(line):
                pids = dict(enumerate(int(p) for p in m.group(1).split(",")))
            elif m := _RESTART.search(line):
                pids[int(m.group(1))] = int(m.group(3))
        return pids

    def kill(self) -> None:
        """SIGKILL the run's process group (trainer, workers, an evaluation's pool)."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.wait()

    def wait(self) -> int:
        rc = self.proc.wait()
        self._thread.join(10)
        return rc


def process_state(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except (OSError, IndexError):
        return None


def soak(args: argparse.Namespace) -> int:
    """The soak of ``args`` (``python -m scripts.soak``'s options: ``preset``, ``minutes``,
    ``run_dir``, ``seed``, ``gap`` as (min, max) seconds, ``faults`` as a list, ``nice``,
    ``overrides``): its exit status, 0 when the run survived every fault and left what it should,
    else 1."""
    from training.replay import ReplayStore

    rng = random.Random(args.seed)
    run_dir = Path(args.run_dir or f"runs/soak_{args.preset}_{args.seed}").resolve()
    cmd = [sys.executable, "-m", "scripts.train", f"experiment={args.preset}", f"run_dir={run_dir}",
           f"train.max_minutes={args.minutes:g}", *args.overrides]
    run_dir.parent.mkdir(parents=True, exist_ok=True)
    log = open(run_dir.parent / f"{run_dir.name}.soak.log", "a", encoding="utf-8")  # noqa: SIM115 - closed below
    tally, damaged = Tally(), set()
    stopped: dict[int, float] = {}  # pid -> when to SIGCONT it
    carried: list[tuple[str, str]] = []  # faults a later process of the run shows survived
    say = print
    say(f"soak: {' '.join(cmd[2:])}; faults for {args.minutes:g} min, every {args.gap[0]:g}-"
        f"{args.gap[1]:g} s, seed {args.seed}; the run's output: {log.name}")
    start = time.monotonic()
    deadline = start + args.minutes * 60
    next_fault = start + rng.uniform(*args.gap)
    order: list[str] = []  # the kinds still to inject in this round
    segment = Segment(cmd, log, args.nice)
    try:
        while True:
            current: list[tuple[str, str]] = []  # faults this process shows survived
            later: list[tuple[str, str]] = []  # faults that end it: the next process shows them survived
            ending = None  # how the soak made this process end: "killed", "disk-full"
            while segment.proc.poll() is None:
                now = time.monotonic()
                for pid, when in list(stopped.items()):
                    if when <= now:
                        with contextlib.suppress(ProcessLookupError):
                            os.kill(pid, signal.SIGCONT)
                        del stopped[pid]
                if deadline > now >= next_fault and ending is None:
                    next_fault = now + rng.uniform(*args.gap)
                    if not order:  # every kind once, in a seeded order, then again: none left out
                        order = rng.sample(args.faults, len(args.faults))
                    kind, what, ending = inject(order.pop(), segment, rng, run_dir, tally,
                                                stopped, damaged, say)
                    (later if ending == "killed" else current).append((kind, what))
                    if ending == "killed":
                        break
                time.sleep(0.2)
            rc = segment.wait()
            overtaken = judge(segment, rc, current, tally)
            carried = judge_resumed(segment, rc, carried, tally) + overtaken + later
            if rc == 0:
                break
            if ending == "killed" or (ending == "disk-full" and rc == 74):
                segment = Segment(cmd, log, args.nice)
                continue
            say(f"soak: the run ended with exit status {rc}, not by a fault injected:\n"
                f"{segment.text()[-3000:]}")
            return 1
    finally:
        for pid in stopped:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
        if segment.proc.poll() is None:
            segment.kill()
        log.close()
    for kind, what in carried:
        tally.notes.append(f"{kind} {what}: no later process of the run showed it survived")
    say(f"soak: the run ended green after {(time.monotonic() - start) / 60:.1f} min")
    say(tally.table())
    ok = sum(tally.survived.values()) == sum(tally.injected.values())
    ok &= check_run(run_dir, damaged, say, ReplayStore)
    for note in tally.notes:
        say(f"note: {note}")
    say("soak: " + ("green" if ok else "RED"))
    return 0 if ok else 1


def inject(kind, segment, rng, run_dir, tally, stopped, damaged, say) -> tuple[str, str, str | None]:
    """Inject one fault of ``kind``. Returns ``(kind, what, ending)``: the kind injected (a
    worker fault before any worker is up becomes ``kill-trainer``), what it hit, and how the
    process of the run ends now: ``"killed"`` (by the soak: resume), ``"disk-full"`` (it stops
    with exit 74: resume), None (it goes on)."""
    from training.replay import ReplayStore

    when = f"{time.strftime('%H:%M:%S')}"
    workers = {w: pid for w, pid in segment.workers().items() if process_state(pid) not in (None, "T", "Z")}
    if kind in ("kill-worker", "stop-worker") and not workers:
        kind = "kill-trainer"  # no worker up yet (the run starting): a fault of the run instead
    tally.injected[kind] += 1
    if kind in ("kill-worker", "stop-worker"):
        w = rng.choice(sorted(workers))
        pid = workers[w]
        if kind == "kill-worker":
            os.kill(pid, signal.SIGKILL)
            say(f"soak {when}: kill-worker: SIGKILL to self-play worker {w} (pid {pid})")
        else:
            seconds = rng.uniform(5, 30)
            os.kill(pid, signal.SIGSTOP)
            stopped[pid] = time.monotonic() + seconds
            say(f"soak {when}: stop-worker: SIGSTOP to self-play worker {w} (pid {pid}) for {seconds:.0f} s")
        return kind, str(pid), None
    if kind == "disk-full":
        limit = 64 * 1024
        resource.prlimit(segment.proc.pid, resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))
        say(f"soak {when}: disk-full: the trainer's file size limit set to {limit} bytes")
        return kind, "", "disk-full"
    segment.kill()
    if kind == "kill-trainer":
        say(f"soak {when}: kill-trainer: SIGKILL to the run")
        return kind, "", "killed"
    store = ReplayStore(RunLayout(run_dir).replay, warn=lambda _: None)
    shards = [p for p in store.shard_paths() if p.name not in damaged and store.load(p) is not None]
    if not shards:
        say(f"soak {when}: damage-shard: no shard yet; the run killed and resumed only")
        return kind, "", "killed"
    shard = rng.choice(shards)
    positions = len(store.load(shard))
    data = bytearray(shard.read_bytes())
    data[len(data) // 2] ^= 0xFF
    shard.write_bytes(bytes(data))
    damaged.add(shard.name)
    tally.lost[kind] += positions
    say(f"soak {when}: damage-shard: the run killed, a byte of {shard.name} ({positions} positions) flipped")
    return kind, str(shard), "killed"


def judge(segment: Segment, rc: int, faults: list[tuple[str, str]], tally: Tally) -> list[tuple[str, str]]:
    """Count the faults injected into ``segment`` (ended with ``rc``) that it survived. Returns
    the worker faults a later fault overtook (the soak killed the whole run before the trainer
    showed them survived): the next process of the run shows them survived by resuming."""
    text = segment.text()
    overtaken = []
    for kind, what in faults:
        if kind in ("kill-worker", "stop-worker") and rc == -signal.SIGKILL and not (
                kind == "kill-worker" and re.search(rf"\(pid {what}\) died \(killed by SIGKILL", text)):
            overtaken.append((kind, what))
            tally.notes.append(f"{kind} pid {what}: the run was killed (a later fault) before it showed it "
                               "survived: counted when it resumed")
        elif kind == "kill-worker":
            if re.search(rf"\(pid {what}\) died \(killed by SIGKILL.* as pid \d+ \(restart \d+\)", text):
                tally.survived[kind] += 1
            elif rc in (0, 74):  # the run ended before its next look at the workers
                tally.survived[kind] += 1
                tally.notes.append(f"kill-worker pid {what}: the run ended before it restarted it")
            else:
                tally.notes.append(f"kill-worker pid {what}: not restarted (exit {rc})")
        elif kind == "stop-worker":
            if rc in (0, 74):
                tally.survived[kind] += 1
            else:
                tally.notes.append(f"stop-worker pid {what}: the run ended with exit {rc}")
        elif kind == "disk-full":
            lines = [line for line in segment.lines if line.startswith("hive-train: cannot write ")]
            if rc == 74 and len(lines) == 1 and "Traceback" not in text:
                tally.survived[kind] += 1
            elif rc == 0:
                tally.survived[kind] += 1
                tally.notes.append("disk-full: the run wrote nothing past the limit before it ended")
            else:
                tally.notes.append(f"disk-full: exit {rc}, its lines {lines}")
    return overtaken


def judge_resumed(segment: Segment, rc: int, faults: list[tuple[str, str]],
                  tally: Tally) -> list[tuple[str, str]]:
    """Count the faults that ended an earlier process of the run (``kill-trainer``,
    ``damage-shard``, and worker faults a later fault overtook) that ``segment`` shows survived:
    it resumed (and warned once about the damaged shard). Returns those it does not show yet (it
    was killed too early)."""
    left = []
    resumed = "resumed from checkpoint step" in segment.text()
    for kind, what in faults:
        warned = [line for line in segment.lines if what and f"skipping damaged replay shard {what}:" in line]
        if resumed and (kind != "damage-shard" or not what or len(warned) == 1):
            tally.survived[kind] += 1
        elif resumed and kind == "damage-shard" and len(warned) > 1:
            tally.notes.append(f"damage-shard {what}: warned {len(warned)} times")
        elif rc == 0 and kind == "damage-shard":
            tally.notes.append(f"damage-shard {what}: the run ended green without a warning")
        else:
            left.append((kind, what))
    return left


def check_run(run_dir: Path, damaged: set[str], say, ReplayStore) -> bool:
    """What the run left: shards readable but the damaged ones, none missing, no temp file, a
    final network that loads and plays a game against random."""
    import warnings

    from hive_env import Game
    from players.registry import make_player
    from search.checkpoint import load_model

    ok = True
    store = ReplayStore(RunLayout(run_dir).replay, warn=lambda _: None)
    unreadable = {p.name for p in store.shard_paths() if store.load(p) is None}
    numbers: dict[str, list[int]] = {}
    for p in store.shard_paths():
        numbers.setdefault(p.stem.split("_")[1], []).append(int(p.stem.split("_")[2]))
    gaps = {w: s for w, s in numbers.items() if sorted(s) != list(range(len(s)))}
    temps = [str(p) for p in run_dir.rglob("*.tmp")]
    say(f"replay: {len(store.shard_paths())} shards, {store.count()} positions readable; damaged by the soak "
        f"{len(damaged)}, unreadable {len(unreadable)}; shards missing: {gaps or 'none'}; temp files: "
        f"{temps or 'none'}")
    ok &= unreadable == damaged and not gaps and not temps
    final = RunLayout(run_dir).final
    try:
        load_model(final, "cpu")
        az, rival = make_player(f"alphazero:ckpt={final},sims=8", seed=0), make_player("random", seed=0)
        game = Game("Base")
        with warnings.catch_warnings():  # a game past the network's training ply cap: the line says
            warnings.simplefilter("ignore")
            while not game.is_over and game.ply < 100:
                game.play((az if game.ply % 2 == 0 else rival).choose(game))
        az.close()
        say(f"final network: {final} loads and plays: {game.ply} plies against random, "
            f"{'over' if game.is_over else 'stopped at the cap'}")
    except Exception as e:  # noqa: BLE001 - a soak reports what failed
        say(f"final network: {final} does not load or play: {type(e).__name__}: {e}")
        ok = False
    return ok
