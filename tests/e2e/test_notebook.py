"""The analysis notebook runs top to bottom, in a real Jupyter kernel, on the output of the smoke preset."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from search.checkpoint import read_checkpoint

nbclient = pytest.importorskip("nbclient")  # the dev extra: nbclient, ipykernel
nbformat = pytest.importorskip("nbformat")

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "analysis.ipynb"
README_COMMAND = "jupyter nbconvert --to html --execute notebooks/analysis.ipynb"
"""How the docs run the notebook (docs/arena.md, "Analysis notebook"; ``nbconvert`` is in the dev extra)."""


def test_every_cell_has_an_id():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(nb)
    assert (nb.nbformat, nb.nbformat_minor) >= (4, 5)
    ids = [cell.get("id") for cell in nb.cells]
    assert all(ids) and len(set(ids)) == len(ids)


def test_analysis_notebook_runs_on_the_smoke_run(smoke_run, monkeypatch, tmp_path):
    run_dir, out, returncode = smoke_run
    assert returncode == 0, out[-3000:]
    monkeypatch.setenv("HIVE_RUN_DIR", str(run_dir))  # the kernel inherits the environment
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()  # raises CellExecutionError, with the cell and traceback, if a cell fails

    outputs = {cell.id: cell.get("outputs", []) for cell in nb.cells if cell.cell_type == "code"}
    images = sum("image/png" in o.get("data", {}) for cell in outputs.values() for o in cell)
    assert images == 4  # learning curves, Elo over training, the game replay, its review

    def text(cell_id: str) -> str:
        return "".join(o.get("text", "") for o in outputs[cell_id] if o.get("output_type") == "stream")

    assert str(run_dir.resolve()) in text("setup")
    # one Elo point per evaluated step (the ledger's), not one per alphazero player rated
    ledger = json.loads((run_dir / "eval" / "ledger.json").read_text())["evaluations"]
    steps = sorted({e["step"] for e in ledger if e["state"] == "done"})
    assert steps and f"{len(steps)} evaluated checkpoints: steps {', '.join(map(str, steps))}" \
        in text("elo")
    step = read_checkpoint(run_dir / "checkpoints" / "final.pt")["step"]
    assert f"final match at step {step}, az@final vs random:" in text("elo")  # each labelled by its step
    assert " plies, " in text("game")
    plies = int(re.search(r"(\d+) plies, ", text("game")).group(1))
    assert f"{plies} moves reviewed, " in text("review")


def test_smoke_run_says_it_checks_the_pipeline_not_strength(smoke_run):
    """The final match's lines of the smoke preset: counted nouns, and what the run does not show."""
    _, out, returncode = smoke_run
    assert returncode == 0, out[-3000:]
    line = next(x for x in out.splitlines() if x.startswith("final score vs random: "))
    m = re.search(r"over (\d+) games \((\d+) wins?, (\d+) draws?, (\d+) loss(?:es)?\)$", line)
    assert m, line
    games, *counts = (int(x) for x in m.groups())
    assert sum(counts) == games
    for n, word in zip(counts, ("win", "draw", "loss"), strict=True):
        assert (f"{n} {word}," in line or f"{n} {word})" in line) == (n == 1), line
    assert "az@final" in out and "alphazero:ckpt=" not in out.split("Elo (maximum", 1)[-1].split("note:")[0]
    assert "the smoke preset" in out and "checks that the pipeline runs" in out and "end to end" in out
    assert "not playing strength" in out and "hive-train experiment=cpu" in out and "hive-arena ladder" in out


def test_the_readme_says_how_to_run_the_notebook():
    page = (ROOT / "docs" / "arena.md").read_text(encoding="utf-8")  # the README's Arena page
    assert f"HIVE_RUN_DIR=runs/cpu {README_COMMAND}" in page


@pytest.mark.slow
def test_the_readmes_command_renders_the_notebook(smoke_run, tmp_path):
    pytest.importorskip("nbconvert")
    run_dir, out, returncode = smoke_run
    assert returncode == 0, out[-3000:]
    jupyter = Path(sys.executable).parent / "jupyter"
    cmd = [str(jupyter), *shlex.split(README_COMMAND)[1:], "--output-dir", str(tmp_path)]
    env = {**os.environ, "HIVE_RUN_DIR": str(run_dir)}
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    html = (tmp_path / "analysis.html").read_text(encoding="utf-8")
    assert "final match at step" in html and "evaluated checkpoints" in html
