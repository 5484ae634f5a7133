"""numba's kernel cache is keyed by the source of every kernel, so an edit never runs stale code."""

from __future__ import annotations

import os
import subprocess
import sys

from hive_env._kernel_cache import source_key

from helpers import ROOT


def _tree(tmp_path, kernel: str, other: str):
    (tmp_path / "hive_env").mkdir(exist_ok=True)
    (tmp_path / "training").mkdir(exist_ok=True)
    (tmp_path / "hive_env" / "k.py").write_text(f"from numba import njit\n{kernel}\n")
    (tmp_path / "training" / "config.py").write_text(other)
    return source_key(tmp_path)


def test_an_edit_to_any_kernel_file_changes_the_key_and_others_do_not(tmp_path):
    base = _tree(tmp_path, "x = 1", "a = 1")
    assert _tree(tmp_path, "x = 1", "a = 2") == base  # no kernel there: the cache stays
    assert _tree(tmp_path, "x = 2", "a = 2") != base  # a kernel's source changed: a fresh cache


def test_the_cache_lives_under_the_key_unless_numba_cache_dir_is_set(tmp_path):
    code = "import numba, hive_env; print(numba.config.CACHE_DIR)"
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    env.pop("NUMBA_CACHE_DIR", None)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == str(tmp_path / "hive-zero" / f"numba-{source_key(ROOT)}")
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "mine")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == str(tmp_path / "mine")
