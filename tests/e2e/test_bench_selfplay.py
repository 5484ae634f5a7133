"""scripts.bench_selfplay: several backends and the constant-network ceiling in one run, as rows
printed and written as JSON (what scripts/gpu_check.py reads)."""

from __future__ import annotations

import json

from scripts import bench_selfplay


def test_one_run_measures_each_backend_and_the_ceiling(tmp_path, capsys):
    out = tmp_path / "selfplay.json"
    assert bench_selfplay.main(["--seconds", "0.2", "--games", "4", "--sims", "2", "--ply-cap", "30",
                                "--inference", "numba", "auto", "constant", "--json", str(out)]) == 0
    rows = json.loads(out.read_text())["rows"]
    assert [r["inference"] for r in rows] == ["numba", "auto", "constant"]
    assert all(r["positions_per_s"] > 0 for r in rows) and rows[0]["vs_first"] == 1.0
    assert rows[1]["what"].startswith("inference numba (fp32) below 16 positions, packed from 16")
    assert rows[2]["what"].startswith("constant network: the CPU-side ceiling")
    printed = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0].strip() for line in printed] == ["numba", "auto", "constant"]
