"""The faults of a long run and what the run does (docs/reliability.md, one test a row).

Self-play processes are killed (SIGKILL, as the OOM killer does) and stopped (SIGSTOP) by signal,
and made to fail at their start by a checkpoint they refuse to load; replay shards are damaged
(truncated, a byte flipped). A full disk is injected two ways: :class:`FullDisk` makes
``os.fsync`` fail with ENOSPC for a chosen file (every durable write of the project syncs: atomic
writes, appended records), and :func:`file_size_limit` lowers ``RLIMIT_FSIZE`` so that writes
past it fail with EFBIG (Python ignores SIGXFSZ). After each fault the run is resumed and
:func:`assert_consistent` checks what it left: no temp file, every shard readable and none missing,
final.pt at the last step, best.pt the last promoted checkpoint of the ledger, every due
evaluation done.
"""

from __future__ import annotations

import errno
import fnmatch
import json
import logging
import os
import re
import resource
import signal
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from hive_env.files import is_disk_full, write_atomic
from search.checkpoint import read_checkpoint
from training.faults import (
    DISK_FULL_EXIT,
    SelfPlayError,
    disk_full_line,
    failed_file,
    stop_on_log_write_errors,
)
from training.gating import file_hash
from training.loop import compose_config, train
from training.replay import ReplayStore

from helpers import ROOT, TINY_RUN, hive_train, wait_for, whole

# ----- the harness ------------------------------------------------------------------------------


class FullDisk:
    """``os.fsync`` raising ENOSPC for the ``nth`` durable write of a file whose name matches
    ``pattern`` (fnmatch; an atomic write's temp file ``.NAME.XXXX.tmp`` counts as NAME), as a
    disk that fills up under it. ``hits`` lists the files it failed."""

    def __init__(self, pattern: str, nth: int = 1):
        self.pattern, self.nth, self.seen, self.hits = pattern, nth, 0, []
        self._fsync = os.fsync

    def __call__(self, fd: int) -> None:
        path = Path(os.readlink(f"/proc/self/fd/{fd}"))
        name = path.name
        if name.startswith(".") and name.endswith(".tmp"):
            name = name[1:].rsplit(".", 2)[0]
        if fnmatch.fnmatch(name, self.pattern):
            self.seen += 1
            if self.seen == self.nth:
                self.hits.append(path.with_name(name))
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self._fsync(fd)


@contextmanager
def file_size_limit(size: int):
    """This process's files cannot grow past ``size`` bytes (the soft RLIMIT_FSIZE) inside."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))


def temp_files(run_dir: Path) -> list[Path]:
    return [p for p in run_dir.rglob("*.tmp*")]


def assert_consistent(run_dir: Path, steps: int, damaged: tuple[str, ...] = ()) -> None:
    """What a run that ended green after a fault must have left (module docstring); ``damaged``:
    the shards the test damaged itself. No shard written was lost: each worker's are numbered
    0, 1, 2, ... without a gap, and every one is readable."""
    assert temp_files(run_dir) == []
    replay = ReplayStore(run_dir / "replay", warn=lambda _: None)
    unreadable = {p.name for p in replay.shard_paths() if replay.load(p) is None}
    assert unreadable == set(damaged) and set(replay.damaged) == set(damaged)
    numbers: dict[int, list[int]] = {}
    for p in replay.shard_paths():
        _, worker, seq = p.stem.split("_")
        numbers.setdefault(int(worker), []).append(int(seq))
    assert all(sorted(seqs) == list(range(len(seqs))) for seqs in numbers.values()), numbers
    checkpoints = run_dir / "checkpoints"
    assert read_checkpoint(checkpoints / "final.pt")["step"] == steps
    entries = json.loads((run_dir / "eval" / "ledger.json").read_text())["evaluations"]
    assert all(e["state"] in ("done", "dropped") for e in entries), entries
    done = {e["step"]: e for e in entries if e["state"] == "done"}
    for step, entry in done.items():
        ckpt = checkpoints / f"ckpt_{step:08d}.pt"
        assert not ckpt.exists() or file_hash(ckpt) == entry["checkpoint"], step
    promoted = [e for e in entries if e["state"] == "done" and e["promoted"]]  # in the order decided
    assert promoted and file_hash(checkpoints / "best.pt") == promoted[-1]["checkpoint"]


# ----- a full disk: the parts ----------------------------------------------------------------------


def test_an_atomic_write_past_the_file_size_limit_names_its_file_and_keeps_the_old_one(tmp_path):
    path = write_atomic(tmp_path / "ckpt.pt", b"old")
    with file_size_limit(1000), pytest.raises(OSError) as raised:
        write_atomic(path, b"x" * 5000)
    assert raised.value.errno == errno.EFBIG and raised.value.filename == str(path)
    assert is_disk_full(raised.value)
    assert path.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == ["ckpt.pt"]


@pytest.mark.parametrize("number,cause,remedy", [
    (errno.ENOSPC, "no space left on device", "free space on its disk"),
    (errno.EDQUOT, "disk quota exceeded", "free space or raise the quota"),
    (errno.EFBIG, "file too large for the file size limit (ulimit -f)", "raise the limit")])
def test_the_line_of_a_full_disk_names_the_file_the_cause_and_the_remedy(number, cause, remedy):
    line = disk_full_line(OSError(number, os.strerror(number), "runs/x/checkpoints/ckpt_00000400.pt"))
    assert line == (f"cannot write runs/x/checkpoints/ckpt_00000400.pt: {cause}; nothing the run reads "
                    f"back is half written: {remedy} and run the same command to resume")


def test_a_write_that_names_no_file_is_named_by_the_file_it_was_writing(tmp_path):
    target = tmp_path / "games_000.txt"
    try:
        with file_size_limit(100), open(target, "a") as f:  # as replay.append_games writes
            f.write("x" * 500)
            f.flush()
    except OSError as e:
        assert e.filename is None and failed_file(e) == str(target)
        assert disk_full_line(e).startswith(f"cannot write {target}: file too large")
    else:
        pytest.fail("the write passed the limit")


def test_the_arena_names_its_games_file(tmp_path):
    from arena.results import ResultsDir

    store = ResultsDir(tmp_path)
    with file_size_limit(100), pytest.raises(OSError) as raised:
        store.append(whole({"id": "x" * 500, "white_index": 0, "black_index": 1, "white_score": 1.0}))
    assert raised.value.filename == str(tmp_path / "games.jsonl") and is_disk_full(raised.value)


def test_tensorboard_on_a_full_disk_names_its_event_file_and_prints_no_traceback(tmp_path, capsys):
    from training.metrics import Metrics

    metrics = Metrics(tmp_path / "tb")
    assert metrics.path.parent == tmp_path / "tb" and metrics.path.name.startswith("events.out.tfevents.")
    with file_size_limit(metrics.path.stat().st_size + 100), pytest.raises(OSError) as raised:
        for step in range(200):  # the writer's thread fails; a later call (or the flush) says so
            metrics.text("inference", "x" * 200, step)
        metrics.flush()
    assert raised.value.filename == str(metrics.path) and is_disk_full(raised.value)
    metrics.close(quiet=True)
    assert "Traceback" not in capsys.readouterr().err


def test_train_log_on_a_full_disk_stops_the_logging_call_naming_the_file(tmp_path):
    logger = logging.getLogger("test-faults")
    handler = logging.FileHandler(tmp_path / "train.log")
    logger.addHandler(handler)
    logger.propagate = False
    stop_on_log_write_errors(logger)
    logger.warning("fits")
    with file_size_limit(100), pytest.raises(OSError) as raised:
        logger.warning("x" * 500)
    assert raised.value.filename == str(tmp_path / "train.log") and is_disk_full(raised.value)
    assert handler not in logger.handlers  # the way out logs without it
    logger.warning("after")


def test_a_self_play_process_hands_its_full_disk_to_the_trainer(tmp_path, monkeypatch):
    """The worker stops quietly (exit 1) with its error in the queue; the trainer's check raises it."""
    import multiprocessing as mp

    from models.gnn import build_model
    from search.mcts import SearchConfig
    from training import worker
    from training.checkpoint import CheckpointStore
    from training.config import RunConfig, SelfPlaySettings
    from training.selfplay_backend import ProcessSelfPlay

    cfg = RunConfig(run_dir=tmp_path, model=build_model("tiny").config, search=SearchConfig(sims=2),
                    selfplay=SelfPlaySettings(games=2, workers=1, shard_games=1), device="cpu")
    CheckpointStore(tmp_path / "checkpoints").publish(0, build_model("tiny"))
    monkeypatch.setattr(os, "fsync", disk := FullDisk("shard_*.npz"))
    errors = mp.get_context("spawn").SimpleQueue()
    stop, go = threading.Event(), threading.Event()
    go.set()
    import numba
    import torch

    threads, sigint = (torch.get_num_threads(), numba.get_num_threads()), signal.getsignal(signal.SIGINT)
    try:
        with pytest.raises(SystemExit) as exited:
            worker.worker_main(cfg, 0, stop, os.getppid(), go, errors)
    finally:  # a worker takes one thread and ignores Ctrl-C: this process's are given back
        torch.set_num_threads(threads[0])
        numba.set_num_threads(threads[1])
        signal.signal(signal.SIGINT, sigint)
    assert exited.value.code == 1 and len(disk.hits) == 1
    backend = ProcessSelfPlay.__new__(ProcessSelfPlay)  # its check, on a dead worker
    dead = type("Dead", (), {"is_alive": lambda self: False, "exitcode": 1})()
    backend.procs, backend.errors = [dead], errors
    with pytest.raises(OSError) as raised:
        backend.check()
    assert raised.value.filename == str(disk.hits[0]) and is_disk_full(raised.value)
    assert temp_files(tmp_path) == []


def test_a_self_play_process_past_the_file_size_limit_stops_the_trainer_with_its_file(tmp_path, monkeypatch):
    """The same with a real spawned worker (the limit lowered while it starts: it inherits it; the
    trainer's own shared memory, made before, is a file too)."""
    import time

    from models.gnn import build_model
    from search.mcts import SearchConfig
    from training.checkpoint import CheckpointStore
    from training.config import RunConfig, SelfPlaySettings
    from training.selfplay_backend import ProcessSelfPlay

    cfg = RunConfig(run_dir=tmp_path, model=build_model("tiny").config, search=SearchConfig(sims=2),
                    selfplay=SelfPlaySettings(games=2, workers=1, shard_games=1), device="cpu")
    CheckpointStore(tmp_path / "checkpoints").publish(0, build_model("tiny"))
    spawn = ProcessSelfPlay._spawn

    def spawn_limited(self, w: int):
        with file_size_limit(1000):  # a shard is larger
            return spawn(self, w)

    monkeypatch.setattr(ProcessSelfPlay, "_spawn", spawn_limited)
    backend = ProcessSelfPlay(cfg)
    try:
        deadline = time.monotonic() + 120
        with pytest.raises(OSError) as raised:
            while time.monotonic() < deadline:
                backend.wait()
        assert is_disk_full(raised.value) and raised.value.errno == errno.EFBIG
        assert Path(raised.value.filename).parent == tmp_path / "replay"
        assert Path(raised.value.filename).name.startswith("shard_000_")
        assert backend.procs[0].exitcode == 1 and temp_files(tmp_path) == []
    finally:
        backend.close()


def test_self_plays_game_records_name_their_file_on_a_full_disk(tmp_path):
    store = ReplayStore(tmp_path)
    with file_size_limit(100), pytest.raises(OSError) as raised:
        store.append_games(0, ["x" * 500])
    assert raised.value.filename == str(tmp_path / "games_000.txt") and is_disk_full(raised.value)


# ----- self-play processes killed, stopped, failing at their start ----------------------------------


def selfplay_backend(tmp_path: Path, lines: list[str], shard_games: int = 1, **options):
    """A ProcessSelfPlay of one worker (tiny network, 2 games of 2 simulations, a shard a game)
    on a published step-0 checkpoint; its log lines go to ``lines``."""
    from models.gnn import build_model
    from search.mcts import SearchConfig
    from training.checkpoint import CheckpointStore
    from training.config import RunConfig, SelfPlaySettings
    from training.selfplay_backend import ProcessSelfPlay

    cfg = RunConfig(run_dir=tmp_path, model=build_model("tiny").config, search=SearchConfig(sims=2),
                    selfplay=SelfPlaySettings(games=2, workers=1, shard_games=shard_games), device="cpu")
    store = CheckpointStore(tmp_path / "checkpoints")
    if not store.exists():
        store.publish(0, build_model("tiny"))
    return ProcessSelfPlay(cfg, lines.append, **options)


def looking_after(backend, ready, timeout: float) -> bool:
    """Call the backend's ``check`` (as the trainer's waits do) until ``ready()``; False after
    ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        backend.check()
        if ready():
            return True
        time.sleep(0.1)
    return False


class Scalars:
    """What ``report`` logs to TensorBoard (``Metrics.scalar``), kept."""

    def __init__(self):
        self.values: dict[str, float] = {}

    def scalar(self, tag: str, value: float, step: int) -> None:
        self.values[tag] = value


def test_a_killed_self_play_process_is_restarted_with_one_line_and_counted(tmp_path):
    from training.selfplay_backend import exit_text

    assert exit_text(-signal.SIGKILL) == "killed by SIGKILL, the OOM killer's signal"
    assert (exit_text(-signal.SIGSEGV), exit_text(1)) == ("killed by SIGSEGV", "exit code 1")
    replay = ReplayStore(tmp_path / "replay")
    lines: list[str] = []
    backend = selfplay_backend(tmp_path, lines, backoff_s=0.2)
    try:
        first = backend.procs[0]
        assert lines == [f"self-play: 1 worker process(es), pid(s) {first.pid}"]
        assert looking_after(backend, lambda: replay.shard_count(0) >= 1, 300)
        os.kill(first.pid, signal.SIGKILL)  # as the OOM killer does
        first.join(10)
        written = replay.shard_count(0)
        assert looking_after(backend, lambda: replay.shard_count(0) > written, 300)  # the new one plays
        second = backend.procs[0]
        assert second.pid != first.pid and second.is_alive()
        assert lines[1:] == [f"self-play worker 0 (pid {first.pid}) died (killed by SIGKILL, the OOM "
                             "killer's signal); its unfinished games are lost; restarted after 0.2 s as pid "
                             f"{second.pid} (restart 1)"]
        metrics = Scalars()
        backend.report(metrics, 10)
        assert metrics.values == {"selfplay/worker_restarts": 1}
        os.kill(second.pid, signal.SIGTERM)  # killed again, and the run ends before its restart:
        second.join(10)
        backend.check()
    finally:
        backend.close()
    assert lines[2:] == [f"self-play worker 0 (pid {second.pid}) died (killed by SIGTERM); its unfinished "
                         "games are lost; not restarted: self-play stopped first"]  # reported all the same
    assert not backend.procs[0].is_alive() and temp_files(tmp_path) == []
    assert all(replay.load(p) is not None for p in replay.shard_paths())


def test_a_self_play_process_killed_while_paused_does_not_hang_the_trainer(tmp_path):
    """Killed (the OOM killer) while it waits out an evaluation's pause: the trainer's resume, its
    next check and its close return at once, the worker is restarted and plays on."""
    replay = ReplayStore(tmp_path / "replay")
    lines: list[str] = []
    backend = selfplay_backend(tmp_path, lines, backoff_s=0.2)
    try:
        first = backend.procs[0]
        assert looking_after(backend, lambda: replay.shard_count(0) >= 1, 300)
        backend.pause()
        time.sleep(2.0)  # past its batched move: waiting to go on
        os.kill(first.pid, signal.SIGKILL)
        first.join(10)
        returned = threading.Event()

        def trainer() -> None:
            backend.resume()
            backend.check()
            returned.set()

        threading.Thread(target=trainer, daemon=True).start()
        assert returned.wait(20), "the trainer hung on a killed worker's pause"
        written = replay.shard_count(0)
        assert looking_after(backend, lambda: replay.shard_count(0) > written, 300)
        assert backend.procs[0].pid != first.pid and backend.restarts == [1]
    finally:
        closed = threading.Thread(target=backend.close, daemon=True)
        closed.start()
        closed.join(60)
    assert not closed.is_alive() and not backend.procs[0].is_alive()


class _Trap:
    """Unpickling this would call ``open(marker, "w")``: a checkpoint holding it is refused."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return open, (str(self.marker), "w")


def test_a_self_play_process_that_keeps_failing_at_its_start_stops_the_run_with_one_line(tmp_path):
    """Its checkpoint is one it refuses to load: restarted with a longer backoff each time, and
    after ``max_failed_starts`` deaths soon after its start without a shard the run stops with
    one line naming the worker, its last error and where the tracebacks are."""
    import torch

    from training.checkpoint import CheckpointStore

    lines: list[str] = []
    backend = selfplay_backend(tmp_path, lines, backoff_s=0.05, max_failed_starts=3)
    backend.close()  # a checkpoint it cannot load first: the same backend, restarted workers
    path = CheckpointStore(tmp_path / "checkpoints").path(0)
    state = torch.load(path, weights_only=True)
    state["note"] = _Trap(tmp_path / "MARKER")
    torch.save(state, path)
    lines.clear()
    backend = selfplay_backend(tmp_path, lines, backoff_s=0.05, max_failed_starts=3)
    try:
        with pytest.raises(SelfPlayError) as raised:
            looking_after(backend, lambda: False, 600)
    finally:
        backend.close()
    errors_log = tmp_path / "selfplay_errors.log"
    message = str(raised.value)
    assert "\n" not in message, message
    assert re.fullmatch(r"self-play worker 0 died 3 times in a row at its start \(before writing a shard\), "
                        r"the last time after \d+ s with exit code 1: UnsafeCheckpointError: .+; its "
                        rf"traceback is in {re.escape(str(errors_log))}; fix the cause and run the same "
                        "command to resume", message), message
    assert len(lines) == 3 and [line.rsplit(" ", 1)[1] for line in lines[1:]] == ["1)", "2)"], lines
    assert "restarted after 0.1 s" in lines[1] and "restarted after 0.2 s" in lines[2]  # doubled
    assert errors_log.read_text().count("Traceback (most recent call last)") == 3
    assert not (tmp_path / "MARKER").exists()  # refused, never run


def test_a_stopped_self_play_process_is_named_in_one_warning_and_close_still_ends_it(tmp_path):
    from training.selfplay_backend import process_state

    lines: list[str] = []
    backend = selfplay_backend(tmp_path, lines, stopped_warn_s=1.0)
    try:
        pid = backend.procs[0].pid
        os.kill(pid, signal.SIGSTOP)
        assert looking_after(backend, lambda: len(lines) > 1, 60)
        time.sleep(1.0)
        backend.check()  # still stopped: no second warning
        (warning,) = lines[1:]
        assert re.fullmatch(rf"warning: self-play worker 0 \(pid {pid}\) has been stopped for \d+ s "
                            r"\(SIGSTOP: a debugger, a person, a freezer\?\): no worker is playing: "
                            rf"training waits for it; kill -CONT {pid} lets it go on", warning), warning
        os.kill(pid, signal.SIGCONT)
        assert looking_after(backend, lambda: len(lines) > 2, 60)
        assert lines[2].startswith(f"self-play worker 0 (pid {pid}) goes on after ")
        os.kill(pid, signal.SIGSTOP)  # stopped again: close() continues it, then stops it
        assert looking_after(backend, lambda: process_state(pid) == "T", 10)
    finally:
        backend.close()
    assert backend.procs[0].exitcode is not None and backend.restarts == [0]


def test_a_running_self_play_process_that_writes_no_shard_is_named_in_one_warning(tmp_path):
    """Hung (alive, not stopped, writing nothing): one warning after ``hung_warn_s``, none while
    paused for an evaluation. Here the worker plays games whose shard is never due (a shard every
    10,000 games) in place of a deadlock."""
    lines: list[str] = []
    backend = selfplay_backend(tmp_path, lines, shard_games=10_000, hung_warn_s=2.0, hung_look_s=0.1)
    try:
        pid = backend.procs[0].pid
        backend.pause()
        time.sleep(2.5)
        backend.check()  # paused: waiting is expected
        assert lines[1:] == []
        backend.resume()
        assert looking_after(backend, lambda: len(lines) > 1, 60)
        time.sleep(0.5)
        backend.check()  # one warning, not one a look
        (warning,) = lines[1:]
        assert re.fullmatch(rf"warning: self-play worker 0 \(pid {pid}\) is running but has written no shard "
                            rf"for \d+ s \(hung\? a deadlock, a stalled disk\); kill -9 {pid} restarts it",
                            warning), warning
    finally:
        backend.close()


# ----- a full disk: whole runs, resumed ------------------------------------------------------------


@pytest.mark.parametrize("pattern,nth", [
    ("config.yaml", 1),  # at the start, before anything else
    ("ckpt_00000002.pt", 1),  # a checkpoint
    ("shard_*.npz", 1),  # a replay shard (in the trainer: selfplay.workers=0)
    ("games_000.txt", 1),  # self-play's game records
    ("ckpt_00000002_*.pt", 1),  # the frozen copy of a checkpoint due an evaluation
    ("ledger.json", 3),  # the evaluations' ledger
    ("ledger.json.sha256", 3),  # its checksum, written before it
    ("evaluation.json", 1),  # the record of a decided evaluation, in its results directory
    ("games.jsonl", 1),  # an evaluation's game records
    ("best.pt", 1),  # the promoted checkpoint
    ("final.pt", 1),  # the final network
    ("summary.json", 2),  # an arena's tables
])
def test_a_full_disk_stops_the_run_naming_the_file_and_the_same_job_resumes(tmp_path, monkeypatch,
                                                                               pattern, nth):
    run_dir = tmp_path / "run"
    cfg = [*TINY_RUN, f"run_dir={run_dir}"]
    disk = FullDisk(pattern, nth)
    with monkeypatch.context() as m:
        m.setattr(os, "fsync", disk)
        with pytest.raises(OSError) as raised:
            train(compose_config(cfg), log=lambda _: None)
    assert is_disk_full(raised.value) and len(disk.hits) == 1
    assert failed_file(raised.value) == str(disk.hits[0])  # the line hive-train prints names it
    assert temp_files(run_dir) == []
    train(compose_config(cfg), log=lambda _: None)
    assert_consistent(run_dir, 4)


def test_hive_train_on_a_full_disk_at_its_start_says_one_line(tmp_path):
    """Hydra's own copies of the config, written before the job starts: 2 KB is too little."""
    run_dir = tmp_path / "run"

    def limited():
        resource.setrlimit(resource.RLIMIT_FSIZE, (2048, resource.RLIM_INFINITY))

    proc = subprocess.run([sys.executable, "-m", "scripts.train", "experiment=smoke", f"run_dir={run_dir}"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300, preexec_fn=limited)
    assert proc.returncode == DISK_FULL_EXIT and proc.stdout == "", proc.stdout + proc.stderr
    hydra_yaml = run_dir / "hydra" / "hydra.yaml"
    assert proc.stderr == (f"hive-train: cannot write {hydra_yaml}: file too large for the file size limit "
                           "(ulimit -f); nothing the run reads back is half written: raise the limit and run "
                           "the same command to resume\n")


@pytest.mark.slow
def test_hive_train_past_the_file_size_limit_says_one_line_and_resumes(tmp_path):
    """The issue's own try, `ulimit -f 100` on a smoke run, now: exit 74 and one line naming the
    checkpoint (the first file past 100 KB), nothing half written; without the limit the same
    command resumes and finishes."""
    run_dir = tmp_path / "run"
    cmd = [sys.executable, "-m", "scripts.train", "experiment=smoke", f"run_dir={run_dir}",
           "eval.games=2", "eval.sims=2", "eval.final_games=2", "eval.final_sims=2"]

    def limited():
        resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, resource.RLIM_INFINITY))

    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600, preexec_fn=limited)
    assert proc.returncode == DISK_FULL_EXIT, proc.stdout[-2000:] + proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    (line,) = proc.stderr.splitlines()
    ckpt = run_dir / "checkpoints" / "ckpt_00000010.pt"
    assert line == (f"hive-train: cannot write {ckpt}: file too large for the file size limit (ulimit -f); "
                    "nothing the run reads back is half written: raise the limit and run the same command "
                    "to resume")
    assert not ckpt.exists() and temp_files(run_dir) == []
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr
    assert "resumed from checkpoint step 0" in proc.stdout
    assert_consistent(run_dir, 20)


# ----- damaged files found on resume -------------------------------------------------------------


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory) -> Path:
    """A tiny run that ended green (4 steps, evaluated at 2 and 4), copied by each test."""
    run_dir = tmp_path_factory.mktemp("finished") / "run"
    train(compose_config([*TINY_RUN, f"run_dir={run_dir}"]), log=lambda _: None)
    return run_dir


def damage(path: Path, how: str) -> None:
    """Truncate ``path`` to half its bytes, or flip the bits of a byte in its middle."""
    data = bytearray(path.read_bytes())
    if how == "truncated":
        path.write_bytes(data[: len(data) // 2])
    else:
        data[len(data) // 2] ^= 0xFF
        path.write_bytes(bytes(data))


def resume(run_dir: Path, *overrides: str) -> list[str]:
    """The run of ``run_dir`` rerun (the tiny job, ``overrides`` after it) to its end; its lines."""
    lines: list[str] = []
    train(compose_config([*TINY_RUN, f"run_dir={run_dir}", *overrides]), log=lines.append)
    return lines


def copy_of(run_dir: Path, tmp_path: Path) -> Path:
    import shutil

    return Path(shutil.copytree(run_dir, tmp_path / "run"))


@pytest.mark.parametrize("how", ["truncated", "flipped"])
def test_a_damaged_checkpoint_is_skipped_with_one_warning_and_its_steps_trained_again(finished_run, tmp_path,
                                                                                       how):
    run_dir = copy_of(finished_run, tmp_path)
    newest = run_dir / "checkpoints" / "ckpt_00000004.pt"
    damage(newest, how)
    lines = resume(run_dir)
    (warning,) = [line for line in lines if line.startswith("warning:")]
    assert warning.startswith(f"warning: skipping checkpoint: {newest} is ")
    assert "resumed from checkpoint step 2 (1 shards seen)" in lines
    assert read_checkpoint(newest)["step"] == 4  # trained again, and evaluated afresh
    assert_consistent(run_dir, 4)


@pytest.mark.parametrize("how", ["truncated", "flipped"])
def test_a_damaged_best_pt_is_ignored_with_one_warning_and_the_next_evaluation_replaces_it(
        finished_run, tmp_path, how):
    run_dir = copy_of(finished_run, tmp_path)
    damage(run_dir / "checkpoints" / "best.pt", how)
    lines = resume(run_dir, "train.steps=6")
    (warning,) = [line for line in lines if line.startswith("warning:")]
    assert warning.startswith("warning: ignoring best.pt: ")
    assert warning.endswith("; the next evaluated checkpoint becomes best")
    assert_consistent(run_dir, 6)
    checkpoints = run_dir / "checkpoints"
    assert file_hash(checkpoints / "best.pt") == file_hash(checkpoints / "ckpt_00000006.pt")


@pytest.mark.parametrize("how", ["truncated", "flipped"])
def test_a_damaged_final_pt_is_written_again_with_one_warning(finished_run, tmp_path, how):
    run_dir = copy_of(finished_run, tmp_path)
    final = run_dir / "checkpoints" / "final.pt"
    good = read_checkpoint(final)["model"]
    damage(final, how)
    lines = resume(run_dir)
    (warning,) = [line for line in lines if line.startswith("warning:")]
    assert warning.startswith(f"warning: {final} is ") and warning.endswith("; writing it again from step 4")
    again = read_checkpoint(final)["model"]
    assert all(again[k].equal(good[k]) for k in good)  # the same network
    assert_consistent(run_dir, 4)


@pytest.mark.parametrize("how", ["truncated", "flipped"])
def test_a_damaged_ledger_of_a_run_without_records_is_rebuilt_from_best_pt(finished_run, tmp_path, how):
    """A run from before the evaluations' records (``evaluation.json``): the
    evaluations cannot be restored, each is named in the warning, and best.pt is recorded as the
    last promoted evaluation (the old rebuild). The restored case: tests/training/test_ledger_restore.py."""
    run_dir = copy_of(finished_run, tmp_path)
    ledger = run_dir / "eval" / "ledger.json"
    before = json.loads(ledger.read_text())["evaluations"]
    for record in (run_dir / "eval").glob("step_*/evaluation.json"):
        record.unlink()
    damage(ledger, how)
    lines = resume(run_dir, "train.steps=6")
    (warning,) = [line for line in lines if line.startswith("warning:")]
    assert warning.startswith(f"warning: {ledger} is unreadable (")
    best = [e for e in before if e["promoted"]][-1]
    assert (f"; moved to ledger.json.damaged); restored 0 finished evaluation(s) (steps none), 0 "
            f"unfinished due again; best.pt (step {best['step']}) recorded as the last promoted (the last "
            f"restored: none); not restorable: {len(before)} (") in warning
    assert all(f"{e['dir']}: no evaluation.json" in warning for e in before)
    assert (run_dir / "eval" / "ledger.json.damaged").is_file()
    entries = json.loads(ledger.read_text())["evaluations"]
    assert entries[0] == {key: best[key] for key in ("step", "checkpoint", "state", "dir", "promoted")} | {
        "rival": None}
    assert_consistent(run_dir, 6)


def test_a_restored_ledger_finishes_the_evaluation_that_was_under_way(finished_run, tmp_path):
    """A process killed during an evaluation (its checkpoint frozen, its ledger entry started, no
    record yet), then the ledger damaged: the frozen copy is due again, its games resume."""
    from training.gating import copy_atomic

    run_dir = copy_of(finished_run, tmp_path)
    ledger = run_dir / "eval" / "ledger.json"
    entries = json.loads(ledger.read_text())["evaluations"]
    last = entries[-1]
    frozen = run_dir / "eval" / "frozen" / f"ckpt_{last['step']:08d}_{last['checkpoint']}.pt"
    copy_atomic(run_dir / "checkpoints" / f"ckpt_{last['step']:08d}.pt", frozen)
    (run_dir / "eval" / last["dir"] / "evaluation.json").unlink()  # not decided yet
    ledger.write_text('{"version": 1, "evaluations": [')  # torn
    lines = resume(run_dir)
    (warning,) = [line for line in lines if line.startswith("warning:")]
    assert f"restored {len(entries) - 1} finished evaluation(s)" in warning
    assert "1 unfinished due again" in warning and warning.endswith("not restorable: none")
    assert any(line.startswith(f"step {last['step']}: finishing its evaluation") for line in lines)
    assert not frozen.exists()
    assert_consistent(run_dir, 4)


def test_a_damaged_record_of_an_evaluation_is_moved_aside_and_its_games_played_again(tmp_path):
    run_dir = tmp_path / "run"  # not a copy: the players' specs name the run directory's files
    resume(run_dir)
    (results,) = (run_dir / "eval").glob("final_*")
    games = results / "games.jsonl"
    first, *rest = games.read_text().splitlines(keepends=True)
    games.write_text(first.replace('"result"', '"res\xfclt"') + "".join(rest))  # a middle line damaged
    lines = resume(run_dir)
    (warning,) = [line for line in lines if line.startswith("warning:")]
    assert warning.startswith(f"warning: {games} line 1: ") and warning.endswith(
        f"; moved to {results.name}.damaged, its games are played again")
    assert len(games.read_text().splitlines()) == 2
    assert_consistent(run_dir, 4)


@pytest.mark.parametrize("how", ["truncated", "flipped"])
def test_a_damaged_config_yaml_gives_way_to_the_checkpoints_settings(finished_run, tmp_path, how):
    run_dir = copy_of(finished_run, tmp_path)
    config = run_dir / "config.yaml"
    damage(config, how)
    lines = resume(run_dir, "train.steps=6")  # a change it may take: compared with the checkpoint's
    assert "hive-train: resuming with changed settings: train.steps: 4 -> 6" in lines
    text = config.read_text()  # written whole again
    assert "  steps: 6\n" in text and text.splitlines()[-1].startswith("# git: ")
    assert_consistent(run_dir, 6)


@pytest.mark.parametrize("how", ["truncated", "flipped"])
def test_files_the_run_does_not_read_back_never_stop_it(finished_run, tmp_path, how):
    """TensorBoard's events (a resume writes a new event file) and self-play's game records."""
    run_dir = copy_of(finished_run, tmp_path)
    (events,) = (run_dir / "tb").iterdir()
    damage(events, how)
    damage(run_dir / "replay" / "games_000.txt", how)
    lines = resume(run_dir, "train.steps=6")
    assert not [line for line in lines if line.startswith("warning:")]
    assert len(list((run_dir / "tb").iterdir())) == 2
    assert_consistent(run_dir, 6)


def damaged_shards_logged(run_dir: Path) -> list[float]:
    """The values of ``replay/damaged_shards`` in the run's TensorBoard events."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(run_dir / "tb"))
    acc.Reload()
    return [e.value for e in acc.Scalars("replay/damaged_shards")]


@pytest.mark.parametrize("how", ["truncated", "flipped"])
def test_a_damaged_replay_shard_is_skipped_with_one_warning_and_counted(finished_run, tmp_path, how):
    run_dir = copy_of(finished_run, tmp_path)
    shard = ReplayStore(run_dir / "replay").shard_paths()[-1]
    damage(shard, how)
    lines = resume(run_dir, "train.steps=8")
    (warning,) = [line for line in lines if line.startswith("warning:")]
    assert warning.startswith(f"warning: skipping damaged replay shard {shard}: ") and "\n" not in warning
    assert damaged_shards_logged(run_dir)[-2:] == [1.0, 1.0]  # the checkpoints of steps 6 and 8
    assert_consistent(run_dir, 8, damaged=(shard.name,))


# ----- the wall clock jumps (an NTP step) ----------------------------------------------------------


@pytest.fixture(params=[3600.0, -3600.0], ids=["forward", "back"])
def jumping_wall_clock(request, monkeypatch):
    """``time.time`` jumps by an hour (forward, or back) at each call: every budget, backoff and
    deadline must count on a monotonic clock (wall time only stamps what is shown or recorded)."""
    import itertools
    import time

    real, calls = time.time, itertools.count(1)
    monkeypatch.setattr(time, "time", lambda: real() + request.param * next(calls))
    return request.param


def test_a_training_budget_is_not_fooled_by_the_wall_clock(tmp_path, jumping_wall_clock):
    import time

    start = time.perf_counter()
    train(compose_config([*TINY_RUN, f"run_dir={tmp_path / 'run'}", "train.max_minutes=30"]),
          log=lambda _: None)
    spent = time.perf_counter() - start
    state = read_checkpoint(tmp_path / "run" / "checkpoints" / "ckpt_00000004.pt")
    assert state["step"] == 4  # all its steps: the budget did not run out at the first jump
    assert 0 < state["trainer"]["seconds"] <= spent  # training time as it passed, not as the wall clock says


def test_a_move_s_time_budget_is_not_fooled_by_the_wall_clock(jumping_wall_clock):
    import time

    from hive_env.game import Game
    from players import Budget, make_player, search_stats

    player = make_player("alphabeta", seed=0)
    game = Game("Base")
    start = time.perf_counter()
    player.choose(game, Budget(time_s=0.3))
    spent = time.perf_counter() - start
    assert 0.2 <= spent <= 5.0  # it searched until its time was up, and stopped then
    assert search_stats(player)["nodes"] > 100


@pytest.mark.slow
def test_a_sweep_job_on_a_full_disk_fails_in_one_line_and_the_sweep_resumes_it(tmp_path):
    sweep = tmp_path / "sweep"
    cmd = [sys.executable, "-m", "scripts.train", "-m", "experiment=smoke", "seed=1", "eval.games=2",
           "eval.sims=2", "eval.final_games=2", "eval.final_sims=2", f"hydra.sweep.dir={sweep}"]

    def limited():
        resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, resource.RLIM_INFINITY))

    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600, preexec_fn=limited)
    assert proc.returncode == 1 and "Traceback" not in proc.stdout + proc.stderr, proc.stderr
    (job,) = json.loads((sweep / "sweep.json").read_text())["jobs"]
    ckpt = sweep / job["run_dir"] / "checkpoints" / "ckpt_00000010.pt"
    assert job["status"] == "failed" and job["error"] == (
        f"error: cannot write {ckpt}: file too large for the file size limit (ulimit -f); nothing the run "
        "reads back is half written: raise the limit and run the same command to resume")
    assert f"hive-train: {Path(job['run_dir']).name}: {job['error']}" in proc.stderr.splitlines()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (job,) = json.loads((sweep / "sweep.json").read_text())["jobs"]
    assert job["status"] == "done"
    assert_consistent(sweep / job["run_dir"], 20)


@pytest.mark.slow
def test_hive_train_survives_a_killed_self_play_worker_and_a_damaged_shard_and_ends_green(tmp_path):
    """The issue's faults on the command a person runs: a self-play process of a smoke run killed
    by SIGKILL (as the OOM killer does) in the middle of the run is restarted (one line) and the
    run ends green; then a shard damaged before a resume is skipped with one warning, counted, and
    the resumed run ends green too. Nothing written is lost beyond the damaged shard."""
    run_dir, out = tmp_path / "run", tmp_path / "out.txt"
    # 120 steps: long enough that the killed worker's restart (1 s of backoff, then a process start
    # of seconds on a loaded machine) comes before the run's end (at 30 it once came after)
    quick = ["selfplay.workers=2", "train.steps=120", "eval.games=2", "eval.sims=2", "eval.final_games=2",
             "eval.final_sims=2"]
    replay = ReplayStore(run_dir / "replay")

    def pids() -> list[int]:
        m = re.search(r"self-play: 2 worker process\(es\), pid\(s\) (\d+), (\d+)", out.read_text())
        return [int(m.group(1)), int(m.group(2))] if m else []

    with open(out, "w") as stdout:
        proc = hive_train(run_dir, *quick, stdout=stdout)
    try:
        assert wait_for(proc, lambda: bool(pids()) and replay.shard_count(1) >= 1, 600), out.read_text()
        victim = pids()[1]
        os.kill(victim, signal.SIGKILL)
        assert proc.wait(timeout=600) == 0, out.read_text()[-3000:]
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    text = out.read_text()
    assert "Traceback" not in text
    (line,) = [line for line in text.splitlines() if "died (" in line]
    assert f"self-play worker 1 (pid {victim}) died (killed by SIGKILL, the OOM killer's signal)" in line
    assert line.endswith("(restart 1)")
    assert_consistent(run_dir, 120)

    shard = replay.shard_paths()[0]
    damage(shard, "flipped")
    proc = subprocess.run([sys.executable, "-m", "scripts.train", "experiment=smoke", f"run_dir={run_dir}",
                           *quick, "train.steps=130"], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr
    warnings_ = [line for line in proc.stdout.splitlines() if "warning:" in line]
    assert len(warnings_) == 1 and f"skipping damaged replay shard {shard}: " in warnings_[0], warnings_
    assert damaged_shards_logged(run_dir)[-1] == 1.0
    assert_consistent(run_dir, 130, damaged=(shard.name,))


@pytest.fixture
def small_disk(tmp_path):
    """A 600 KB tmpfs filesystem (a real full disk: ENOSPC), grown by calling the fixture's value;
    skipped where the tests may not mount one (not root, no tmpfs)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=600k", "tmpfs", str(mount)],
                          capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {made.stderr.strip() or made.returncode}")

    def grow() -> None:
        subprocess.run(["mount", "-o", "remount,size=256m", str(mount)], check=True)

    try:
        yield mount, grow
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


@pytest.mark.slow
def test_hive_train_on_a_small_filesystem_stops_in_one_line_and_resumes_once_it_has_room(small_disk):
    """A disk that fills for real: a smoke run on a 600 KB filesystem stops with exit 74 and one
    line naming a file of the run and the full device, nothing half written; once the filesystem
    has room the same command resumes and ends green with nothing lost."""
    mount, grow = small_disk
    run_dir = mount / "run"
    cmd = [sys.executable, "-m", "scripts.train", "experiment=smoke", f"run_dir={run_dir}",
           "eval.games=2", "eval.sims=2", "eval.final_games=2", "eval.final_sims=2"]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == DISK_FULL_EXIT, proc.stdout[-2000:] + proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    (line,) = proc.stderr.splitlines()
    assert re.fullmatch(rf"hive-train: cannot write {re.escape(str(run_dir))}/\S+: no space left on device; "
                        r"nothing the run reads back is half written: free space on its disk and run the "
                        r"same command to resume", line), line
    assert temp_files(run_dir) == []
    grow()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr
    assert_consistent(run_dir, 20)
