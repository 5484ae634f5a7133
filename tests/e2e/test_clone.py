"""A clone checks out on its own: no test of the project's own facts needs ``../shared``."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

import pytest

from helpers import ROOT


def project_files() -> list[str]:
    """Tracked files and untracked ones git does not ignore (what a commit of this tree holds)."""
    out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [name for name in out.split("\0") if name and (ROOT / name).is_file()]


@pytest.mark.slow  # ~40 s: the clone compiles the kernels from a cold cache
def test_perft_tests_run_in_a_clone_without_shared(tmp_path):
    clone = tmp_path / "clone"  # no tmp_path/shared beside it
    for name in project_files():
        (clone / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, clone / name)
    assert not (clone.parent / "shared").exists()
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs",
                           "tests/hive_env/test_perft.py"], cwd=clone, capture_output=True, text=True,
                          timeout=600)
    tail = proc.stdout[-3000:] + proc.stderr[-2000:]
    assert proc.returncode == 0, tail
    assert "passed" in proc.stdout and "skipped" not in proc.stdout.lower(), tail


def test_readme_and_docs_need_nothing_outside_the_clone():
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        assert "../shared" not in path.read_text(encoding="utf-8"), path


def test_every_console_script_has_its_module():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    for name, target in scripts.items():
        module, _, function = target.partition(":")
        path = ROOT / (module.replace(".", "/") + ".py")
        assert path.is_file(), f"{name} -> {target}: no {path.relative_to(ROOT)}"
        assert f"def {function}(" in path.read_text(encoding="utf-8"), f"{name} -> {target}"


def make_setup_dry_run(tmp_path, *overrides: str, nvidia_smi: bool) -> str:
    """``make -n -B setup`` (print the recipe, run nothing) with a PATH holding only a fake
    ``nvidia-smi`` or nothing, so the machine's own GPU does not matter."""
    bin_dir = Path(tempfile.mkdtemp(dir=tmp_path))
    if nvidia_smi:
        (bin_dir / "nvidia-smi").write_text("#!/bin/sh\n", encoding="utf-8")
        (bin_dir / "nvidia-smi").chmod(0o755)
    make = shutil.which("make")
    if make is None:
        pytest.skip("make not installed")
    proc = subprocess.run([make, "-n", "-B", "setup", *overrides], cwd=ROOT, capture_output=True, text=True,
                          env={"PATH": str(bin_dir), "HOME": str(tmp_path)}, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return next(line for line in proc.stdout.splitlines() if '"torch==' in line)


CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def test_make_setup_takes_the_cpu_index_without_nvidia_smi(tmp_path):
    assert f"--extra-index-url {CPU_INDEX} " in make_setup_dry_run(tmp_path, nvidia_smi=False)


def test_make_setup_takes_pypi_with_nvidia_smi(tmp_path):
    assert "index-url" not in make_setup_dry_run(tmp_path, nvidia_smi=True)


def test_make_setup_torch_index_overrides(tmp_path):
    cuda = "https://download.pytorch.org/whl/cu126"
    line = make_setup_dry_run(tmp_path, f"TORCH_INDEX={cuda}", nvidia_smi=False)
    assert f"--extra-index-url {cuda} " in line and CPU_INDEX not in line
    assert "index-url" not in make_setup_dry_run(tmp_path, "TORCH_INDEX=", nvidia_smi=False)
