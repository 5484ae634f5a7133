"""Inference benchmark: positions per second of the network's forward pass alone, per backend.

Times ``Evaluator.evaluate(obs)`` (``search.network.make_evaluator``) on mid-game observations
encoded beforehand (numpy in, numpy out: host-device copies count on CUDA, encoding and search do
not), cycling through a pool of batches. Each row gives positions/s, ms per call, the ratio to
eager and the largest difference from eager's outputs; a backend of :data:`BACKENDS` that cannot
run here is skipped with one line. CUDA runs with bfloat16 autocast, as players do. Run as
``python -m search.bench_inference``, ``python -m scripts.bench_inference`` or ``make bench-inference``.

See docs/search.md (inference at CPU speed; benchmarks).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import torch

from hive_env.encode import observe_batch
from hive_env.position import random_positions
from models.gnn import SIZES, build_model

from .network import Evaluator, make_evaluator, pick_device, resolve_backend

BACKENDS = {"eager": ("torch", False), "eager-bf16": ("torch", False), "compile": ("torch", True),
            "onnx": ("onnx", False), "numba": ("numba", False), "fp32": ("packed-fp32", False),
            "bf16": ("packed-bf16", False), "int8": ("packed-int8", False)}
"""Benchmark names -> (``make_evaluator`` backend, ``compile``). ``eager-bf16``: the torch model under
bfloat16 autocast on the CPU too (oneDNN's bf16 kernels, AMX where present); ``fp32``, ``bf16``,
``int8``: the packed backend's GEMM precisions (``search.packednet``)."""
POOL_BATCHES = 4
"""Different batches per batch size that the timed calls cycle through."""
MAX_POSITIONS = 1024
"""Distinct positions at most (larger pools reuse them in other orders and groupings)."""
SEED = 0

Outputs = tuple[np.ndarray, np.ndarray]


def position_boards(n: int, game_type: str) -> np.ndarray:
    """``n`` fixed mid-game boards ``[n, BOARD_SIZE]`` (seeded; 10 to 60 random plies)."""
    return np.stack([g.board for g in random_positions(n, game_type, SEED, min_plies=10, max_plies=60)])


def observation_pool(boards: np.ndarray, batch: int) -> list[dict[str, np.ndarray]]:
    """:data:`POOL_BATCHES` encoded batches of ``batch`` positions, each a different slice of ``boards``."""
    n = len(boards)
    return [observe_batch(boards[(k * batch + np.arange(batch)) % n]) for k in range(POOL_BATCHES)]


def max_difference(a: Outputs, b: Outputs, obs: dict[str, np.ndarray]) -> float:
    """The largest absolute difference between two outputs over legal logits and values."""
    legal = np.arange(a[0].shape[1])[None, :] < obs["n_legal"][:, None]
    return float(max(np.abs(a[0] - b[0])[legal].max(initial=0.0), np.abs(a[1] - b[1]).max(initial=0.0)))


def build(name: str, model: torch.nn.Module, device: torch.device) -> tuple[Evaluator | None, str]:
    """The evaluator of benchmark backend ``name`` and ``""``, or ``None`` and why it cannot run."""
    backend, compile = BACKENDS[name]
    bf16 = device.type == "cuda" or name == "eager-bf16"
    try:
        resolve_backend(backend, device, bf16)
    except ValueError as e:
        return None, str(e)
    if compile:
        torch._dynamo.reset()  # a fresh compile per model: no stale graphs, no recompile limit
    try:
        return make_evaluator(model, device, bf16=bf16, compile=compile, backend=backend), ""
    except ImportError as e:
        return None, str(e)
    except Exception as e:  # noqa: BLE001 - a benchmark reports a backend that fails, and goes on
        return None, f"{type(e).__name__}: {str(e).strip().splitlines()[0][:200] if str(e).strip() else ''}"


def time_calls(evaluate: Evaluator, pool: list[dict[str, np.ndarray]], seconds: float) -> tuple[int, float]:
    """Calls cycling through ``pool`` for about ``seconds`` (at least 3): (calls, elapsed seconds)."""
    calls, start = 0, time.perf_counter()
    while True:
        evaluate(pool[calls % len(pool)])
        calls += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds and calls >= 3:
            return calls, elapsed


def bench_row(name: str, evaluate: Evaluator, pool: list[dict[str, np.ndarray]], seconds: float,
              setup_s: float) -> tuple[dict, Outputs]:
    """One row of the table and the outputs on ``pool[0]``: the first call at that batch
    (building the evaluator, on a backend's first row, and compiling happen there, untimed), then
    calls for about ``seconds`` cycling through ``pool``, so that no call sees the batch of the
    call before it; positions/s, ms per call, and (filled in by the caller) the ratio to eager at
    the same size and batch and the largest difference from eager's outputs (legal logits and
    values)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        start = time.perf_counter()
        first = evaluate(pool[0])
        first_s = time.perf_counter() - start
        for obs in pool[1:]:  # every batch once, untimed: any recompile for its shapes happens here
            evaluate(obs)
    note = "; ".join(str(w.message).splitlines()[0][:160] for w in caught if "compile" in str(w.message))
    calls, elapsed = time_calls(evaluate, pool, seconds)
    batch = len(pool[0]["n_legal"])
    row = {"backend": name, "batch": batch, "setup_s": round(setup_s, 3), "first_call_s": round(first_s, 3),
           "calls": calls, "seconds": round(elapsed, 3), "ms_per_call": round(1000 * elapsed / calls, 4),
           "positions_per_s": round(calls * batch / elapsed, 1), "vs_eager": None, "max_diff_vs_eager": None,
           "note": note}
    return row, first


HEADER = (f"{'size':8s} {'backend':10s} {'B':>5s} {'first s':>8s} {'ms/call':>9s} {'positions/s':>12s} "
          f"{'x eager':>8s} {'max|diff|':>10s}")


def format_row(r: dict) -> str:
    ratio = f"{r['vs_eager']:8.2f}" if r["vs_eager"] is not None else f"{'-':>8s}"
    diff = f"{r['max_diff_vs_eager']:10.1e}" if r["max_diff_vs_eager"] is not None else f"{'-':>10s}"
    first = r["first_call_s"] + r["setup_s"]
    return (f"{r['size']:8s} {r['backend']:10s} {r['batch']:5d} {first:8.2f} {r['ms_per_call']:9.3f} "
            f"{r['positions_per_s']:12,.0f} {ratio} {diff}" + (f"  ({r['note']})" if r["note"] else ""))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench-inference", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", default=["tiny", "small", "default"], choices=list(SIZES))
    parser.add_argument("--batches", nargs="+", type=int, default=[1, 8, 64])
    parser.add_argument("--backends", nargs="+", default=list(BACKENDS), choices=list(BACKENDS))
    parser.add_argument("--device", default="cpu", help="cpu, cuda or auto")
    parser.add_argument("--game-type", default="Base")
    parser.add_argument("--seconds", type=float, default=2.0, help="timed seconds per row")
    parser.add_argument("--threads", type=int, default=1, help="torch and numba threads (0 = their default)")
    parser.add_argument("--json", type=Path, help="write the rows here (rewritten after each row)")
    args = parser.parse_args(argv)
    if args.threads:
        import numba

        torch.set_num_threads(args.threads)
        numba.set_num_threads(min(args.threads, numba.config.NUMBA_NUM_THREADS))
    device = pick_device(args.device)
    # eager first: the other backends are compared with it
    backends = sorted(dict.fromkeys(args.backends), key=lambda b: b != "eager")
    report = {"device": str(device), "torch": torch.__version__, "torch_threads": torch.get_num_threads(),
              "game_type": args.game_type, "seconds": args.seconds, "bf16": device.type == "cuda",
              "rows": [], "skipped": []}
    print(f"device {device}{' (bf16 autocast)' if report['bf16'] else ''}, torch {torch.__version__}, "
          f"torch threads {torch.get_num_threads()}, {args.game_type}, ~{args.seconds:g} s per row; "
          "first s = building (a backend's first row) + the first call, untimed")
    start = time.perf_counter()
    boards = position_boards(min(MAX_POSITIONS, POOL_BATCHES * max(args.batches)), args.game_type)
    pools = {b: observation_pool(boards, b) for b in args.batches}
    print(f"{len(boards)} positions encoded in {time.perf_counter() - start:.1f} s")
    print(HEADER)
    for size in args.sizes:
        torch.manual_seed(SEED)
        model = build_model(size).to(device)
        evaluators: dict[str, Evaluator | None] = {}
        for batch in args.batches:
            eager: dict | None = None
            eager_out: Outputs | None = None
            for name in backends:
                setup_s = 0.0
                if name not in evaluators:
                    start = time.perf_counter()
                    evaluators[name], why = build(name, model, device)
                    setup_s = time.perf_counter() - start
                    if evaluators[name] is None:
                        print(f"{size:8s} {name:10s} skipped: {why}", flush=True)
                        report["skipped"].append({"size": size, "backend": name, "reason": why})
                if evaluators[name] is None:
                    continue
                row, out = bench_row(name, evaluators[name], pools[batch], args.seconds, setup_s)
                row = {"size": size, **row}
                if name == "eager":
                    eager, eager_out = row, out
                elif eager is not None:
                    row["vs_eager"] = round(row["positions_per_s"] / eager["positions_per_s"], 3)
                    row["max_diff_vs_eager"] = max_difference(out, eager_out, pools[batch][0])
                report["rows"].append(row)
                print(format_row(row), flush=True)
                if args.json:
                    args.json.write_text(json.dumps(report, indent=1) + "\n")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
