"""Ray, connected once per process: the one place that starts or joins a cluster (``ray.address``).

The cluster's head (its GCS) is watched while the process runs: Ray itself, when the head is
gone, retries for a minute and then ends the process with its own message and exit 1 (and a
``ray.init`` to a head that is down retries forever). So a head that cannot be reached at the
start is refused in one line, and one that stops answering for :data:`HEAD_LOST_S` seconds
(stopped, crashed, restarted: a restarted head is a new cluster, whose actors know nothing of
this run) ends the run with one line and exit 69 (``training.faults.CLUSTER_LOST_EXIT``). Every
file a later step reads was written whole, so the same command resumes once the head is back.

Ray is imported only by the ``training.ray_*`` modules, and those only under ``backend=ray``.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
import threading
import time
from typing import TYPE_CHECKING, Any

from .faults import CLUSTER_LOST_EXIT, ClusterError

if TYPE_CHECKING:
    from .config import RayConfig

HEAD_LOST_S = 20.0
"""Seconds the head may not answer before the run stops (Ray's own limit is 60)."""
HEAD_POLL_S = 2.0
"""Seconds between two looks at the head."""
REACH_S = 10.0
"""Seconds a head named by ``ray.address`` has to answer at the start."""


def reachable(address: str, timeout: float = 2.0) -> bool:
    """Whether something accepts TCP connections at ``host:port`` (the head's GCS port)."""
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host or "127.0.0.1", int(port)), timeout=timeout):
            return True
    except (OSError, ValueError):
        return False


def _wait_reachable(address: str, within: float) -> bool:
    deadline = time.monotonic() + within
    while True:
        if reachable(address):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.5)


def lost_head_line(address: str, seconds: float) -> str:
    """The line a run stops with when the head stops answering."""
    return (f"lost the Ray cluster's head at {address}: no answer for {seconds:.0f} s (stopped, crashed "
            "or restarted); every shard and checkpoint written is whole: start the head again and run "
            "the same command to resume")


def watch_head(address: str, on_lost=None, lost_s: float = HEAD_LOST_S, poll_s: float = HEAD_POLL_S,
               stop: threading.Event | None = None) -> threading.Thread:
    """A daemon thread that looks at the head every ``poll_s`` seconds (monotonic clock) and,
    once it has not answered for ``lost_s``, calls ``on_lost(line)`` (default: the line on
    stderr and exit :data:`~training.faults.CLUSTER_LOST_EXIT`, before Ray ends the process
    with its own)."""
    stop = stop or threading.Event()

    def default(line: str) -> None:
        print(f"hive-train: {line}", file=sys.stderr, flush=True)
        sys.stdout.flush()
        os._exit(CLUSTER_LOST_EXIT)

    def run() -> None:
        since = None
        while not stop.wait(poll_s):
            if reachable(address):
                since = None
                continue
            since = time.monotonic() if since is None else since
            if time.monotonic() - since >= lost_s:
                (on_lost or default)(lost_head_line(address, time.monotonic() - since))
                return

    thread = threading.Thread(target=run, name="ray-head-watch", daemon=True)
    thread.start()
    return thread


def connect(rc: RayConfig, log=print) -> Any:
    """Ray, initialised in this process: a new local instance (``local``), the cluster this machine
    joined (``auto``), or the one at ``rc.address``. Returns the ``ray`` module.

    The process's SIGINT and SIGTERM handlers are put back after ``ray.init``: Ray's core worker
    installs its own failure handler for SIGTERM, which dumps a stack and aborts (a run stopped
    with SIGTERM then ended with SIGABRT instead of stopping cleanly)."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    import logging

    import ray

    if not ray.is_initialized():
        plain = rc.address not in ("local", "auto") and "://" not in rc.address  # host:port of a head
        if plain and not _wait_reachable(rc.address, REACH_S):
            raise ClusterError(f"cannot reach the Ray cluster's head at ray.address={rc.address} (nothing "
                               f"answers there within {REACH_S:.0f} s): start it (ray start --head) or set "
                               "ray.address, then run the same command")
        main = threading.current_thread() is threading.main_thread()  # only it may set handlers
        handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)} if main else {}
        if rc.address == "local":
            ray.init(address="local", num_cpus=rc.num_cpus, include_dashboard=False,
                     logging_level=logging.WARNING)
        else:
            ray.init(address=rc.address, logging_level=logging.WARNING)
        for signum, handler in handlers.items():
            if handler is not None:  # None: not installed from Python, nothing to put back
                signal.signal(signum, handler)
        watch_head(ray.get_runtime_context().gcs_address)
        resources = ray.cluster_resources()
        log(f"ray: connected to {rc.address} ({len(ray.nodes())} node(s), {resources.get('CPU', 0):g} CPUs, "
            f"{resources.get('GPU', 0):g} GPUs)")
    return ray
