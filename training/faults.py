"""What a run does when its disk is full: it stops with one line naming the file and the cause.

A write that finds no room (ENOSPC, EDQUOT, EFBIG: ``hive_env.files.is_disk_full``) ends the run
wherever it happens: in the trainer, in a self-play process (reported to the trainer,
:func:`report_disk_full`) or in TensorBoard's writer thread. Nothing a later step reads is ever
half written, so rerunning the same command once there is room resumes; hive-train prints
:func:`disk_full_line` and exits with :data:`DISK_FULL_EXIT`.

See docs/reliability.md (a full disk).
"""

from __future__ import annotations

import contextlib
import errno
import io
import logging
import sys
import threading
from pathlib import Path
from types import TracebackType
from typing import Any

from hive_env.files import is_disk_full, named

DISK_FULL_EXIT = 74
"""hive-train's exit status after a full disk (``EX_IOERR`` of sysexits.h): fix the disk and
rerun; a bug is 1, a bad setting 2, a signal 128 + its number."""
SELFPLAY_FAILED_EXIT = 70
"""hive-train's exit status when self-play cannot go on (``EX_SOFTWARE`` of sysexits.h): a
self-play worker that keeps failing at its start (:class:`SelfPlayError`)."""


class SelfPlayError(RuntimeError):
    """Self-play cannot go on: a worker process died again and again before writing a shard (a
    checkpoint it cannot load, a broken installation), or every Ray actor is dead for good. Its
    text is the one line hive-train prints (exit :data:`SELFPLAY_FAILED_EXIT`): the worker, how
    it ended (its last error line), where its tracebacks are, and that the same command resumes."""

CLUSTER_LOST_EXIT = 69
"""hive-train's exit status when the Ray cluster lost the run's work past its retries
(``EX_UNAVAILABLE`` of sysexits.h): :class:`ClusterError`."""


class ClusterError(RuntimeError):
    """The Ray cluster cannot carry the run on: an evaluation game lost with its node or worker
    more than ``training.ray_arena.GAME_RETRIES`` times. Its text is the one line hive-train
    prints (exit :data:`CLUSTER_LOST_EXIT`); the same command resumes once the cluster is whole."""


_CAUSES = {
    errno.ENOSPC: ("no space left on device", "free space on its disk"),
    errno.EDQUOT: ("disk quota exceeded", "free space or raise the quota"),
    errno.EFBIG: ("file too large for the file size limit (ulimit -f)", "raise the limit"),
}
"""Each disk-full errno: what happened, and what a person does about it."""


def failed_file(e: OSError) -> str | None:
    """The file a failed write was writing: the error's file name, else the innermost frame of
    its traceback that holds a file object open for writing (``write()`` errors name no file:
    the project's writes name theirs, ``hive_env.files.naming``; this finds those of code
    that does not, e.g. numba's kernel cache); None when neither says."""
    if e.filename is not None:
        return str(e.filename)
    frames = []
    tb: TracebackType | None = e.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    for frame in reversed(frames):
        for value in list(frame.f_locals.values()):
            if (isinstance(value, io.IOBase) and isinstance(getattr(value, "name", None), str)
                    and any(c in getattr(value, "mode", "") for c in "wax+")):
                return value.name
    return None


def disk_full_line(e: OSError) -> str:
    """The one line hive-train prints after a full disk (without its ``hive-train: ``): the file,
    the cause, that nothing the run reads back is half written (Hydra's copies of the config,
    ``train.log`` and TensorBoard's events may end in a torn line or record: none is read
    back), and what to do."""
    cause, remedy = _CAUSES.get(e.errno, (e.strerror or "a write failed", "free space"))
    file = failed_file(e)
    where = f"cannot write {file}" if file else "a write failed"
    return (f"{where}: {cause}; nothing the run reads back is half written: {remedy} and run the "
            "same command to resume")


# ----- self-play processes ------------------------------------------------------------------------


def report_disk_full(e: OSError, errors: Any) -> None:
    """In a self-play process: hand a disk-full error to the trainer through ``errors`` (a
    multiprocessing ``SimpleQueue``; the trainer raises it, :func:`raise_reported`), so that the
    run stops with one line, not a traceback from each process."""
    errors.put((e.errno, e.strerror, failed_file(e)))


def raise_reported(errors: Any) -> None:
    """Raise the disk-full error a self-play process reported (:func:`report_disk_full`), if any."""
    if errors is not None and not errors.empty():
        number, text, file = errors.get()
        raise OSError(number, text, file)


# ----- TensorBoard's writer thread ----------------------------------------------------------------

_previous_hook = None


def quiet_writer_threads() -> None:
    """Keep a disk-full error in TensorBoard's writer thread from printing a traceback: the
    writer raises it again in the trainer at its next call (``training.metrics`` names the event
    file), which stops the run with one line. Any other error of any thread is printed as
    before. Idempotent."""
    global _previous_hook
    if _previous_hook is not None:
        return
    _previous_hook = threading.excepthook

    def hook(args: threading.ExceptHookArgs) -> None:
        if type(args.thread).__name__ == "_AsyncWriterThread" and is_disk_full(args.exc_value):
            return
        _previous_hook(args)

    threading.excepthook = hook


# ----- train.log ----------------------------------------------------------------------------------


def stop_on_log_write_errors(logger: logging.Logger | None = None) -> None:
    """Make a full disk under ``logger``'s file handlers (the root logger's: Hydra's
    ``train.log``) raise from the logging call, naming the file, instead of printing
    ``--- Logging error ---`` and a traceback per line: the run stops as at any full disk.
    The handler is removed first (the way out logs too)."""
    logger = logger or logging.getLogger()
    for handler in logger.handlers:
        if isinstance(handler, logging.FileHandler):
            handler.handleError = _raising(handler, logger)  # type: ignore[method-assign]


def _raising(handler: logging.FileHandler, logger: logging.Logger):
    original = handler.handleError

    def handle_error(record: logging.LogRecord) -> None:
        e = sys.exc_info()[1]
        if not (isinstance(e, OSError) and is_disk_full(e)):
            original(record)
            return
        logger.removeHandler(handler)
        with contextlib.suppress(OSError):  # its buffer finds no room either
            handler.close()
        raise named(e, Path(handler.baseFilename)) from e

    return handle_error
