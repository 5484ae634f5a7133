"""Checkpoints are data, never code: crafted or damaged files are refused at every entry point."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import torch

from models.gnn import build_model
from search.checkpoint import CheckpointError, load_model, read_checkpoint, save_checkpoint

from helpers import ROOT


class _Trap:
    """Unpickling this calls ``open(marker, "w")``: a harmless stand-in for arbitrary code."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return open, (str(self.marker), "w")


@pytest.fixture
def good(tmp_path) -> Path:
    torch.manual_seed(0)
    return save_checkpoint(tmp_path / "good.pt", build_model("tiny"), step=7)


@pytest.fixture
def crafted(tmp_path, good) -> tuple[Path, Path]:
    """A checkpoint that is complete and valid but would create ``marker`` when unpickled."""
    marker = tmp_path / "MARKER"
    state = torch.load(good, weights_only=True)
    state["note"] = _Trap(marker)
    path = tmp_path / "crafted.pt"
    torch.save(state, path)
    return path, marker


def test_the_trap_works_when_loaded_unsafely(crafted):
    path, marker = crafted  # proves the fixture would run code under the old loader
    torch.load(path, weights_only=False)
    assert marker.exists()


def test_a_crafted_checkpoint_is_refused_and_runs_nothing(crafted):
    path, marker = crafted
    with pytest.raises(CheckpointError, match="refused as unsafe") as err:
        read_checkpoint(path)
    assert "\n" not in str(err.value) and "open" in str(err.value)
    with pytest.raises(CheckpointError):
        load_model(path)
    assert not marker.exists()


def test_an_open_file_is_read_like_its_path(good, crafted):
    """A caller that opened the file itself (``web.players.open_inside``) passes the open file."""
    with good.open("rb") as f:
        f.read(10)  # read from the start whatever the position
        model, state = load_model(f)
    assert state["step"] == 7 and model.config == load_model(good)[0].config
    path, marker = crafted
    with path.open("rb") as f, pytest.raises(CheckpointError, match="refused as unsafe") as err:
        read_checkpoint(f)
    assert str(path) in str(err.value) and not marker.exists()


def _flip_data_byte(src: Path, dst: Path) -> None:
    """Copy ``src`` with one byte flipped inside the largest tensor's data (not in a header)."""
    data = bytearray(src.read_bytes())
    with zipfile.ZipFile(src) as z:
        info = max(z.infolist(), key=lambda i: i.file_size)
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    data[start + info.file_size // 2] ^= 0x01
    dst.write_bytes(bytes(data))


def test_flipped_tensor_bytes_are_refused(tmp_path, good):
    damaged = tmp_path / "damaged.pt"
    _flip_data_byte(good, damaged)
    torch.load(damaged, weights_only=True)  # the old loader read it silently
    with pytest.raises(CheckpointError, match="CRC"):
        read_checkpoint(damaged)
    assert load_model(good)[1]["step"] == 7


@pytest.mark.parametrize("content", [b"", b"not a zip", b"PK\x03\x04truncated"])
def test_garbage_files_are_refused_with_one_line(tmp_path, content):
    path = tmp_path / "junk.pt"
    path.write_bytes(content)
    with pytest.raises(CheckpointError) as err:
        read_checkpoint(path)
    assert "\n" not in str(err.value)


ENTRY_POINTS = {
    "hive-uhp": (["-m", "scripts.uhp_engine", "--player", "alphazero:ckpt={ckpt}"], "info\n"),
    "hive-play": (["-m", "scripts.play", "--opponent", "alphazero:ckpt={ckpt}", "--out", "{out}"], ""),
    "hive-arena": (["-m", "scripts.arena", "gauntlet", "alphazero:ckpt={ckpt}", "random",
                    "--games-per-pairing", "2", "--out", "{out}", "--no-progress"], ""),
}


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_every_entry_point_refuses_a_crafted_checkpoint_in_one_line(tmp_path, crafted, entry):
    path, marker = crafted
    args, stdin = ENTRY_POINTS[entry]
    args = [a.format(ckpt=path, out=tmp_path / "out") for a in args]
    proc = subprocess.run([sys.executable, *args], cwd=ROOT, input=stdin, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(errors) == 1 and "refused as unsafe" in errors[0], proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    assert not marker.exists()


def test_hive_train_refuses_to_resume_from_a_crafted_checkpoint(tmp_path, crafted):
    path, marker = crafted
    run_dir = tmp_path / "run"
    (run_dir / "checkpoints").mkdir(parents=True)
    (run_dir / "checkpoints" / "ckpt_00000005.pt").write_bytes(path.read_bytes())
    proc = subprocess.run([sys.executable, "-m", "scripts.train", "experiment=smoke", f"run_dir={run_dir}",
                           "selfplay.workers=0", "eval.every=0"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 2, proc.stdout[-2000:] + proc.stderr[-2000:]
    errors = [line for line in proc.stderr.splitlines() if line.startswith("hive-train")]
    assert len(errors) == 1 and "refused as unsafe" in errors[0], proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    assert not marker.exists()
    assert [p.name for p in (run_dir / "checkpoints").iterdir()] == ["ckpt_00000005.pt"]  # nothing new
