"""Every ```python block of README.md and of the topic pages docs/*.md runs as written: saved as a
script and run on its own.

A block that cannot run in a test (it needs a trained checkpoint or a long run) is marked in its
page by ``<!-- snippet: skip (the reason) -->`` on the line before its fence.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from helpers import ROOT

SKIP = re.compile(r"<!--\s*snippet:\s*skip\s*\((?P<reason>[^)]+)\)\s*-->")


def python_blocks(text: str) -> list[tuple[int, str, str | None]]:
    """(line of the opening fence, code, skip reason or None) of each ```python block, in order."""
    lines = text.splitlines()
    blocks = []
    i = 0
    while i < len(lines):
        if lines[i].strip() == "```python":
            start = i
            end = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == "```")
            before = lines[start - 1] if start else ""
            skip = SKIP.search(before)
            code = textwrap.dedent("\n".join(lines[start + 1:end]) + "\n")  # a block in a list is indented
            blocks.append((start + 1, code, skip and skip["reason"]))
            i = end
        i += 1
    return blocks


PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
"""The README and the topic pages its map links to: their snippets are run alike."""

BLOCKS = [(f"{page.relative_to(ROOT).as_posix()}:{line}", code, skip)
          for page in PAGES for line, code, skip in python_blocks(page.read_text(encoding="utf-8"))]
"""(page:line of the opening fence, code, skip reason or None) of every block of every page."""


def run_snippet(code: str, cwd: Path, *, stdin: bool = False) -> subprocess.CompletedProcess:
    """Run ``code`` with this interpreter from ``cwd`` (so files it writes land there), as a
    script file or fed on stdin; the repository is importable as from an editable install."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    if stdin:
        cmd, data = [sys.executable, "-"], code
    else:
        script = cwd / "snippet.py"
        script.write_text(code, encoding="utf-8")
        cmd, data = [sys.executable, str(script)], None
    return subprocess.run(cmd, cwd=cwd, env=env, input=data, capture_output=True, text=True, timeout=240)


def test_readme_has_python_snippets_and_skips_are_few():
    assert len(BLOCKS) >= 4
    assert sum(reason is not None for _, _, reason in BLOCKS) <= 2


@pytest.mark.parametrize("where, code, skip", BLOCKS, ids=[b[0] for b in BLOCKS])
def test_readme_snippet_runs_as_a_script(where, code, skip, tmp_path):
    if skip:
        pytest.skip(f"{where}: {skip}")
    proc = run_snippet(code, tmp_path)
    assert proc.returncode == 0, f"{where}\n{proc.stderr[-3000:]}"


ARENA = next(code for _, code, _ in BLOCKS if "run_arena(" in code and "workers=2" in code)


def test_readme_arena_snippet_runs_fed_on_stdin(tmp_path):
    proc = run_snippet(ARENA, tmp_path, stdin=True)
    assert proc.returncode == 0, proc.stderr[-3000:]


def test_python_blocks_finds_blocks_and_skip_markers():
    text = "x\n  ```python\n  a = 1\n  ```\n<!-- snippet: skip (needs a checkpoint) -->\n```python\nb\n```\n"
    assert python_blocks(text) == [(2, "a = 1\n", None), (6, "b\n", "needs a checkpoint")]


def test_the_extension_api_snippets_are_run():
    """The "Extension API" page (docs/extension.md) shows a player of one's own (an object in
    run_arena and a registered kind) and a position evaluated in one call; both run (nothing skips
    them)."""
    text = (ROOT / "docs" / "extension.md").read_text(encoding="utf-8")
    blocks = [code for _, code, skip in python_blocks(text) if not skip]
    player = [c for c in blocks if "register_player(" in c and "run_arena(" in c]
    evaluation = [c for c in blocks if 'Network.load("shipped")' in c and ".evaluate(" in c]
    assert len(player) == 1 and len(evaluation) == 1
    assert all(any(c == code for _, code, _ in BLOCKS) for c in player + evaluation)  # parametrized above
