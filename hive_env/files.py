"""Atomic file writes (readers never see half a file, and a crash leaves the old one intact),
file hashes, and the errors of a full disk (:func:`is_disk_full`), which name the file they hit
(:func:`naming`)."""

from __future__ import annotations

import errno
import hashlib
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _umask()
"""The process's umask at import (reading it means setting it, so it is read once)."""

DISK_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})
"""The errors of a write that found no room: no space left on the device, the disk quota
exceeded, the file size limit (``ulimit -f``; Python ignores SIGXFSZ, so the write fails with
EFBIG instead of the process being killed)."""


def is_disk_full(e: BaseException) -> bool:
    """Whether ``e`` is a write that found no room (:data:`DISK_FULL_ERRNOS`)."""
    return isinstance(e, OSError) and e.errno in DISK_FULL_ERRNOS


def named(e: OSError, path: str | Path) -> OSError:
    """``e`` (its errno and text) as an error naming ``path``: ``write()`` and ``fsync()`` fail
    without a file name, and a message must say which file found no room."""
    return OSError(e.errno, e.strerror, str(path))


@contextmanager
def naming(path: str | Path) -> Iterator[None]:
    """Re-raise a disk-full error (:func:`is_disk_full`) raised inside as one naming ``path``
    (:func:`named`; an append to a record file, say)."""
    try:
        yield
    except OSError as e:
        if is_disk_full(e) and e.filename != str(path):
            raise named(e, path) from e
        raise


@contextmanager
def atomic_open(path: str | Path, mode: str = "wb", **kwargs: Any) -> Iterator[IO]:
    """Open a temp file beside ``path`` for writing; on success fsync it and rename it over
    ``path``, on failure delete it. Temp names end in ``.tmp`` (``.NAME.XXXX.tmp``). A full disk
    (:func:`is_disk_full`) raises an OSError naming ``path``, which is left as it was."""
    path = Path(path)
    with naming(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:
            os.fchmod(fd, 0o666 & ~_UMASK)  # as open() would make it (mkstemp makes files private)
            with os.fdopen(fd, mode, **kwargs) as f:
                yield f
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def write_atomic(path: str | Path, data: str | bytes) -> Path:
    """Write ``data`` (text as UTF-8) to ``path`` atomically; returns the path."""
    if isinstance(data, str):
        with atomic_open(path, "w", encoding="utf-8", newline="") as f:
            f.write(data)
    else:
        with atomic_open(path, "wb") as f:
            f.write(data)
    return Path(path)


def sha256_file(path: str | Path) -> str:
    """The SHA-256 of a file's bytes (hex): how a checkpoint is named across machines."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
