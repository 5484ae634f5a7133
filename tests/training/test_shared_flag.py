"""training.shared_flag: the trainer's stop and pause flags, across processes and through kills."""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import threading
import time

from training.shared_flag import SharedFlag


def _set_after(flag: SharedFlag, seconds: float) -> None:
    time.sleep(seconds)
    flag.set()


def _spin(flag: SharedFlag, seen: SharedFlag) -> None:
    """Read ``flag`` as fast as possible (a worker's loop, with nothing else in it)."""
    seen.set()
    while True:
        flag.is_set()


def _wait_forever(flag: SharedFlag, seen: SharedFlag) -> None:
    seen.set()
    flag.wait()


def _use(flag: SharedFlag, done: threading.Event) -> None:
    """What the trainer does with its flags: set, read, wait, clear; ``done`` at the end."""
    flag.set()
    assert flag.is_set() and flag.wait(1)
    flag.clear()
    done.set()


def test_set_clear_and_wait_behave_as_threading_events_do():
    flag = SharedFlag.create(mp.get_context("spawn"))
    assert not flag.is_set()
    start = time.monotonic()
    assert flag.wait(0.2) is False and time.monotonic() - start >= 0.2
    flag.set()
    assert flag.is_set() and flag.wait(0) is True and flag.wait() is True
    flag.clear()
    assert not flag.is_set()
    assert SharedFlag.create(mp.get_context("spawn"), is_set=True).is_set()


def test_a_flag_set_in_another_process_ends_a_wait_here():
    ctx = mp.get_context("spawn")
    flag = SharedFlag.create(ctx)
    child = ctx.Process(target=_set_after, args=(flag, 0.5), daemon=True)
    child.start()
    try:
        assert flag.wait(60) is True
    finally:
        child.join(10)


def test_processes_killed_while_reading_or_waiting_leave_the_flag_working():
    """SIGKILL at any instant of a reader's loop or of a wait (a multiprocessing.Event jams here:
    its lock stays taken, or its sleeper count stays up, and the next set() never returns)."""
    ctx = mp.get_context("spawn")
    flag = SharedFlag.create(ctx)
    for target in (_spin, _wait_forever, _spin, _wait_forever):
        seen = SharedFlag.create(ctx)
        child = ctx.Process(target=target, args=(flag, seen), daemon=True)
        child.start()
        assert seen.wait(120), "the child did not start"
        time.sleep(0.2)
        os.kill(child.pid, signal.SIGKILL)
        child.join(10)
        assert child.exitcode == -signal.SIGKILL
        done = threading.Event()
        threading.Thread(target=_use, args=(flag, done), daemon=True).start()
        assert done.wait(10), f"the flag jammed after a kill in {target.__name__}"
