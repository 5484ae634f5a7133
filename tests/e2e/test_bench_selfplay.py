"""scripts.bench_selfplay: several backends and the constant-network ceiling in one run, as rows
printed and written as JSON (what training/gpu_check.py reads)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_one_run_measures_each_backend_and_the_ceiling(tmp_path):
    out = tmp_path / "selfplay.json"
    run = subprocess.run([sys.executable, "-m", "scripts.bench_selfplay", "--seconds", "0.2", "--games", "4",
                          "--sims", "2", "--ply-cap", "30", "--inference", "numba", "auto", "constant",
                          "--json", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    rows = json.loads(out.read_text())["rows"]
    assert [r["inference"] for r in rows] == ["numba", "auto", "constant"]
    assert all(r["positions_per_s"] > 0 for r in rows) and rows[0]["vs_first"] == 1.0
    assert rows[1]["what"].startswith("inference numba (fp32) below 16 positions, packed from 16")
    assert rows[2]["what"].startswith("constant network: the CPU-side ceiling")
    printed = [line.split(":")[0].strip() for line in run.stdout.splitlines()]
    assert printed == ["machine", "numba", "auto", "constant"]  # the CPU named first
    machine = json.loads(out.read_text())["machine"]
    assert "cores" in machine and "cpu flags" in machine and machine in run.stdout.splitlines()[0]
