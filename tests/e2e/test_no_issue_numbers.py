"""No .py or .yaml file of the project names a tracker issue by number: a reader of the code has
no tracker, so a comment or docstring says what the code does and why instead."""

from __future__ import annotations

import re
from pathlib import Path

from helpers import ROOT

ISSUE = re.compile(r"\b[Ii]ssues? ?#?\d+")
"""An issue named by number: with or without a plural, a space or a ``#``."""
SKIPPED = {".venv", "build", "node_modules", "__pycache__"}
"""Folders that hold no file of the project's own (besides hidden ones: .git, caches)."""


def project_files(root: Path) -> list[Path]:
    """The .py and .yaml files under ``root``, outside :data:`SKIPPED` and hidden folders."""
    files = [p for pattern in ("*.py", "*.yaml") for p in root.rglob(pattern)]
    folders = [p.relative_to(root).parts[:-1] for p in files]
    return sorted(p for p, parts in zip(files, folders, strict=True)
                  if not any(part in SKIPPED or part.startswith(".") for part in parts))


def issue_references(path: Path, root: Path) -> list[str]:
    """``file:line: text`` of each line of ``path`` that names an issue."""
    lines = path.read_text(encoding="utf-8").splitlines()
    name = path.relative_to(root)
    return [f"{name}:{n}: {line.strip()}" for n, line in enumerate(lines, 1) if ISSUE.search(line)]


def test_no_file_names_an_issue():
    files = project_files(ROOT)
    assert len(files) > 100 and any(p.suffix == ".yaml" for p in files)  # the files were found
    found = [hit for path in files for hit in issue_references(path, ROOT)]
    assert found == [], "say what the code does, not which issue asked for it:\n" + "\n".join(found)


def test_the_scan_finds_every_form_and_skips_what_is_not_the_project_s(tmp_path):
    def sample(text: str) -> str:  # the word spelt out here would be a hit of the scan itself
        return text.replace("ISU", "issue").replace("Isu", "Issue")

    lines = ["# ISU 42", "x = 1  # Isu 4: y", '"""Isus 8 and 28"""', "# see ISU #7", "# ISU42",
             "# tISU 3", "# the ISUs we had", "# an ISU of 2024-05"]
    (tmp_path / "a.py").write_text(sample("\n".join(lines) + "\n"))
    (tmp_path / "c.yaml").write_text(sample("# ISU 26 and 38\nsims: 16\n"))
    for skipped in (".venv", "build", ".git"):
        (tmp_path / skipped).mkdir()
        (tmp_path / skipped / "b.py").write_text(sample("# ISU 1\n"))
    files = project_files(tmp_path)
    assert [p.name for p in files] == ["a.py", "c.yaml"]
    hits = [hit.split(":")[1] for path in files for hit in issue_references(path, tmp_path)]
    assert hits == ["1", "2", "3", "4", "5", "1"]
