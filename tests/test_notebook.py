"""The analysis notebook runs top to bottom on the output of the smoke preset."""

from __future__ import annotations

import json
import os
from pathlib import Path

import matplotlib

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "analysis.ipynb"


def test_analysis_notebook_runs_on_the_smoke_run(smoke_run, monkeypatch, tmp_path):
    run_dir, out, returncode = smoke_run
    assert returncode == 0, out[-3000:]
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shown = []
    monkeypatch.setattr(plt, "show", lambda *a, **k: shown.append(plt.gcf()))
    monkeypatch.setenv("HIVE_RUN_DIR", str(run_dir))
    monkeypatch.chdir(tmp_path)
    cells = json.loads(NOTEBOOK.read_text())["cells"]
    namespace: dict = {"__name__": "__main__"}
    for i, cell in enumerate(cells):
        if cell["cell_type"] == "code":
            code = compile("".join(cell["source"]), f"{NOTEBOOK.name}[cell {i}]", "exec")
            exec(code, namespace)  # noqa: S102 - running the notebook is the point
    assert len(shown) == 3  # learning curves, Elo over training, the game replay
    assert os.environ["HIVE_RUN_DIR"] == str(namespace["RUN_DIR"])
    assert namespace["rows"], "the smoke run's evaluations should give Elo points"
    assert namespace["game"].ply > 0
    plt.close("all")
