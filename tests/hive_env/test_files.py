"""Atomic writes: whole files or none, with the permissions a plain open() would give."""

from __future__ import annotations

import os
import stat

import pytest

from hive_env.files import atomic_open, write_atomic


def test_a_written_file_is_whole_and_no_temp_file_remains(tmp_path):
    path = write_atomic(tmp_path / "sub" / "a.txt", "hello\n")
    assert path.read_text() == "hello\n"
    write_atomic(path, b"\x00\x01")
    assert path.read_bytes() == b"\x00\x01"
    assert [p.name for p in path.parent.iterdir()] == ["a.txt"]


def test_a_failed_write_leaves_the_old_file_and_no_temp_file(tmp_path):
    path = write_atomic(tmp_path / "a.txt", "old")
    with pytest.raises(RuntimeError), atomic_open(path, "w") as f:
        f.write("half")
        raise RuntimeError("crash while writing")
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["a.txt"]


def test_files_get_the_permissions_of_a_plain_open(tmp_path):
    plain = tmp_path / "plain"
    plain.write_text("x")
    atomic = write_atomic(tmp_path / "atomic", "x")
    assert stat.S_IMODE(os.stat(atomic).st_mode) == stat.S_IMODE(os.stat(plain).st_mode)
