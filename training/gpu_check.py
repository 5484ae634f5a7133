"""The GPU check's steps (``scripts/gpu_check.sh`` runs them through ``python -m scripts.gpu_check``,
after setting up the venv): timed checks on one CUDA machine and one JSON report.

Steps (:data:`PLANS`), each a subprocess with its own timeout: one that fails or times out is
recorded with its log's tail, and the next one runs. Standard library only (the report is written
even without the venv); ``GPU_CHECK_DEVICE=cpu`` runs the steps on the CPU, tiny, to check the plumbing.

See docs/search.md (benchmarks) and docs/scaling.md.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import time
from datetime import UTC, datetime
from pathlib import Path

from hive_zero.run_layout import RunLayout

ROOT = Path(__file__).resolve().parents[1]
BIN = ROOT / ".venv" / "bin"
TAIL_LINES = 15
MATCH_S = 60
"""The match's timeout; the training run gets what the budget leaves after it."""
TRAIN_MARGIN_S = 60
"""Training-step seconds outside ``train.max_minutes``: start-up, the final checkpoint and match."""

PLANS = {
    "cuda": {
        "inference": ["--device", "cuda", "--sizes", "tiny", "small", "default", "--batches", "64", "256",
                      "1024", "--backends", "eager", "compile", "--game-type", "Base+MLP", "--seconds", "1"],
        "inference_s": 120,
        "search": ["--device", "cuda", "--sizes", "tiny", "default", "--batches", "64", "256", "1024"],
        "search_s": 60,
        "selfplay": ["--device", "cuda", "--size", "default", "--games", "256", "--sims", "64", "--gumbel",
                     "--game-type", "Base+MLP", "--ply-cap", "300", "--inference", "auto", "constant",
                     "--seconds", "20"],
        "selfplay_s": 150,
        "train": ["train.min_positions=10000", "selfplay.shard_games=32"],
        "train_max_s": 300,
        "match_sims": 64, "match_games": 4, "match_device": "cuda", "match_ply_cap": 300,
    },
    "cpu": {  # GPU_CHECK_DEVICE=cpu: the plumbing, tiny and short
        "inference": ["--device", "cpu", "--sizes", "tiny", "--batches", "8", "--backends", "eager",
                      "compile", "--game-type", "Base+MLP", "--seconds", "0.5"],
        "inference_s": 150,
        "search": ["--device", "cpu", "--sizes", "tiny", "--batches", "8", "--sims", "8"],
        "search_s": 60,
        "selfplay": ["--device", "cpu", "--size", "tiny", "--games", "8", "--sims", "8",
                     "--inference", "auto", "constant", "--seconds", "2"],
        "selfplay_s": 120,
        "train": ["device=cpu", "compile=false", "model.width=16", "model.layers=1", "env.ply_cap=60",
                  "search.sims=8", "selfplay.workers=1", "selfplay.games=8", "selfplay.shard_games=4",
                  "train.batch_size=32", "train.min_positions=64", "train.warmup_steps=5",
                  "train.checkpoint_every=10", "eval.workers=1"],
        "train_max_s": 150,
        "match_sims": 8, "match_games": 2, "match_device": "cpu", "match_ply_cap": 60,
    },
}
"""Each step's arguments and timeout, on CUDA and on the CPU (``GPU_CHECK_DEVICE=cpu``):

- ``inference``: ``scripts.bench_inference``, backends eager and compile (the CUDA ones), sizes
  tiny small default, batches 64 256 1024, Base+MLP positions.
- ``search``: ``scripts.bench_search --sizes tiny default --batches 64 256 1024``.
- ``selfplay``: ``scripts.bench_selfplay``: one self-play process (one core, the default network
  on the GPU, the gpu preset's Base+MLP games, Gumbel root, 256 games, 64 simulations) and the
  same with a network that costs nothing, its CPU-side ceiling (docs/scaling.md: how many
  processes keep the GPU busy).
- ``train``: ``hive-train experiment=gpu`` in a temporary run dir for what is left of the budget
  (about 5 minutes; ``train.max_minutes``; training starts at 10,000 positions instead of 50,000,
  no evaluation during the run, a 2-game final match), with ``nvidia-smi`` sampling utilisation
  and memory every second; self-play positions/s and trainer steps/s read from ``train.log`` and
  the TensorBoard scalars.
- ``match``: ``hive-arena gauntlet`` of the run's ``final.pt`` (else the shipped network, Base)
  against greedy, 4 games.
"""


def tail(path: Path, lines: int = TAIL_LINES) -> list[str]:
    try:
        return path.read_text(errors="replace").splitlines()[-lines:]
    except OSError:
        return []


def run_step(name: str, cmd: list[str], timeout: float, work: Path) -> dict:
    """Run ``cmd`` (its own process group) with output to ``work/<name>.log``; its record.

    At the timeout the process gets SIGTERM (hive-train stops cleanly on it), and 20 s later its
    whole group SIGKILL; after any step, whatever is left of its group is killed, so that nothing
    of it runs into the next step's figures.
    """
    log = work / f"{name}.log"
    print(f"gpu_check: {name} (timeout {timeout:.0f} s): {' '.join(cmd)}", flush=True)
    start = time.monotonic()
    timed_out = False
    with log.open("w") as out:
        try:
            proc = subprocess.Popen(cmd, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
                                    start_new_session=True)
        except OSError as e:
            out.write(f"could not start: {e}\n")
            proc = None
        if proc is None:
            rc = 127
        else:
            try:
                rc = proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
                proc.send_signal(signal.SIGTERM)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=20)
                rc = 124
            with contextlib.suppress(ProcessLookupError):  # what is left of the group: workers, compilers
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    seconds = time.monotonic() - start
    status = "timeout" if timed_out else "ok" if rc == 0 else "failed"
    print(f"gpu_check: {name}: {status} (exit {rc}) in {seconds:.0f} s", flush=True)
    record = {"status": status, "rc": rc, "seconds": round(seconds, 1), "timeout_s": round(timeout),
              "command": cmd, "log": str(log)}
    if status != "ok":
        record["tail"] = tail(log)
    return record


class GpuSampler:
    """``nvidia-smi --query-gpu=utilization.gpu,memory.used ... -l 1`` in the background."""

    def __init__(self, path: Path):
        self.path = path
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> GpuSampler:
        try:
            self.proc = subprocess.Popen(
                ["nvidia-smi", "--query-gpu=utilization.gpu,memory.used", "--format=csv,noheader,nounits",
                 "-l", "1"], stdout=self.path.open("w"), stderr=subprocess.DEVNULL)
        except OSError:
            self.proc = None  # no nvidia-smi (the CPU dry run)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def summary(self) -> dict | None:
        """Samples, mean and max utilisation (%), mean and max memory used (MiB); None without samples."""
        util, mem = [], []
        for line in tail(self.path, 10**6):
            parts = [p.strip() for p in line.split(",")]
            if len(parts) >= 2 and parts[0].isdigit() and parts[1].isdigit():  # first GPU's columns
                util.append(int(parts[0]))
                mem.append(int(parts[1]))
        if not util:
            return None
        return {"samples": len(util), "utilization_mean_pct": round(sum(util) / len(util), 1),
                "utilization_max_pct": max(util), "memory_used_mean_mib": round(sum(mem) / len(mem)),
                "memory_used_max_mib": max(mem)}


LOG_TIME = r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d{3}) "
TRAIN_LINE = re.compile(LOG_TIME + r"train: step (\d+)/\d+, loss ([\d.naninf]+), (\d+) positions, "
                        r"([\d.]+) steps/s")
SELFPLAY_LINE = re.compile(LOG_TIME + r"self-play: (\d+) games finished, (\d+) positions in replay")


def _log_seconds(date: str, millis: str) -> float:
    return datetime.strptime(date, "%Y-%m-%d %H:%M:%S").timestamp() + int(millis) / 1000


def parse_train_log(path: Path) -> dict:
    """Figures from ``train.log``: the last step, its loss and steps/s (hive-train's own figure,
    steps since the process started over its time, self-play wait included), and the self-play
    positions/s between the first and last line reporting positions in replay."""
    points, last = [], None
    for line in tail(path, 10**6):
        if m := TRAIN_LINE.match(line):
            last = m
            points.append((_log_seconds(m[1], m[2]), int(m[5])))
        elif m := SELFPLAY_LINE.match(line):
            points.append((_log_seconds(m[1], m[2]), int(m[4])))
    out: dict = {"log_lines": len(points)}
    if last is not None:
        out.update(last_step=int(last[3]), last_loss=float(last[4]), log_steps_per_s=float(last[6]))
    seen = [(t, p) for t, p in points if p > 0]
    if len({p for _, p in seen}) >= 2 and seen[-1][0] > seen[0][0]:  # replay grew in the window
        out["log_positions_per_s"] = round((seen[-1][1] - seen[0][1]) / (seen[-1][0] - seen[0][0]), 1)
    if seen:
        out["positions_in_replay"] = seen[-1][1]
    return out


def parse_tensorboard(tb: Path) -> dict:
    """Trainer steps/s from the wall times of the ``train/total`` scalar (first to last step), and
    the last ``selfplay/positions_per_s`` and ``games_per_s`` (over the last checkpoint interval)."""
    try:
        from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    except ImportError as e:
        return {"error": f"tensorboard not importable: {e}"}
    acc = EventAccumulator(str(tb), size_guidance={"scalars": 0})
    acc.Reload()
    tags = set(acc.Tags().get("scalars", []))
    out: dict = {}
    if "train/total" in tags:
        ev = acc.Scalars("train/total")
        out["train_steps_logged"] = len(ev)
        if len(ev) >= 2 and ev[-1].wall_time > ev[0].wall_time:
            out["steps_per_s"] = round((ev[-1].step - ev[0].step) / (ev[-1].wall_time - ev[0].wall_time), 2)
    for tag in ("selfplay/positions_per_s", "selfplay/games_per_s"):
        if tag in tags:
            out[tag.split("/")[1]] = round(acc.Scalars(tag)[-1].value, 2)
    return out


def parse_bench_search(path: Path) -> list[dict]:
    """The rows ``size B sims/s tree env net tree+env`` printed by ``scripts.bench_search``."""
    rows = []
    pattern = re.compile(r"^(\w+)\s+(\d+)\s+([\d,.]+)\s+([\d.]+)%\s+([\d.]+)%\s+([\d.]+)%\s+([\d.]+)%$")
    for line in tail(path, 10**6):
        if m := pattern.match(line.strip()):
            rows.append({"size": m[1], "batch": int(m[2]), "sims_per_s": float(m[3].replace(",", "")),
                         "tree_share": round(float(m[4]) / 100, 4), "env_share": round(float(m[5]) / 100, 4),
                         "net_share": round(float(m[6]) / 100, 4)})
    return rows


def read_json(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def python_facts() -> dict:
    """torch's version, its CUDA build and whether it sees a device (from the venv's python)."""
    code = ("import json, torch; c = torch.cuda.is_available(); "
            "print(json.dumps({'version': torch.__version__, 'cuda_build': torch.version.cuda, "
            "'cuda_available': c, 'device_name': torch.cuda.get_device_name(0) if c else None}))")
    try:
        out = subprocess.run([str(BIN / "python"), "-c", code], capture_output=True, text=True, timeout=120)
        return json.loads(out.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.SubprocessError, ValueError, IndexError) as e:
        return {"error": f"torch not importable from the venv: {type(e).__name__}"}


def gpu_facts() -> dict | None:
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name,memory.total,driver_version",
                              "--format=csv,noheader,nounits"], capture_output=True, text=True, timeout=30)
        name, memory, driver = (p.strip() for p in out.stdout.splitlines()[0].split(","))
        return {"name": name, "memory_total_mib": int(memory), "driver": driver}
    except (OSError, subprocess.SubprocessError, ValueError, IndexError):
        return None


def git_commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                             timeout=10)
        return out.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def check(args: argparse.Namespace) -> int:
    """Run the steps of :data:`PLANS` for ``args.device`` (``python -m scripts.gpu_check``'s options:
    ``out``, ``work``, ``device``, ``started``, ``budget``, ``setup_rc``, ``setup_seconds``),
    rewriting the report at ``args.out`` after each; the exit status, 0 once it is written."""
    plan, work = PLANS[args.device], args.work
    work.mkdir(parents=True, exist_ok=True)
    deadline = args.started + args.budget
    report: dict = {
        "started": datetime.fromtimestamp(args.started, UTC).isoformat(timespec="seconds"),
        "host": socket.gethostname(), "device": args.device, "budget_s": args.budget,
        "git_commit": git_commit(), "work_dir": str(work), "gpu": gpu_facts(), "torch": python_facts(),
        "steps": {},
    }
    steps = report["steps"]
    status = {0: "ok", 124: "timeout"}.get(args.setup_rc, "failed")
    steps["setup"] = {"status": status, "rc": args.setup_rc, "seconds": round(args.setup_seconds, 1),
                      "command": ["make", "setup"], "log": str(work / "setup.log")}
    if args.setup_rc != 0:
        steps["setup"]["tail"] = tail(work / "setup.log")

    def write() -> None:
        report["total_seconds"] = round(time.time() - args.started, 1)
        report["ok"] = "skipped" not in report and all(s["status"] == "ok" for s in steps.values())
        tmp = args.out.with_name(args.out.name + ".tmp")
        tmp.write_text(json.dumps(report, indent=1) + "\n")
        tmp.replace(args.out)

    if args.device == "cuda" and not report["torch"].get("cuda_available"):
        why = ("torch is not importable from the venv (see the setup step)" if "error" in report["torch"]
               else "torch sees no CUDA device here (torch.cuda.is_available() is false)")
        print(f"gpu_check: {why}; nothing checked, report in {args.out}")
        report["skipped"] = why
        write()
        return 0

    python = str(BIN / "python")
    inference_json = work / "inference.json"
    steps["inference"] = run_step("inference", [python, "-m", "scripts.bench_inference", *plan["inference"],
                                                "--json", str(inference_json)], plan["inference_s"], work)
    steps["inference"]["result"] = read_json(inference_json)
    write()

    steps["search"] = run_step("search", [python, "-m", "scripts.bench_search", *plan["search"]],
                               plan["search_s"], work)
    steps["search"]["result"] = {"rows": parse_bench_search(work / "search.log")}
    write()

    selfplay_json = work / "selfplay.json"
    steps["selfplay"] = run_step("selfplay", [python, "-m", "scripts.bench_selfplay", *plan["selfplay"],
                                              "--json", str(selfplay_json)], plan["selfplay_s"], work)
    steps["selfplay"]["result"] = read_json(selfplay_json)
    write()

    run_dir = work / "run"
    train_s = max(60.0, min(plan["train_max_s"], deadline - time.time() - MATCH_S))
    max_minutes = round(max(0.25, (train_s - TRAIN_MARGIN_S) / 60), 2)
    overrides = ["experiment=gpu", "name=gpu_check", f"run_dir={run_dir}", f"train.max_minutes={max_minutes}",
                 "eval.every=0", "eval.final_games=2", "eval.final_opponents=[random]", "eval.final_sims=16",
                 *plan["train"]]
    with GpuSampler(work / "nvidia_smi.csv") as sampler:
        steps["train"] = run_step("train", [str(BIN / "hive-train"), *overrides], train_s, work)
    layout = RunLayout(run_dir)
    final = layout.final
    steps["train"]["result"] = {
        "max_minutes": max_minutes, "run_dir": str(run_dir), "final_checkpoint": final.exists(),
        **parse_train_log(layout.train_log), **parse_tensorboard(layout.tb),
        "gpu": sampler.summary()}
    write()

    opts = f"device={plan['match_device']},sims={plan['match_sims']}"
    player, game_type = (f"alphazero:ckpt={final},{opts}", "Base+MLP") if final.exists() else (
        f"alphazero:{opts}", "Base")
    arena_dir = work / "arena"
    match = [str(BIN / "hive-arena"), "gauntlet", player, "greedy", "--game-type", game_type,
             "--games-per-pairing", str(plan["match_games"]), "--workers", "2",
             "--ply-cap", str(plan["match_ply_cap"]), "--out", str(arena_dir), "--no-progress"]
    steps["match"] = run_step("match", match, max(30.0, min(MATCH_S, deadline - time.time())), work)
    summary = read_json(arena_dir / "summary.json") or {}
    steps["match"]["result"] = {"player": player, "game_type": game_type,
                                "games_done": summary.get("games_done"), "pairings": summary.get("pairings")}
    write()
    print(f"gpu_check: report in {args.out} ({'all steps ok' if report['ok'] else 'some steps failed'}, "
          f"{report['total_seconds']:.0f} s)")
    return 0
