"""The simulation-defaults table of docs/search.md names each default's one home and its value:
a default changed in the code, or a row naming a setting that does not exist, fails here."""

from __future__ import annotations

import importlib
import re

from helpers import ROOT

ROW = re.compile(r"^\| `(?P<path>[a-z_.A-Z]+)` \| (?P<value>[\d,]+) \|")


def _rows() -> list[tuple[str, int]]:
    text = (ROOT / "docs" / "search.md").read_text()
    section = text.split("**Simulation defaults.**", 1)[1].split("**Inference at CPU speed.**", 1)[0]
    return [(m["path"], int(m["value"].replace(",", ""))) for line in section.splitlines()
            if (m := ROW.match(line))]


def _resolve(path: str):
    parts = path.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for name in parts[cut:]:
            obj = getattr(obj, name)
        return obj
    raise AssertionError(f"{path}: no such module")


def test_the_docs_table_lists_every_simulation_default_with_its_value():
    rows = _rows()
    assert len(rows) >= 8, rows
    for path, value in rows:
        actual = _resolve(path)
        assert actual == value, f"docs/search.md says {path} is {value}, the code says {actual}"


def test_c_puct_has_one_home():
    from search.alphazero_player import C_PUCT
    from search.mcts import SearchConfig

    assert C_PUCT == SearchConfig.c_puct == 1.5
