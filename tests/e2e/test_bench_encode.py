"""scripts.bench_encode: its last cumulative variant is the encoder (the same observation as
``encode_games``), and the command prints the CPU and every section."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

from hive_env import encode as enc
from hive_env.pieces import parse_game_type
from scripts.bench_encode import SECTIONS, encode_sections, random_positions

ROOT = Path(__file__).resolve().parents[2]


def test_the_full_variant_writes_what_the_encoder_writes():
    for game_type in ("Base", "Base+MLP"):
        boards = random_positions(game_type, 12, seed=3)
        exp = parse_game_type(game_type)
        mine, theirs = enc.allocate_observation(12, exp), enc.allocate_observation(12, exp)
        moves_a, moves_b = enc.allocate_moves(12), enc.allocate_moves(12)
        encode_sections(boards, enc.obs_arrays(mine), moves_a, len(SECTIONS) - 1, 2)  # twice: rows reused
        enc.encode_games(boards, enc.obs_arrays(theirs), moves_b, np.zeros(12, np.int32), 0, 12, False)
        for key in mine:
            np.testing.assert_array_equal(mine[key], theirs[key], err_msg=f"{game_type} {key}")
        # a cut variant leaves the later sections out
        cut = enc.allocate_observation(12, exp)
        encode_sections(boards, enc.obs_arrays(cut), enc.allocate_moves(12), 3, 1)
        assert cut["n_legal"].sum() == 0 and theirs["n_legal"].min() > 0


def test_the_command_names_the_cpu_and_every_section():
    run = subprocess.run([sys.executable, "-m", "scripts.bench_encode", "--positions", "8", "--repeats", "1"],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("machine: ") and "cores" in lines[0]
    for name in SECTIONS:
        assert any(line.strip().startswith(name) for line in lines), name
    bad = subprocess.run([sys.executable, "-m", "scripts.bench_encode", "--game-type", "Chess"],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert bad.returncode == 2 and "unknown game type" in bad.stderr and "Traceback" not in bad.stderr
