"""A flag the trainer sets and its self-play processes poll, that no killed process can jam.

``multiprocessing.Event`` guards its flag with a lock and wakes waiters through semaphores: a
process killed (SIGKILL, the OOM killer) while it holds that lock, or while it waits on the event,
leaves the lock taken or a sleeper counted for good, and the next ``set()`` or ``is_set()`` of any
process blocks forever (a trainer whose worker was killed mid-move hangs).
:class:`SharedFlag` is one byte of shared memory with no lock: a write of one byte is atomic, a
reader sees the old or the new value, and a process killed at any instant leaves nothing held.
Waiting polls (:data:`POLL_S`), which is fine for the trainer's pauses of seconds.
"""

from __future__ import annotations

import ctypes
import time
from dataclasses import dataclass
from typing import Any

POLL_S = 0.05
"""Seconds between two looks of :meth:`SharedFlag.wait`."""


@dataclass
class SharedFlag:
    """``threading.Event``'s ``set``/``clear``/``is_set``/``wait`` over a lock-free shared byte;
    passed to processes a multiprocessing context starts (spawn or fork)."""

    value: Any  # a ctx.RawValue(c_bool)

    @classmethod
    def create(cls, ctx: Any, is_set: bool = False) -> SharedFlag:
        """A new flag in shared memory of the multiprocessing context ``ctx``."""
        return cls(ctx.RawValue(ctypes.c_bool, is_set))

    def set(self) -> None:
        self.value.value = True

    def clear(self) -> None:
        self.value.value = False

    def is_set(self) -> bool:
        return bool(self.value.value)

    def wait(self, timeout: float | None = None) -> bool:
        """Until the flag is set or ``timeout`` seconds have passed; whether it is set."""
        end = None if timeout is None else time.monotonic() + timeout
        while not self.is_set():
            left = None if end is None else end - time.monotonic()
            if left is not None and left <= 0:
                return False
            time.sleep(POLL_S if left is None else min(POLL_S, left))
        return True
