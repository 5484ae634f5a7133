"""Shared test data and helpers: the repository root, known positions, seeded random games."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from hive_env import Game
from hive_env.board import PASS, POS, move_piece
from hive_env.grid import NEIGH
from hive_env.pieces import GAME_TYPES as GAME_TYPES  # the tests take it from here too
from hive_env.records.arena_record import RESULTS, ArenaRecord

ROOT = Path(__file__).resolve().parents[1]
"""The repository root (commands run there)."""

# Only other engines' files are read from ../shared (nokamute's UHP suite, its binary); the project's
# own facts, such as the published perft counts, are in tests/data/ so every clone checks them.
SHARED = Path(__file__).resolve().parents[1].parent / "shared"
REFERENCE = SHARED / "reference"
TOOLS = SHARED / "tools"


def require_reference(name: str) -> Path:
    """Path of a file in ../shared/reference, or skip the test when it is absent."""
    path = REFERENCE / name
    if not path.is_file():
        pytest.skip(f"{path} not available")
    return path


def require_tool(name: str) -> Path:
    """Path of an executable in ../shared/tools (another engine, e.g. ``nokamute``), or skip."""
    path = TOOLS / name
    if not (path.is_file() and os.access(path, os.X_OK)):
        pytest.skip(f"{path} not available")
    return path

UHP_ENGINE = [sys.executable, "-m", "scripts.uhp_engine"]
"""The ``hive-uhp`` command, run from ``ROOT``."""

WIN_IN_ONE = ("Base;InProgress;White[7];wA1;bB1 wA1\\;wA2 \\wA1;bB2 /bB1;wG1 /wA2;bQ -bB2;wQ -wG1;"
              "bG1 bB2\\;wB1 -wA2;bQ /wA1;wQ /wG1;bS1 bG1-")
"""White to move wins with ``wA2 /bQ`` (found by a search over random games)."""
WIN_IN_ONE_MOVE = "wA2 /bQ"

#            wS1    bB1
#               bA1
WIN_IN_ONE_TILES = [("bQ", 0, 0), ("wQ", 1, 0), ("bB1", 0, 1), ("wS1", -1, 1), ("bG1", -1, 0),
                    ("wG1", 0, -1), ("wA1", 2, 0), ("bA1", -1, 2), ("wB2", 2, -1)]
"""Tiles (name, q, r) of a position where White to move surrounds bQ in one."""
WIN_IN_ONE_TILE_MOVES = {"wB2 \\wQ", "wA1 -wB2"}  # both fill the hole

MIDGAME = ("Base;InProgress;White[9];wB1;bG1 wB1/;wG1 -wB1;bA1 \\bG1;wQ wB1\\;bQ -bA1;wA1 /wG1;bQ \\bA1;"
           "wB2 -wG1;bB1 /bQ;wA1 -bB1;bB2 bG1-;wG2 /wG1;bQ bA1/;wG3 /wB2;bG2 -bQ")
"""A Base middle game with White to move and many options."""


def cells_connected(cells: set[int]) -> bool:
    """Whether the hexes ``cells`` form one connected group on the grid (a brute-force flood fill,
    the reference the engine's one-hive checks are held to); an empty set counts as connected."""
    if not cells:
        return True
    start = next(iter(cells))
    seen, todo = {start}, [start]
    while todo:
        c = todo.pop()
        for d in range(6):
            n = int(NEIGH[c, d])
            if n in cells and n not in seen:
                seen.add(n)
                todo.append(n)
    return seen == cells


def random_move(game: Game, rng: np.random.Generator, prefer_moves: bool = False) -> int | None:
    """A seeded random legal move (None: the game is over); ``prefer_moves`` picks among the
    movements of tiles in play seven times in ten when there are some (richer positions)."""
    moves = game.legal_moves()
    if len(moves) == 0:
        return None
    if prefer_moves and rng.random() < 0.7:
        movements = [m for m in moves if m != PASS and game.board[POS + move_piece(int(m))] >= 0]
        if movements:
            moves = np.array(movements)
    return int(moves[rng.integers(len(moves))])


def random_game(game_type: str, seed: int, plies: int, prefer_moves: bool = False, ply_cap: int = 0) -> Game:
    """A game of up to ``plies`` seeded random plies (:func:`random_move`), fewer if it ends."""
    rng = np.random.default_rng(seed)
    game = Game(game_type, ply_cap=ply_cap)
    for _ in range(plies):
        move = random_move(game, rng, prefer_moves)
        if move is None:
            break
        game.play(move)
    return game


def random_games(game_type: str, seed: int, n_games: int = 3, max_plies: int = 90, every: int = 7,
                 ply_cap: int = 0) -> list[Game]:
    """Positions along seeded random games (:func:`random_move`): the start, every ``every``-th
    ply, and the end."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_games):
        game = Game(game_type, ply_cap=ply_cap)
        out.append(game.copy())
        for ply in range(max_plies):
            move = random_move(game, rng)
            if move is None:
                break
            game.play(move)
            if ply % every == every // 2:
                out.append(game.copy())
        out.append(game.copy())
    return out


def long_game(plies: int, seed: int = 0, game_type: str = "Base") -> Game:
    """A legal game of exactly ``plies`` plies still in progress: seeded random moves, skipping
    any that would end it (a surround or a repetition draw)."""
    rng = np.random.default_rng(seed)
    game = Game(game_type)
    while game.ply < plies:
        moves = game.legal_moves().copy()
        rng.shuffle(moves)
        for move in moves:
            game.play(int(move))
            if not game.is_over:
                break
            game.undo(1)
        else:
            raise RuntimeError(f"seed {seed}: every move ends the game at ply {game.ply}")
    return game


REAL_GAMES = ROOT / "tests" / "data" / "real_games.txt"
"""GameStrings of real games, two per game type (alpha-beta depth 2 against depth 1 after a
random 4-ply opening; made by ``python -m scripts.record_games --out tests/data/real_games.txt``)."""


def real_game_positions(game_type: str, every: int = 5) -> list[Game]:
    """Positions along the real games of ``game_type`` (``REAL_GAMES``): every ``every``-th ply
    from the first, and each game's last position still in progress."""
    out = []
    for line in REAL_GAMES.read_text().splitlines():
        if line.split(";", 1)[0] != game_type:
            continue
        record = Game.from_string(line)
        game = Game.from_string(game_type)
        for ply, move in enumerate(record.moves):
            if ply % every == 0:
                out.append(game.copy())
            probe = game.copy()
            probe.play(int(move))
            if probe.is_over:
                break
            game = probe
        out.append(game.copy())
    return out


def sample_network(size: str, randomised: bool, seed: int = 0):
    """A freshly initialised ``HiveGNN`` of ``size`` (eval mode), or one whose every parameter
    is moved off its initial value (LayerNorm scales and shifts and void vectors are ones and
    zeros when fresh): what inference backends are held to the torch model on."""
    import torch

    from models.gnn import build_model

    torch.manual_seed(seed)
    model = build_model(size).eval()
    if randomised:
        with torch.no_grad():
            for name, p in model.named_parameters():
                if "norm" in name and name.endswith("weight"):
                    p.add_(torch.randn_like(p) * 0.3)
                elif "norm" in name or name.endswith("void"):
                    p.add_(torch.randn_like(p) * 0.5)
                else:
                    p.add_(torch.randn_like(p) * 0.02)
    return model


def assert_same_outputs(got, want, obs: dict, tol: float = 1e-4) -> None:
    """An inference backend's ``(logits, values)`` equal the reference's within ``tol`` on every
    legal slot, with NEG_INF (-1e9) past each position's legal moves."""
    logits, values = got
    ref_logits, ref_values = want
    assert logits.dtype == np.float32 and values.dtype == np.float32
    assert logits.shape == obs["legal_src"].shape and values.shape == (obs["legal_src"].shape[0],)
    legal = np.arange(logits.shape[1])[None, :] < obs["n_legal"][:, None]
    assert np.abs(logits[legal] - ref_logits[legal]).max() <= tol
    assert (logits[~legal] == np.float32(-1e9)).all() and (ref_logits[~legal] == np.float32(-1e9)).all()
    assert np.abs(values - ref_values).max() <= tol


def hashed_evaluate(obs: dict) -> tuple[np.ndarray, np.ndarray]:
    """A deterministic fake network for search tests: a game's output depends only on its own
    observation row (so batched and separate searches must agree)."""
    feat = obs["node_feat"].sum(axis=(1, 2))
    src = obs["legal_src"].astype(np.float32)
    dst = obs["legal_dst"].astype(np.float32)
    logits = np.sin(src * 1.7 + dst * 0.37 + feat[:, None] * 0.01).astype(np.float32)
    return logits, np.tanh(np.sin(feat * 0.1)).astype(np.float32)


def hive_train(run_dir: Path, *overrides: str, **popen) -> subprocess.Popen:
    """``hive-train experiment=smoke run_dir=RUN OVERRIDES`` started from ``ROOT`` in a session of
    its own (a test signals the run and its workers together), stdout and stderr captured as text
    (a pipe unless ``stdout=`` says where); ``popen`` goes to ``subprocess.Popen`` (e.g. ``env``)."""
    cmd = [sys.executable, "-m", "scripts.train", "experiment=smoke", f"run_dir={run_dir}", *overrides]
    popen = {"stdout": subprocess.PIPE, "stderr": subprocess.STDOUT, **popen}
    return subprocess.Popen(cmd, cwd=ROOT, text=True, start_new_session=True, **popen)


def wait_for(proc: subprocess.Popen, ready: Callable[[], bool], timeout: float = 300,
             poll: float = 0.02) -> bool:
    """True once ``ready()`` is, False if ``proc`` ends or ``timeout`` seconds pass first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        if ready():
            return True
        time.sleep(poll)
    return False


def random_samples(n: int, game_type: str = "Base+MLP", seed: int = 0):
    """Replay samples (training.replay.Samples): positions of random games with random policies
    over their legal moves."""
    from training.replay import Samples

    rng = np.random.default_rng(seed)
    boards, policies, n_legal = [], [], []
    while len(boards) < n:
        g = Game(game_type)
        for _ in range(int(rng.integers(1, 40))):
            moves = g.legal_moves()
            if len(moves) == 0:
                break
            p = np.zeros(512, np.float16)
            p[: len(moves)] = rng.dirichlet(np.ones(len(moves)))
            boards.append(g.board.copy())
            policies.append(p)
            n_legal.append(len(moves))
            g.play(int(moves[rng.integers(len(moves))]))
            if g.is_over or len(boards) >= n:
                break
    z = rng.integers(-1, 2, size=n).astype(np.int8)
    return Samples(np.stack(boards), np.stack(policies), np.array(n_legal, np.int16), z,
                   np.arange(n, 0, -1, dtype=np.int16), rng.uniform(-1, 1, n).astype(np.float16),
                   rng.integers(0, 7, size=(n, 2)).astype(np.int8))


TINY_RUN = ["experiment=smoke", "selfplay.workers=0", "train.steps=4", "train.checkpoint_every=2",
            "train.min_positions=32", "eval.games=2", "eval.sims=2", "eval.final_games=2",
            "eval.final_sims=2"]
"""hive-train overrides of a training job that runs in seconds, inline (for training.loop.train)."""


def fake_nokamute(folder: Path) -> Path:
    """An executable in ``folder`` standing in for nokamute (``$NOKAMUTE``, players.engines): this
    project's UHP engine playing greedy."""
    script = folder / "nokamute"
    script.write_text(f"#!/bin/sh\ncd {ROOT}\nexec {sys.executable} -m scripts.uhp_engine --player greedy\n")
    script.chmod(0o755)
    return script


def whole(record: dict[str, object]) -> dict[str, object]:
    """An arena record for the tests of what reads them (``arena.report``, ``arena.ladder``):
    ``record`` (at least ``white_index``, ``black_index`` and ``white_score``) with the other
    required fields filled in: a games.jsonl object the record's reader accepts."""
    i, j, score = record["white_index"], record["black_index"], record["white_score"]
    filled = {"id": f"{i}v{j}", "white": f"player{i}", "black": f"player{j}", "round": 0, "opening": 0,
              "result": RESULTS[score], "termination": "ply_cap" if score == 0.5 else "queen_surrounded",
              "plies": 30, "seconds": 0.0, "white_seconds": 0.0, "black_seconds": 0.0, "seeds": [0, 0],
              "game_string": "Base;NotStarted;White[1]", **record}
    ArenaRecord.from_json(filled)  # whole: its reader accepts it
    return filled


def match_records(*pairings: tuple[int, int, int, int, int]) -> list[dict[str, object]]:
    """Whole arena records of ``(i, j, wins, draws, losses)`` of player ``i`` against ``j``,
    ``i`` always White."""
    records = []
    for i, j, wins, draws, losses in pairings:
        for k, score in enumerate([1.0] * wins + [0.5] * draws + [0.0] * losses):
            records.append(whole({"id": f"{i}v{j}-{k}", "white_index": i, "black_index": j,
                                  "white_score": score, "round": k // 2}))
    return records


def assert_refused(r, status: int, *words: str) -> str:
    """A hive-web reply that refuses: ``status``, a one-line ``detail`` holding ``words``."""
    assert r.status_code == status, r.text
    detail = r.json()["detail"]
    assert isinstance(detail, str) and detail and "\n" not in detail, detail
    for w in words:
        assert w in detail, detail
    return detail


@contextlib.contextmanager
def serving(app, limits=None) -> Iterator[int]:
    """``app`` served by hive-web's server (:func:`web.make_server`, ``limits``: a
    ``web.ServerLimits``) on a free port of 127.0.0.1; yields the port."""
    from web import ServerLimits, make_server

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = make_server(app, "127.0.0.1", port, limits or ServerLimits())
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.started, "hive-web did not start"
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(10)


SHUFFLE = ("Base;Draw;Black[14];wA1;bA1 wA1/;wS1 wA1\\;bA2 \\bA1;wQ /wS1;bA3 \\bA2;wS2 /wQ;bQ bA2/;wA2 wQ-;"
           "bB1 bA1-;wA3 wA2/;bS1 \\bB1;wG1 wA2-;bA3 bQ/;wA3 -bA3;bB1 bS1-;wG1 -wQ;bA3 /wA1;wA2 /wS2;"
           "bB1 bS1/;wA2 wS2\\;bB1 bS1-;wA2 /wS2;bB1 bS1/;wA2 wS2\\;bB1 bS1-;wA2 /wS2")
"""A self-play game of an early network that shuffled to a draw by repetition."""
