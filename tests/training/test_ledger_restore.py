"""A damaged evaluation ledger is restored, not rebuilt empty (docs/reliability.md).

Each decided evaluation leaves a record (``evaluation.json``, with its checksum) in its results
directory, and ``eval/ledger.json`` has its SHA-256 beside it (``ledger.json.sha256``). A ledger
cut in half, emptied, replaced by garbage or with one digit changed is found on resume, moved
aside with one warning, and restored from the records, at four points of a tiny run (4 steps,
evaluated at 2 and 4): before the first evaluation (step 2 registered, not started), between
two (the finished run resumed to 6 steps), during one (step 4's games played, not decided), and
during one decided (step 4 promoted, best.pt copied, killed before its record).
After the resume the ledger lists every evaluation the run decided, as the undamaged ledger
did, best.pt is its last promoted checkpoint, and the run ends as the same resume without the
damage does.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from search.checkpoint import read_checkpoint
from training import gating
from training.gating import (
    RECORD,
    ChecksumError,
    EvalState,
    Gatekeeper,
    Ledger,
    LedgerEntry,
    file_hash,
    read_record,
    write_record,
)
from training.loop import compose_config, train

from helpers import TINY_RUN

# ----- the damage --------------------------------------------------------------------------------


def cut_in_half(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def emptied(path: Path) -> None:
    path.write_bytes(b"")


def garbage(path: Path) -> None:
    path.write_bytes(b"\x00\xff garbage \x9c" * 40)


def one_digit_changed(path: Path) -> None:
    """The last digit of the last number (a score, else a step) changed: still JSON, still a ledger."""
    text = path.read_text()
    i = list(re.finditer(r'": (-?\d+(?:\.\d+)?)', text))[-1].end(1) - 1
    path.write_text(text[:i] + str((int(text[i]) + 1) % 10) + text[i + 1:])
    json.loads(path.read_text())  # still well-formed: only a checksum tells


DAMAGE: dict[str, Callable[[Path], None]] = {
    "cut in half": cut_in_half, "emptied": emptied, "garbage": garbage,
    "one digit changed": one_digit_changed,
}

# ----- the runs ----------------------------------------------------------------------------------


class KilledError(Exception):
    """The process stopped here (as a kill would stop it)."""


def run(run_dir: Path, *overrides: str) -> list[str]:
    """The tiny job in ``run_dir`` (``overrides`` after it) to its end; its lines."""
    lines: list[str] = []
    train(compose_config([*TINY_RUN, f"run_dir={run_dir}", *overrides]), log=lines.append)
    return lines


def killed_in(run_dir: Path, owner: object, name: str, step: int) -> None:
    """The tiny job stopped where ``owner.name`` (a :class:`Gatekeeper` method, or a function of
    ``training.gating``) is called with the ledger entry of ``step``."""
    original = getattr(owner, name)

    def stop(*args: Any) -> Any:
        if any(isinstance(a, LedgerEntry) and a.step == step for a in args):
            raise KilledError(name)
        return original(*args)

    with pytest.MonkeyPatch.context() as m, pytest.raises(KilledError):
        m.setattr(owner, name, stop)
        run(run_dir)


POINTS = {
    # name: (how the run is stopped, the overrides of the resume, its steps)
    "before the first evaluation": (lambda d: killed_in(d, Gatekeeper, "_evaluate", 2), (), 4),
    "between two evaluations": (run, ("train.steps=6",), 6),
    "during an evaluation": (lambda d: killed_in(d, Gatekeeper, "_decide", 4), (), 4),
    "during an evaluation, best.pt copied": (lambda d: killed_in(d, gating, "write_record", 4), (), 4),
}

BEST_SAYS = {
    "before the first evaluation": "no readable best.pt: the next evaluated checkpoint becomes best",
    "between two evaluations": "best.pt (step 4) is the last promoted",
    "during an evaluation": "best.pt (step 2) is the last promoted",
    "during an evaluation, best.pt copied": "best.pt (step 4) is that of the evaluation under way",
}
"""What the warning says of best.pt at each point."""


@pytest.fixture(scope="module")
def stopped(tmp_path_factory) -> dict[str, Path]:
    """A pristine copy of the run stopped at each point (``<dir>/pristine`` of ``<dir>/run``)."""
    runs = {}
    for point, (stop, _, _) in POINTS.items():
        run_dir = tmp_path_factory.mktemp("stopped") / "run"
        stop(run_dir)
        runs[point] = Path(shutil.copytree(run_dir, run_dir.with_name("pristine")))
    return runs


def at_home(pristine: Path) -> Path:
    """The stopped run back in its own directory, as it was stopped: the players' specs in its
    results directories name its files, so that an evaluation under way resumes its games."""
    run_dir = pristine.with_name("run")
    shutil.rmtree(run_dir, ignore_errors=True)
    return Path(shutil.copytree(pristine, run_dir))


@pytest.fixture(scope="module")
def undamaged(stopped) -> dict[str, list[dict]]:
    """The ledger each stopped run ends with when it is resumed without damage."""
    ledgers = {}
    for point, (_, overrides, _) in POINTS.items():
        run_dir = at_home(stopped[point])
        lines = run(run_dir, *overrides)
        assert not [line for line in lines if line.startswith("warning:")]
        ledgers[point] = evaluations(run_dir)
    return ledgers


def evaluations(run_dir: Path) -> list[dict]:
    return json.loads((run_dir / "eval" / "ledger.json").read_text())["evaluations"]


def decided(entries: list[dict]) -> list[dict]:
    return [e for e in entries if e["state"] == "done"]


def shape(entries: list[dict]) -> list[tuple]:
    """What two runs of the same job share (not the checkpoints' bytes): each decided
    evaluation's step, opponents, whether it had a rival, and its verdict."""
    return [(e["step"], sorted(e["scores"]), e["rival"] is None, e["promoted"]) for e in decided(entries)]


def assert_agrees(run_dir: Path, steps: int) -> None:
    """The run ended green: final.pt at the last step, no evaluation left unfinished, best.pt the
    ledger's last promoted checkpoint, every decided evaluation recorded in its directory."""
    checkpoints = run_dir / "checkpoints"
    assert read_checkpoint(checkpoints / "final.pt")["step"] == steps
    entries = evaluations(run_dir)
    assert all(e["state"] in ("done", "dropped") for e in entries), entries
    promoted = [e for e in decided(entries) if e["promoted"]]
    assert promoted and file_hash(checkpoints / "best.pt") == promoted[-1]["checkpoint"]
    for e in decided(entries):
        assert read_record(run_dir / "eval" / e["dir"])[1].to_json() == e


# ----- the tests ----------------------------------------------------------------------------------

@pytest.mark.parametrize("how", DAMAGE)
@pytest.mark.parametrize("point", POINTS)
def test_a_damaged_ledger_is_restored_from_the_records_of_its_evaluations(stopped, undamaged, point, how):
    run_dir = at_home(stopped[point])
    ledger = run_dir / "eval" / "ledger.json"
    before = evaluations(run_dir)
    DAMAGE[how](ledger)
    _, overrides, steps = POINTS[point]
    lines = run(run_dir, *overrides)
    (warning,) = [line for line in lines if line.startswith("warning:")]
    assert warning.startswith(f"warning: {ledger} is unreadable (")
    assert "; moved to ledger.json.damaged); " in warning and warning.endswith("; not restorable: none")
    steps_before = ", ".join(str(e["step"]) for e in decided(before)) or "none"
    assert f"restored {len(decided(before))} finished evaluation(s) (steps {steps_before})" in warning
    under_way = len([e for e in before if e["state"] in ("due", "started")])
    assert f"{under_way} unfinished due again; {BEST_SAYS[point]}; not restorable" in warning
    assert (run_dir / "eval" / "ledger.json.damaged").is_file()
    after = evaluations(run_dir)
    assert decided(after)[: len(decided(before))] == decided(before)  # every one, as it was, in order
    assert shape(after) == shape(undamaged[point])  # the run ends as an undamaged one does
    known = {e["step"] for e in before}  # checkpoints of the stopped run: the same games and verdicts
    assert [e for e in decided(after) if e["step"] in known] == [
        e for e in decided(undamaged[point]) if e["step"] in known]
    assert_agrees(run_dir, steps)


def test_a_finished_run_whose_ledger_is_damaged_twice_still_loses_nothing(stopped):
    """The issue's own try, twice over: the restored ledger (and its records) serve the next
    restore, the evaluations decided in between included, in the order decided."""
    run_dir = at_home(stopped["between two evaluations"])
    ledger = run_dir / "eval" / "ledger.json"
    cut_in_half(ledger)
    run(run_dir, "train.steps=6")
    first = decided(evaluations(run_dir))
    one_digit_changed(ledger)
    lines = run(run_dir, "train.steps=8")
    (warning,) = [line for line in lines if line.startswith("warning:")]
    assert "restored 3 finished evaluation(s) (steps 2, 4, 6)" in warning
    assert decided(evaluations(run_dir))[:3] == first and [e["step"] for e in first] == [2, 4, 6]
    assert [e["step"] for e in decided(evaluations(run_dir))] == [2, 4, 6, 8]
    assert_agrees(run_dir, 8)


def test_an_evaluation_whose_record_is_damaged_is_named_and_best_pt_still_agrees(stopped):
    """What cannot be restored is named, with its count; the last promoted evaluation's record
    damaged, best.pt is recorded as the last promoted (docs/reliability.md's rule)."""
    run_dir = at_home(stopped["between two evaluations"])
    before = decided(evaluations(run_dir))
    record = run_dir / "eval" / before[-1]["dir"] / RECORD
    one_digit_changed(record)
    cut_in_half(run_dir / "eval" / "ledger.json")
    lines = run(run_dir, "train.steps=6")
    (warning,) = [line for line in lines if line.startswith("warning:")]
    assert "restored 1 finished evaluation(s) (steps 2)" in warning
    assert "best.pt (step 4) recorded as the last promoted (the last restored: step 2)" in warning
    assert warning.endswith(f"not restorable: 1 ({before[-1]['dir']}: {RECORD} damaged (its checksum does "
                            "not match))")
    after = decided(evaluations(run_dir))
    assert after[0] == before[0]
    assert {k: after[1][k] for k in ("step", "checkpoint", "dir", "promoted")} == {
        k: before[1][k] for k in ("step", "checkpoint", "dir", "promoted")}
    assert_agrees_but_the_lost_record(run_dir, 6, before[-1]["dir"])


def assert_agrees_but_the_lost_record(run_dir: Path, steps: int, lost: str) -> None:
    checkpoints = run_dir / "checkpoints"
    entries = decided(evaluations(run_dir))
    assert read_checkpoint(checkpoints / "final.pt")["step"] == steps
    assert file_hash(checkpoints / "best.pt") == [e for e in entries if e["promoted"]][-1]["checkpoint"]
    assert [e["step"] for e in entries] == [2, 4, 6]
    with pytest.raises(ChecksumError):
        read_record(run_dir / "eval" / lost)


# ----- the parts: the ledger's checksum, the records ----------------------------------------------


def ledger_of(path: Path, *steps: int) -> Ledger:
    ledger = Ledger(path, log=None)
    for step in steps:
        ledger.add(LedgerEntry(step, f"{step:012x}"))
    return ledger


def test_a_ledger_with_one_digit_changed_is_found_by_its_checksum(tmp_path):
    path = tmp_path / "ledger.json"
    ledger_of(path, 10, 20)
    one_digit_changed(path)
    warnings: list[str] = []
    ledger = Ledger(path, log=warnings.append)
    assert ledger.entries == [] and ledger.damaged == "its SHA-256 is not in ledger.json.sha256"
    assert warnings == [f"warning: {path} is unreadable (its SHA-256 is not in ledger.json.sha256; moved to "
                        "ledger.json.damaged); starting a new ledger"]


def test_a_ledger_without_its_checksum_is_read_as_before_and_gets_one_when_saved(tmp_path):
    """A run from before the checksum: read unchecked; the next save writes it."""
    path = tmp_path / "ledger.json"
    ledger_of(path, 10)
    (tmp_path / "ledger.json.sha256").unlink()
    ledger = Ledger(path, log=None)
    assert ledger.damaged is None and [e.step for e in ledger.entries] == [10]
    ledger.add(LedgerEntry(20, "0" * 12))
    one_digit_changed(path)
    assert Ledger(path, log=None).damaged


def test_a_kill_between_the_checksum_and_the_ledger_leaves_them_agreeing(tmp_path, monkeypatch):
    """The checksum is written first, with the digest of the ledger it replaces."""
    path = tmp_path / "ledger.json"
    ledger = ledger_of(path, 10)
    written = []
    original = gating.write_atomic

    def write_atomic(target, data):
        if Path(target) == path:
            raise KilledError("between the two writes")
        written.append(Path(target))
        return original(target, data)

    monkeypatch.setattr(gating, "write_atomic", write_atomic)
    ledger.entries.append(LedgerEntry(20, "0" * 12))
    with pytest.raises(KilledError):
        ledger.save()
    monkeypatch.undo()
    assert written == [tmp_path / "ledger.json.sha256"]
    again = Ledger(path, log=None)
    assert again.damaged is None and [e.step for e in again.entries] == [10]


def done_entry(step: int = 10, checkpoint: str = "81ea718c5a2c") -> LedgerEntry:
    return LedgerEntry(step, checkpoint, EvalState.DONE, rival=None,
                       dir=f"step_{step:08d}_{checkpoint}_ade77b", scores={"random": 0.75}, promoted=True)


def test_a_record_reads_back_and_a_changed_digit_or_another_directory_is_damage(tmp_path):
    entry = done_entry()
    out = tmp_path / entry.dir
    out.mkdir()
    write_record(out, entry, 7)
    assert read_record(out) == (7, entry)
    text = (out / RECORD).read_text()
    (out / RECORD).write_text(text.replace("0.75", "0.76"))
    with pytest.raises(ChecksumError):
        read_record(out)
    other = tmp_path / "step_00000020_81ea718c5a2c_ade77b"  # a record copied into another directory
    other.mkdir()
    (other / RECORD).write_text(text)
    with pytest.raises(ValueError, match="not the done evaluation of"):
        read_record(other)
    with pytest.raises(FileNotFoundError):
        read_record(tmp_path)
