"""Self-play positions per second with ``backend=local`` against ``backend=ray``, same settings, one run.

    python -m scripts.bench_backend                          # smoke settings, 2 workers, 45 s each
    python -m scripts.bench_backend --seconds 60 --rounds 2 experiment=cpu selfplay.workers=2

Each measurement starts the workers (processes, or actors on a local Ray) on a fresh run directory
holding one checkpoint of an untrained network, waits for the first shard (start-up and compiling
excluded), then counts the positions in the shards that arrive during ``--seconds``, from the
first shard's arrival to the last one's. Rounds alternate the backends, so that a machine whose
load drifts treats both alike. Prints each rate and the ratio ray / local.
"""

from __future__ import annotations

import argparse
import logging
import multiprocessing as mp
import os
import shutil
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from hydra import compose, initialize_config_dir

import hive_zero
from hive_zero import version_line
from hive_zero.run_layout import RunLayout
from models.gnn import HiveGNN
from training.checkpoint import CheckpointStore
from training.config import RunConfig, register_configs, run_config
from training.replay import ReplayStore
from training.shared_flag import SharedFlag
from training.worker import worker_main

CONFIGS = hive_zero.CONFIGS


def positions_per_s(rc: RunConfig, seconds: float) -> float:
    """Self-play positions per second of ``rc``'s workers on ``rc.backend`` (see the module docstring)."""
    shutil.rmtree(rc.run_dir, ignore_errors=True)
    model = HiveGNN(rc.model)
    layout = RunLayout(rc.run_dir)
    CheckpointStore(layout.checkpoints).publish(0, model)
    replay = ReplayStore(layout.replay)
    stop, procs, remote = SharedFlag.create(mp.get_context("spawn")), [], None
    if rc.backend == "ray":
        from training.ray_selfplay import RaySelfPlay

        remote = RaySelfPlay(rc, model, 0, log=lambda line: None)
    else:
        for w in range(rc.selfplay.workers):
            procs.append(mp.get_context("spawn").Process(target=worker_main, args=(rc, w, stop, os.getpid()),
                                                         daemon=True))
            procs[-1].start()
    try:
        count = 0
        while count == 0:
            time.sleep(0.02)
            count = replay.count()
        first, start = count, time.monotonic()
        last, end = first, start
        while time.monotonic() - start < seconds:
            time.sleep(0.02)
            count = replay.count()
            if count != last:
                last, end = count, time.monotonic()
        return (last - first) / max(1e-6, end - start)
    finally:
        stop.set()
        if remote is not None:
            remote.close()
        for p in procs:
            p.join(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=version_line("hive-bench-backend"))
    parser.add_argument("--seconds", type=float, default=45.0, help="measured seconds per backend and round")
    parser.add_argument("--rounds", type=int, default=1, help="local/ray measurements, alternating")
    parser.add_argument("overrides", nargs="*", help="hive-train settings (default: smoke, 2 workers)")
    args = parser.parse_args()
    logging.getLogger("ray").setLevel(logging.WARNING)
    register_configs()
    run_dir = Path(tempfile.mkdtemp(prefix="bench_backend_"))
    overrides = ["experiment=smoke", "selfplay.workers=2", "ray.num_cpus=2", *args.overrides]
    with initialize_config_dir(config_dir=str(CONFIGS), version_base=None):
        rc = run_config(compose(config_name="train", overrides=[*overrides, f"run_dir={run_dir}"]))
    print(f"self-play, {rc.selfplay.workers} workers x {rc.selfplay.games} games, {rc.search.sims} sims, "
          f"model width {rc.model.width}; {args.seconds:g} s per measurement")
    rates: dict[str, list[float]] = {"local": [], "ray": []}
    try:
        for _ in range(args.rounds):
            for backend in ("local", "ray"):
                rate = positions_per_s(replace(rc, backend=backend, run_dir=run_dir / backend), args.seconds)
                rates[backend].append(rate)
                print(f"{backend:5s}: {rate:8.1f} positions/s", flush=True)
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)
    local, ray = (sum(r) / len(r) for r in (rates["local"], rates["ray"]))
    print(f"ray / local: {ray / local:.3f} (overhead {100 * (1 - ray / local):+.1f}%)")


if __name__ == "__main__":
    main()
