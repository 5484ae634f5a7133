"""scripts/gpu_check.sh on a machine without CUDA: one line, exit 0, at once (before any setup)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "gpu_check.sh"


def test_without_nvidia_smi_says_so_and_exits_0(tmp_path: Path) -> None:
    bash = shutil.which("bash")
    assert bash is not None
    empty = tmp_path / "bin"  # PATH holds nothing, so no nvidia-smi
    empty.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPU_CHECK_")} | {"PATH": str(empty)}
    report = tmp_path / "report.json"
    done = subprocess.run([bash, str(SCRIPT), str(report)], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "gpu_check: no CUDA on this machine (nvidia-smi not found); nothing to check"]
    assert done.stderr == ""
    assert not report.exists()
    assert list(tmp_path.iterdir()) == [empty]  # no setup, no work dir, no report


def test_bad_device_is_refused(tmp_path: Path) -> None:
    bash = shutil.which("bash")
    assert bash is not None
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPU_CHECK_")}
    done = subprocess.run([bash, str(SCRIPT)], cwd=tmp_path, env=env | {"GPU_CHECK_DEVICE": "tpu"},
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert "GPU_CHECK_DEVICE must be cuda or cpu" in done.stderr
