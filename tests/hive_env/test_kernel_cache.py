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


def test_a_constant_a_kernel_compiles_in_keys_the_cache_wherever_it_is_defined(tmp_path):
    for package in ("hive_env", "search", "training"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    kernel = tmp_path / "search" / "k.py"
    kernel.write_text("from numba import njit\nfrom hive_env.pieces import N\nfrom . import util\n")
    (tmp_path / "search" / "util.py").write_text("import hive_env.grid\n")
    (tmp_path / "training" / "config.py").write_text("a = 1\n")
    sources = {"pieces": "N = 1\n", "grid": "W = 1\n"}

    def key() -> str:
        for name, text in sources.items():
            (tmp_path / "hive_env" / f"{name}.py").write_text(text)
        return source_key(tmp_path)

    base = key()
    (tmp_path / "training" / "config.py").write_text("a = 2\n")
    assert key() == base  # imported by no kernel: the cache stays
    sources["pieces"] = "N = 2\n"
    changed = key()
    assert changed != base  # ``from hive_env.pieces import N`` in a kernel's module
    sources["grid"] = "W = 2\n"
    assert key() != changed  # through ``from . import util`` and util's ``import hive_env.grid``


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
