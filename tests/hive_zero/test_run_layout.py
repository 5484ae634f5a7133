"""The run directory's names live in hive_zero.run_layout alone: its patterns round-trip, and no other
module of the project spells a name of the run directory as a path or a pattern."""

from __future__ import annotations

import ast
import re
from fnmatch import fnmatch
from pathlib import Path

import pytest

from hive_zero import run_layout
from hive_zero.run_layout import (
    BEST,
    CHECKPOINT_GLOB,
    CHECKPOINT_PREFIX,
    CHECKPOINTS,
    CONFIG,
    FINAL,
    RESUMES_LOG,
    SWEEP_FILE,
    TRAIN_LOG,
    RunLayout,
    checkpoint_name,
    checkpoint_step,
    frozen_best_name,
    frozen_name,
    frozen_step,
)

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("hive_zero", "hive_env", "models", "players", "search", "training", "arena", "scripts", "web")
STEPS = (0, 1, 20, 1200, 99_999_999, 123_456_789)


@pytest.mark.parametrize("step", STEPS)
def test_checkpoint_name_round_trips(step: int) -> None:
    name = checkpoint_name(step)
    assert checkpoint_step(name) == step
    assert fnmatch(name, CHECKPOINT_GLOB)
    assert frozen_step(frozen_name(step, "0a1b2c3d4e5f")) == (step, "0a1b2c3d4e5f")


def test_checkpoint_name_is_eight_digits() -> None:
    assert checkpoint_name(20) == "ckpt_00000020.pt"
    assert frozen_name(20, "0a1b2c3d4e5f") == "ckpt_00000020_0a1b2c3d4e5f.pt"
    assert frozen_best_name("0a1b2c3d4e5f") == "best_0a1b2c3d4e5f.pt"


@pytest.mark.parametrize("name", [BEST, FINAL, "ckpt_00000020.pt.tmp", "ckpt_.pt", "ckpt_00000020_0a1b2c.pt",
                                  frozen_best_name("0a1b2c3d4e5f"), "model-500.pt"])
def test_other_files_are_no_step_checkpoint(name: str) -> None:
    assert checkpoint_step(name) is None


def test_frozen_names_are_no_step_checkpoints_and_back() -> None:
    assert frozen_step(checkpoint_name(20)) is None
    assert frozen_step(frozen_best_name("0a1b2c3d4e5f")) is None


def test_layout_paths() -> None:
    layout = RunLayout(Path("runs/x"))
    assert layout.checkpoint(20) == Path("runs/x/checkpoints/ckpt_00000020.pt")
    assert layout.best == Path("runs/x/checkpoints/best.pt")
    assert layout.final == Path("runs/x/checkpoints/final.pt")
    assert layout.frozen == Path("runs/x/eval/frozen") and layout.ledger == Path("runs/x/eval/ledger.json")
    assert [layout.replay.name, layout.tb.name, layout.ladder.name] == ["replay", "tb", "ladder"]
    assert [layout.config.name, layout.train_log.name, layout.resumes_log.name] == [
        "config.yaml", "train.log", "resumes.log"]


# ----- no copies -------------------------------------------------------------------------------------
_NAMES = (CHECKPOINTS, BEST, FINAL, SWEEP_FILE, CONFIG, TRAIN_LOG, RESUMES_LOG)
_NAME = "|".join(re.escape(re.escape(n)) + "|" + re.escape(n) for n in _NAMES)
_LEFT, _RIGHT = r"(?:^|[/\\^(\]])", r"(?:$|[/\\\[)$])"
COPY = re.compile(rf"{_LEFT}(?:{_NAME}){_RIGHT}|{_LEFT}{re.escape(CHECKPOINT_PREFIX)}")
"""A name of the run directory as a path part or in a pattern (``RUN/checkpoints/``, ``^ckpt_``,
``"final.pt"``); prose such as ``"best.pt is now..."`` is not one."""


JOINED = {value for name, value in vars(run_layout).items() if name in run_layout.__all__
          and isinstance(value, str) and not name.endswith(("_PREFIX", "_SUFFIX", "_GLOB", "_PATTERN"))}
"""Every name of the run directory, the plain words too (``replay``, ``tb``, ``eval``...): none is
joined to a path by hand (``run_dir / "replay"``)."""


def copies(source: str) -> list[tuple[int, str]]:
    """``(line, text)`` of each string in ``source`` (docstrings aside) that spells a name of the
    run directory (:data:`COPY`) or joins one to a path (:data:`JOINED`)."""
    tree = ast.parse(source)
    prose = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
    joined = {id(node.right) for node in ast.walk(tree) if isinstance(node, ast.BinOp)
              and isinstance(node.op, ast.Div) and isinstance(node.right, ast.Constant)}
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose
            and (COPY.search(node.value) or (id(node) in joined and node.value in JOINED))]


COPIES = [
    'p = run_dir / "checkpoints"', 'p = d / "final.pt"', 'n = f"ckpt_{s:08d}.pt"',
    'SWEEP_FILE = "sweep.json"', 'p = run_dir / "config.yaml"', 'r = re.compile(r"^ckpt_(\\d+)\\.pt$")',
    'g = f"{run}/checkpoints/ckpt_*.pt"', 'r = ReplayStore(cfg.run_dir / "replay")', 'm = Metrics(d / "tb")',
    'r = r"[\\\\/]?(checkpoints[\\\\/])?"', 'h = "default RUN/checkpoints/final.pt"',
]


@pytest.mark.parametrize("text", COPIES)
def test_a_copy_is_found(text: str) -> None:
    assert copies(text)


@pytest.mark.parametrize("text", [
    'log("step 3: best.pt is now this checkpoint")', '"""In checkpoints/ckpt_*.pt."""',
    'x = "the run\'s checkpoints"', 'log(f"no readable best.pt: {e}")'])
def test_prose_is_no_copy(text: str) -> None:
    assert not copies(text)


PENDING: set[tuple[str, str]] = set()
"""Copies not yet replaced by hive_zero.run_layout: empty this as they go."""


def test_no_module_copies_a_name_of_the_run_directory() -> None:
    own = Path(run_layout.__file__).resolve()
    paths = [p for package in PACKAGES for p in sorted((ROOT / package).rglob("*.py")) if p.resolve() != own]
    every = [(path.relative_to(ROOT).as_posix(), line, text)
             for path in paths for line, text in copies(path.read_text(encoding="utf-8"))]
    found = [f"{path}:{line}: {text!r}" for path, line, text in every if (path, text) not in PENDING]
    assert not found, "names of the run directory outside hive_zero.run_layout:\n" + "\n".join(found)
    assert not PENDING - {(path, text) for path, _, text in every}, "replaced: remove from PENDING"
