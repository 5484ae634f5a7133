"""scripts.bench_encode: prints the CPU and every section of the encoder; a bad game type is a
usage error."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from hive_env.encode_sections import SECTIONS

ROOT = Path(__file__).resolve().parents[2]


def test_the_command_names_the_cpu_and_every_section():
    run = subprocess.run([sys.executable, "-m", "scripts.bench_encode", "--positions", "8", "--repeats", "1"],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("machine: ") and "cores" in lines[0]
    for name in SECTIONS:
        assert any(line.strip().startswith(name) for line in lines), name
    bad = subprocess.run([sys.executable, "-m", "scripts.bench_encode", "--game-type", "Chess"],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert bad.returncode == 2 and "unknown game type" in bad.stderr and "Traceback" not in bad.stderr
