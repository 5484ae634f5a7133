"""Ray, connected once per process: the one place that starts or joins a cluster (``ray.address``).

Ray is imported only by the ``training.ray_*`` modules, and those only under ``backend=ray``.
"""

from __future__ import annotations

import os
import signal
import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .config import RayConfig


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
        resources = ray.cluster_resources()
        log(f"ray: connected to {rc.address} ({len(ray.nodes())} node(s), {resources.get('CPU', 0):g} CPUs, "
            f"{resources.get('GPU', 0):g} GPUs)")
    return ray
