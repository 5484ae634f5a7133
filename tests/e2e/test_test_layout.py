"""The tests' own layout: they mirror the packages, and none imports a ``scripts`` module (a
command line is tested by running it, ``python -m scripts.X``, or through the package
function it wraps, so the logic lives in the packages)."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def script_imports(source: str, name: str) -> list[str]:
    """``name:line: module`` for each import of ``scripts`` or a module in it, at any depth."""
    found = []
    for node in ast.walk(ast.parse(source, filename=name)):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules = [node.module]
        else:
            continue
        found += [f"{name}:{node.lineno}: {m}" for m in modules if m == "scripts" or m.startswith("scripts.")]
    return found


def test_no_test_imports_a_script():
    files = sorted(TESTS.rglob("*.py"))
    assert len(files) > 10  # the tests were found
    offenders = [hit for path in files
                 for hit in script_imports(path.read_text(encoding="utf-8"), str(path.relative_to(TESTS)))]
    assert offenders == [], "tests import scripts (run them as subprocesses instead): " + ", ".join(offenders)


def test_the_check_finds_every_form_of_import():
    source = ("import os\nimport scripts\nimport scripts.show as show\nfrom scripts import tactics_suite\n"
              "\n\ndef f():\n    from scripts.arena import main\n    from scriptsx import y\n"
              "    from .scripts import z\n")
    assert script_imports(source, "t.py") == ["t.py:2: scripts", "t.py:3: scripts.show", "t.py:4: scripts",
                                              "t.py:8: scripts.arena"]


def test_tests_mirror_the_packages():
    """Each test file sits in the folder of the package it tests (``tests/<package>/``), or in
    ``tests/e2e/`` when it drives a command line or the whole repository; none lies loose."""
    packages = {"hive_zero", "hive_env", "models", "players", "search", "training", "arena", "web"}
    assert not sorted(p.name for p in TESTS.glob("test_*.py")), "a test file outside the package folders"
    folders = {p.parent.name for p in TESTS.rglob("test_*.py")}
    assert folders <= packages | {"e2e"}, folders - packages
    assert all((TESTS.parent / name / "__init__.py").is_file() for name in folders - {"e2e"})
