"""A run's strength curve (training.curve, ``hive-curve``): which checkpoints, one fit, the files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from players import engines
from training.curve import (
    NOKAMUTE,
    SHIPPED,
    Checkpoint,
    CurvePoint,
    CurveSettings,
    first_passing,
    measure,
    pick,
    run_checkpoints,
)

from helpers import ROOT, fake_nokamute


def point(step: int, minutes: float) -> Checkpoint:
    return Checkpoint("run", Path(f"ckpt_{step}.pt"), step, minutes, 0.0, step * 10, 2)


def test_pick_spreads_over_the_minutes_keeps_the_last_and_leaves_out_the_untrained_network():
    ckpts = [point(0, 0.0), *(point(s, s / 100) for s in range(500, 10001, 500))]  # 20 trained
    chosen = pick(ckpts, 4)
    assert [c.step for c in chosen] == [2500, 5000, 7500, 10000]
    assert pick(ckpts[:3], 4) == ckpts[1:3]  # fewer than asked: all trained ones
    assert pick(ckpts[:1], 4) == ckpts[:1]  # only the untrained one: it is the curve
    assert point(500, 3.0).core_minutes == 6.0


def test_first_passing_is_the_earliest_point_above():
    pts = [CurvePoint("r", s, m, 2 * m, 0, e, None, None) for s, m, e in
           ((1, 1.0, -50.0), (2, 2.0, 40.0), (3, 3.0, 10.0), (4, 4.0, 90.0))]
    assert first_passing(pts, 30.0).step == 2
    assert first_passing(pts, 95.0) is None


def test_settings_refuse_what_cannot_be_played():
    with pytest.raises(ValueError, match="even"):
        CurveSettings(games=3)
    with pytest.raises(ValueError, match="anchor"):
        CurveSettings(depths=(1, 3))


def test_a_smoke_run_gets_its_curve_with_nokamute_and_the_shipped_network_on_one_scale(smoke_run, tmp_path,
                                                                                      monkeypatch):
    run_dir, _, returncode = smoke_run
    assert returncode == 0
    ckpts = run_checkpoints(run_dir)
    assert [c.step for c in ckpts] == sorted(c.step for c in ckpts) and ckpts[-1].step > 0
    assert all(c.cpus >= 1 for c in ckpts) and ckpts[-1].minutes >= ckpts[1].minutes
    monkeypatch.setenv(engines.ENV_VAR, str(fake_nokamute(tmp_path)))
    settings = CurveSettings(games=2, sims=2, depths=(1, 2), nokamute_time=0.05, points=2, shipped=True)
    lines: list[str] = []
    curve = measure([run_dir], tmp_path / "curve", settings, log=lines.append)
    assert [p.step for p in curve.points] == [c.step for c in pick(ckpts, 2)]
    assert curve.nokamute is not None and list(curve.references) == ["alphabeta:depth=2", NOKAMUTE, SHIPPED]
    assert curve.references[NOKAMUTE] == curve.nokamute and curve.references["alphabeta:depth=2"][0] == 0.0
    assert all(p.nokamute_wdl and sum(p.nokamute_wdl) == 2 for p in curve.points)
    assert len(lines) == 2 and all("ladder:" in line for line in lines)
    data = json.loads((tmp_path / "curve" / "curve.json").read_text())
    assert data["anchor"] == "alphabeta:depth=2" and len(data["points"]) == 2
    table = (tmp_path / "curve" / "curve.md").read_text()
    assert "nokamute at 0.05 s a move" in table and "first above nokamute" in table
    assert "the shipped Base network at 2 simulations a move" in table and "first above shipped" in table
    assert "first above alphabeta:depth=2" in table
    assert data["references"][SHIPPED] == list(curve.references[SHIPPED])
    assert (tmp_path / "curve" / "curve.png").stat().st_size > 10_000
    again = measure([run_dir], tmp_path / "curve", settings, log=lines.append)  # resumes: no game again
    assert [p.elo for p in again.points] == [p.elo for p in curve.points]


def test_without_nokamute_the_curve_says_so_in_one_line(smoke_run, tmp_path, monkeypatch):
    run_dir, _, _ = smoke_run
    monkeypatch.setenv(engines.ENV_VAR, str(tmp_path / "absent"))
    lines: list[str] = []
    curve = measure([run_dir], tmp_path / "c", CurveSettings(games=2, sims=2, depths=(2,), points=1),
                    log=lines.append)
    assert lines[0] == f"nokamute left out (${engines.ENV_VAR}={tmp_path / 'absent'} is not an executable)"
    assert curve.nokamute is None and curve.notes == lines[:1] and curve.points[0].nokamute_wdl is None


def test_hive_curve_refuses_a_folder_that_is_no_run_in_one_line(tmp_path):
    command = [sys.executable, "-m", "scripts.curve", str(tmp_path), "--out", str(tmp_path / "o")]
    proc = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 2
    assert proc.stderr == (f"hive-curve: error: {tmp_path} holds no checkpoints/ "
                           "(is it a training run directory?)\n")
