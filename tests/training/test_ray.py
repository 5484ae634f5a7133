"""``backend=ray`` (training.ray_selfplay, training.ray_arena): a smoke run on a local Ray, a run
whose actors live on
a second node of a loopback cluster, and a run that loses an actor midway. The runs are slow
(``make test-slow``); they skip when ray is not installed (``pip install -e .[ray]``)."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from hive_env import Game
from search.checkpoint import load_model
from training.config import ConfigError, RunConfig, register_configs, run_config

from helpers import ROOT, hive_train, wait_for

requires_ray = pytest.mark.skipif(importlib.util.find_spec("ray") is None,
                                  reason="ray is not installed (pip install -e '.[ray]')")
RAY_CLI = str(Path(sys.executable).parent / "ray")
SHORT = ("eval.every=0", "eval.final_games=2")  # runs that test self-play, not evaluation


def settings(*overrides: str) -> RunConfig:
    from hydra import compose, initialize_config_dir

    register_configs()
    with initialize_config_dir(config_dir=str(ROOT / "configs"), version_base=None):
        return run_config(compose(config_name="train", overrides=["experiment=smoke", *overrides]))


def shards(run_dir: Path) -> dict[int, list[dict[str, np.ndarray]]]:
    """Each worker's shard stats, by sequence number (checked to be 0, 1, 2, ... without a gap)."""
    out: dict[int, list[dict[str, np.ndarray]]] = defaultdict(list)
    paths = sorted((run_dir / "replay").glob("shard_*.npz"))
    for p in paths:
        _, worker, seq = p.stem.split("_")
        assert int(seq) == len(out[int(worker)]), f"a gap before {p.name}"
        with np.load(p) as data:
            out[int(worker)].append({k[5:]: data[k] for k in data.files if k.startswith("stat_")})
    return out


def check_replay(run_dir: Path) -> dict[int, list[dict[str, np.ndarray]]]:
    """Shards numbered without gaps, none written twice, and game records matching them."""
    by_worker = shards(run_dir)
    assert by_worker
    keys = [(str(s["node_id"]), int(s["actor_pid"]), int(s["actor_batch"]))
            for stats in by_worker.values() for s in stats]
    assert len(keys) == len(set(keys)), "a shard was written twice"
    for w, stats in by_worker.items():
        records = (run_dir / "replay" / f"games_{w:03d}.txt").read_text().splitlines()
        assert len(records) == sum(len(s["game_plies"]) for s in stats)
    return by_worker


# ----- settings and the head's watch (no Ray needed) ------------------------------------------
def test_the_heads_watch_calls_once_the_head_stops_answering_for_its_time():
    from training.ray_cluster import reachable, watch_head

    server = socket.create_server(("127.0.0.1", 0))
    address = f"127.0.0.1:{server.getsockname()[1]}"
    lines: list[str] = []
    thread = watch_head(address, on_lost=lines.append, lost_s=0.6, poll_s=0.05)
    time.sleep(0.5)
    assert reachable(address) and not lines  # answering: nothing said
    server.close()
    assert not reachable(address)
    thread.join(timeout=10)
    assert len(lines) == 1 and lines[0].startswith(f"lost the Ray cluster's head at {address}: no answer for")
    assert "run the same command to resume" in lines[0]


def test_ray_settings_are_typed_and_checked():
    rc = settings("run_dir=x", "backend=ray", "ray.worker_cpus=1", "ray.worker_resources={selfplay_node: 1}")
    assert rc.backend == "ray" and rc.ray.worker_cpus == 1.0
    assert rc.ray.worker_resources == {"selfplay_node": 1.0}
    assert settings("run_dir=x").backend == "local" and settings("run_dir=x").ray.address == "local"
    for override, message in [("backend=spark", "backend must be one of local, ray"),
                              ("ray.worker_gpus=-1", "ray.worker_gpus must be >= 0"),
                              ("ray.worker_resources={a: x}", "ray.worker_resources must be a mapping"),
                              ("ray.max_restarts=-2", "ray.max_restarts must be >= -1"),
                              ("ray.eval_cpus=-1", "ray.eval_cpus must be >= 0"),
                              ("ray.eval_resources={a: 0}", "ray.eval_resources.a must be > 0")]:
        with pytest.raises(ConfigError, match=message):
            settings("run_dir=x", override)
    with pytest.raises(ConfigError, match="selfplay.workers must be >= 1 with backend=ray"):
        settings("run_dir=x", "backend=ray", "selfplay.workers=0")


def test_backend_and_ray_settings_may_change_on_resume():
    from training.resume import resume_changes

    refused, allowed = resume_changes({"backend": "local", "ray": {"address": "local"}},
                                      {"backend": "ray", "ray": {"address": "auto"}})
    assert not refused and allowed == ["backend: local -> ray", "ray.address: local -> auto"]


# ----- runs ------------------------------------------------------------------------------------
@requires_ray
def test_a_head_that_is_not_there_is_refused_in_one_line(tmp_path):
    proc = hive_train(tmp_path / "run", "backend=ray", f"ray.address=127.0.0.1:{free_port()}",
                      stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 69, err[-3000:]
    assert err.strip().splitlines()[-1].startswith("hive-train: cannot reach the Ray cluster's head at "
                                                   "ray.address=127.0.0.1:"), err[-3000:]
    assert "Traceback" not in err


@pytest.mark.slow
@requires_ray
def test_smoke_run_on_a_local_ray_leaves_the_local_run_directory(tmp_path):
    run_dir = tmp_path / "smoke"
    proc = hive_train(run_dir, "backend=ray", "ray.num_cpus=2")
    out, _ = proc.communicate(timeout=900)
    assert proc.returncode == 0, out[-3000:]
    assert "ray: connected to local" in out and "final score vs random" in out
    assert "games/s in total" in out
    assert "evaluation game(s) played as Ray tasks" in out  # evaluations and the final match
    _, state = load_model(run_dir / "checkpoints" / "final.pt")
    assert state["step"] == 20
    assert (run_dir / "checkpoints" / "best.pt").exists()
    assert (run_dir / "checkpoints" / "ckpt_00000020.pt").exists()
    assert list((run_dir / "tb").glob("events.out.tfevents.*"))
    assert json.loads((run_dir / "eval" / "ledger.json").read_text())["evaluations"]
    assert list((run_dir / "eval").glob("final_*"))
    records = (run_dir / "replay" / "games_000.txt").read_text().splitlines()
    assert records and all(Game.from_string(r).ply > 0 for r in records[:5])
    assert "backend: ray" in (run_dir / "config.yaml").read_text()
    by_worker = check_replay(run_dir)
    assert set(by_worker) == {0}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ray_cli(*args: str, env: dict[str, str]) -> None:
    proc = subprocess.run([RAY_CLI, *args], capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, f"ray {args[0]} failed: {(proc.stdout + proc.stderr)[-3000:]}"


@contextlib.contextmanager
def cluster(head: dict[str, float], node: dict[str, float], node_cpus: int = 2, head_cpus: int = 1,
            port: int | None = None):
    """A head node (``head_cpus`` CPUs, resources ``head``) and a second node (``node_cpus`` CPUs, resources
    ``node``) on this machine: yields (address, the environment to reach it). Both are stopped
    at the end, whatever happens. Token authentication is off: the nodes share no token file."""
    port = port or free_port()
    address = f"127.0.0.1:{port}"
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "disabled"}
    env.pop("RAY_ADDRESS", None)
    temp = tempfile.mkdtemp(prefix="ray")  # short: Ray's socket paths live under it
    try:
        ray_cli("start", "--head", "--node-ip-address=127.0.0.1", f"--port={port}", f"--num-cpus={head_cpus}",
                "--num-gpus=0", f"--resources={json.dumps(head)}", "--include-dashboard=false",
                f"--temp-dir={temp}", "--disable-usage-stats", env=env)
        ray_cli("start", f"--address={address}", f"--num-cpus={node_cpus}", "--num-gpus=0",
                f"--resources={json.dumps(node)}", "--disable-usage-stats", env=env)
        yield address, env
    finally:
        subprocess.run([RAY_CLI, "stop", "--force"], capture_output=True, timeout=120, env=env)
        shutil.rmtree(temp, ignore_errors=True)


@pytest.fixture
def loopback_cluster():
    """The head (resource ``head``) and a second node with two CPUs (``selfplay_node``)."""
    with cluster({"head": 1}, {"selfplay_node": 2}) as got:
        yield got


def raylet_with(resource: str) -> tuple[int, str]:
    """The pid and node id of the raylet (a node's own process) whose static resources include
    ``resource``."""
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            with contextlib.suppress(OSError):
                args = [a.decode() for a in (proc / "cmdline").read_bytes().split(b"\0")]
                if args[0].endswith("/raylet") and any(
                        a.startswith("--static_resource_list=") and f",{resource}," in a + "," for a in args):
                    node = next(a.split("=", 1)[1] for a in args if a.startswith("--node_id="))
                    return int(proc.name), node
    raise AssertionError(f"no raylet has the resource {resource}")


def children_of(pid: int) -> dict[int, str]:
    """The processes whose parent is ``pid``: pid -> title (a Ray worker is titled
    ``ray::<function>`` while it runs a task, ``ray::IDLE`` between tasks)."""
    found = {}
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                parent = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
                if parent == pid:
                    found[int(proc.name)] = (proc / "cmdline").read_bytes().split(b"\0")[0].decode()
    return found


def kill_node(raylet: int) -> None:
    """The node gone as a machine goes: its raylet and every process it started (its workers
    too: a worker left alone could still hand its result to the driver, which talks to it
    directly)."""
    workers = children_of(raylet)
    os.kill(raylet, signal.SIGKILL)
    for pid in workers:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def node_ids(address: str, env: dict[str, str]) -> dict[str, str]:
    """Custom resource -> id of the node that has it, from the cluster itself."""
    code = ("import json, ray; ray.init(address=%r, logging_level='ERROR'); "
            "print(json.dumps([[n['NodeID'], sorted(n['Resources'])] for n in ray.nodes() if n['Alive']]))")
    out = subprocess.run([sys.executable, "-c", code % address], capture_output=True, text=True, timeout=120,
                         check=True, env=env).stdout
    nodes = json.loads(out.strip().splitlines()[-1])
    return {r: node for node, resources in nodes for r in resources if r in ("head", "selfplay_node")}


@pytest.mark.slow
@requires_ray
def test_actors_forced_onto_a_second_node_produce_the_shards(tmp_path, loopback_cluster):
    run_dir = tmp_path / "cluster"
    address, env = loopback_cluster
    proc = hive_train(run_dir, "backend=ray", f"ray.address={address}", "selfplay.workers=2",
                      "ray.worker_cpus=1", "ray.worker_resources={selfplay_node: 1}", *SHORT, env=env)
    out, _ = proc.communicate(timeout=900)
    assert proc.returncode == 0, out[-3000:]
    assert f"ray: connected to {address} (2 node(s)" in out
    nodes = node_ids(address, env)
    assert nodes["head"] != nodes["selfplay_node"]
    for w in (0, 1):  # both actors ran there (whether both finished a shard before the run's end
        # depends on the machine's load: the trainer needs only 320 positions)
        assert f"ray: self-play actor {w} running on node {nodes['selfplay_node'][:12]}" in out, out[-3000:]
    by_worker = check_replay(run_dir)
    assert set(by_worker) <= {0, 1}
    where = {str(s["node_id"]) for stats in by_worker.values() for s in stats}
    assert where == {nodes["selfplay_node"]}
    _, state = load_model(run_dir / "checkpoints" / "final.pt")
    assert state["step"] == 20


@pytest.mark.slow
@requires_ray
def test_a_killed_actor_is_restarted_and_no_shard_is_lost_or_doubled(tmp_path):
    run_dir = tmp_path / "kill"
    # a run that does not end by itself: it is stopped once the restarted actor has written a
    # shard (a run of fixed length raced the restart: its other actor could supply all the data)
    log = tmp_path / "kill.log"  # a long run's output would fill a pipe nobody reads
    with log.open("w") as out:
        proc = hive_train(run_dir, "backend=ray", "ray.num_cpus=2", "selfplay.workers=2", "ray.worker_cpus=1",
                          "train.steps=1000000", "train.checkpoint_every=50", *SHORT, stdout=out)
    replay = run_dir / "replay"

    def actor_1_pids() -> set[int]:
        pids = set()
        for path in sorted(replay.glob("shard_001_*.npz")):  # written whole (renamed into place)
            with np.load(path) as data:
                pids.add(int(data["stat_actor_pid"]))
        return pids

    try:
        assert wait_for(proc, lambda: bool(actor_1_pids()), timeout=600, poll=0.2), log.read_text()[-3000:]
        (victim,) = actor_1_pids()
        os.kill(victim, signal.SIGKILL)  # actor 1 dies in the middle of its games
        restarted = wait_for(proc, lambda: len(actor_1_pids()) == 2, timeout=600, poll=0.5)
        proc.send_signal(signal.SIGTERM)  # the trainer stops cleanly: actors stopped, shards kept
        proc.wait(timeout=300)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    out = log.read_text()
    assert restarted, out[-3000:]
    assert proc.returncode == 128 + signal.SIGTERM, out[-3000:]
    assert "self-play actor 1 died" in out and "Ray restarts it (restart 1 of 3)" in out, out[-3000:]
    assert "self-play actor 1 restarted on node" in out
    by_worker = check_replay(run_dir)
    pids = {int(s["actor_pid"]) for s in by_worker[1]}
    assert victim in pids and len(pids) == 2  # the actor before and after its restart
    assert len({int(s["actor_pid"]) for s in by_worker[0]}) == 1  # the other actor never restarted
    assert list((run_dir / "checkpoints").glob("ckpt_*.pt"))


@pytest.mark.slow
@requires_ray
def test_a_killed_driver_resumes_with_the_same_command(tmp_path):
    run_dir = tmp_path / "driver"
    overrides = ("ray.num_cpus=2", "train.steps=40", "train.checkpoint_every=10", *SHORT)
    proc = hive_train(run_dir, "backend=ray", *overrides)
    try:
        ckpt = run_dir / "checkpoints" / "ckpt_00000010.pt"
        assert wait_for(proc, ckpt.exists, timeout=600, poll=0.2), proc.communicate()[0][-3000:]
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the driver and the Ray it started, mid-run
        proc.wait()
    before = {p.name for p in (run_dir / "replay").glob("shard_*.npz")}
    proc = hive_train(run_dir, "backend=ray", *overrides)
    out, _ = proc.communicate(timeout=900)
    assert proc.returncode == 0, out[-3000:]
    assert "resumed from checkpoint step" in out
    assert int(out.split("resumed from checkpoint step")[1].split()[0]) >= 10
    assert before <= {p.name for p in (run_dir / "replay").glob("shard_*.npz")}  # nothing lost
    check_replay(run_dir)
    assert load_model(run_dir / "checkpoints" / "final.pt")[1]["step"] == 40


@pytest.mark.slow
@requires_ray
def test_a_sweeps_jobs_play_on_the_cluster(tmp_path, loopback_cluster):
    """``hive-train -m ... backend=ray``: the jobs run side by side here, their self-play on the
    cluster's other node (the project's own Ray connection, one per job)."""
    address, env = loopback_cluster
    sweep = tmp_path / "sweep"
    cmd = [sys.executable, "-m", "scripts.train", "-m", "experiment=smoke", "backend=ray",
           f"ray.address={address}", "ray.worker_cpus=1", "ray.worker_resources={selfplay_node: 1}", *SHORT,
           "seed=1,2", f"hydra.sweep.dir={sweep}"]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=900, env=env)
    assert out.returncode == 0, (out.stdout + out.stderr)[-3000:]
    data = json.loads((sweep / "sweep.json").read_text())
    assert [j["status"] for j in data["jobs"]] == ["done", "done"]
    node = node_ids(address, env)["selfplay_node"]
    for job in data["jobs"]:
        run_dir = sweep / job["run_dir"]
        where = {str(s["node_id"]) for stats in check_replay(run_dir).values() for s in stats}
        assert where == {node}
        assert load_model(run_dir / "checkpoints" / "final.pt")[1]["step"] == 20


ARENA_ON_RAY = """
import sys
from arena.arena import run_arena
from arena.config import ArenaConfig
from training.config import RayConfig
from training.ray_arena import ray_executor

rc = RayConfig(address=sys.argv[1], eval_resources={"eval_slot": 1})
config = ArenaConfig("gauntlet", ("alphabeta:depth=4", "alphabeta:depth=3"), 12, seed=5)
report = run_arena(config, sys.argv[2], workers=3, progress=False,
                   executor=ray_executor(rc, log=lambda m: print(m, flush=True)))
print("complete", report.complete, len(report.records), flush=True)
"""


@pytest.mark.slow
@requires_ray
def test_a_node_lost_during_an_evaluation_costs_its_games_played_again_whole(tmp_path):
    """The evaluation's executor (training.ray_arena) on a cluster of two nodes, both with slots
    for games; the second node is killed (its raylet and workers) while both its slots play
    (games of about a second: a game must be running there, and the head alone can play them
    all before that node's workers have started): the games it was playing are played again whole on the head,
    every game is recorded once, and the records are those a machine without the fault writes
    (the same seeds)."""
    out = tmp_path / "arena"
    with cluster({"eval_slot": 1}, {"eval_slot": 2, "doomed": 1}) as (address, env):
        log = tmp_path / "arena.log"
        with log.open("w") as f:
            proc = subprocess.Popen([sys.executable, "-c", ARENA_ON_RAY, address, str(out)], cwd=ROOT,
                                    stdout=f, stderr=subprocess.STDOUT, text=True, env=env,
                                    start_new_session=True)
        try:
            raylet = raylet_with("doomed")[0]
            busy = wait_for(proc, lambda: list(children_of(raylet).values()).count("ray::_play_remote") == 2,
                            timeout=600, poll=0.05)
            assert busy, log.read_text()[-3000:]
            kill_node(raylet)  # the node is gone, its games with it
            proc.wait(timeout=600)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
        text = log.read_text()
        assert proc.returncode == 0, text[-3000:]
    assert "complete True 12" in text, text[-3000:]
    assert "lost with its node or worker" in text, text[-3000:]
    assert "played again whole (retry 1 of 3)" in text
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert sorted(r["id"] for r in records) == sorted({r["id"] for r in records}) and len(records) == 12
    # the same arena played on one machine, no fault: game for game the same records
    from arena.arena import run_arena
    from arena.config import ArenaConfig

    again = run_arena(ArenaConfig("gauntlet", ("alphabeta:depth=4", "alphabeta:depth=3"), 12, seed=5),
                      tmp_path / "local", progress=False)
    local = {r["id"]: r["game_string"] for r in again.records}
    assert {r["id"]: r["game_string"] for r in records} == local


@pytest.mark.slow
@requires_ray
def test_a_node_lost_with_its_actors_games_loses_them_whole_and_the_run_goes_on(tmp_path):
    """Three self-play actors on two nodes (two slots on the head, so at least one on the other
    node); that node's raylet is killed once it has delivered a shard: the games its actors were
    playing are lost whole (no shard half written, none doubled, numbered without a gap), the
    death is logged, and the head's actors keep the run going."""
    run_dir = tmp_path / "node"
    with cluster({"sp": 2}, {"sp": 2, "doomed": 1}, node_cpus=1, head_cpus=2) as (address, env):
        _, doomed = raylet_with("doomed")
        log = tmp_path / "node.log"
        with log.open("w") as out:
            proc = hive_train(run_dir, "backend=ray", f"ray.address={address}", "selfplay.workers=3",
                              "ray.worker_cpus=0.5", "ray.worker_resources={sp: 1}", "train.steps=1000000",
                              "train.checkpoint_every=20", *SHORT, stdout=out, env=env)

        def nodes_of_shards() -> dict[str, str]:
            """Shard file -> the node that played it."""
            found = {}
            for path in sorted((run_dir / "replay").glob("shard_*.npz")):
                with np.load(path) as data:
                    found[path.name] = str(data["stat_node_id"])
            return found

        try:
            assert wait_for(proc, lambda: doomed in nodes_of_shards().values(), timeout=600, poll=0.5), \
                log.read_text()[-3000:]
            os.kill(raylet_with("doomed")[0], signal.SIGKILL)
            died = wait_for(proc, lambda: "died" in log.read_text(), timeout=300, poll=0.5)
            assert died, log.read_text()[-3000:]
            before = set(nodes_of_shards())
            assert wait_for(proc, lambda: len(nodes_of_shards()) >= len(before) + 2, timeout=600, poll=0.5), \
                log.read_text()[-3000:]  # the run goes on with the head's actors
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=300)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
    out = log.read_text()
    assert proc.returncode == 128 + signal.SIGTERM, out[-3000:]
    assert "its unfinished games are lost" in out, out[-3000:]
    by_worker = check_replay(run_dir)  # every shard whole, numbered without a gap, none twice
    assert sum(len(stats) for stats in by_worker.values()) == len(nodes_of_shards())
    late = [node for name, node in nodes_of_shards().items() if name not in before]
    assert late and doomed not in late
    assert list((run_dir / "checkpoints").glob("ckpt_*.pt"))


def gcs_server_at(port: int) -> int:
    """The pid of the head's GCS server listening on ``port``."""
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            with contextlib.suppress(OSError):
                args = [a.decode() for a in (proc / "cmdline").read_bytes().split(b"\0")]
                if args[0].endswith("/gcs_server") and f"--gcs_server_port={port}" in args:
                    return int(proc.name)
    raise AssertionError(f"no GCS server on port {port}")


@pytest.mark.slow
@requires_ray
def test_a_lost_head_stops_the_run_in_one_line_and_the_same_command_resumes_on_the_restarted_head(tmp_path):
    run_dir = tmp_path / "head"
    overrides = ("selfplay.workers=1", "train.steps=60", "train.checkpoint_every=20", *SHORT)
    with cluster({"h": 1}, {"n": 1}, node_cpus=1, head_cpus=2) as (address, env):
        proc = hive_train(run_dir, "backend=ray", f"ray.address={address}", *overrides, env=env)
        try:
            ckpt = run_dir / "checkpoints" / "ckpt_00000020.pt"
            assert wait_for(proc, ckpt.exists, timeout=600, poll=0.2), proc.communicate()[0][-3000:]
            os.kill(gcs_server_at(int(address.rsplit(":", 1)[1])), signal.SIGKILL)  # the head's heart
            out, _ = proc.communicate(timeout=120)  # before Ray's own minute
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 69, out[-3000:]
    assert out.strip().splitlines()[-1].startswith("hive-train: lost the Ray cluster's head at "), out[-3000:]
    port = int(address.rsplit(":", 1)[1])  # the same address: the same command
    with cluster({"h": 1}, {"n": 1}, node_cpus=1, head_cpus=2, port=port) as (_, env):
        proc = hive_train(run_dir, "backend=ray", f"ray.address={address}", *overrides, env=env)
        out, _ = proc.communicate(timeout=900)
    assert proc.returncode == 0, out[-3000:]
    assert int(out.split("resumed from checkpoint step")[1].split()[0]) >= 20
    check_replay(run_dir)
    assert load_model(run_dir / "checkpoints" / "final.pt")[1]["step"] == 60
