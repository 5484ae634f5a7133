"""Ray, connected once per process: the one place that starts or joins a cluster (``ray.address``).

Ray is imported only by the ``training.ray_*`` modules, and those only under ``backend=ray``.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .config import RayConfig


def connect(rc: RayConfig, log=print) -> Any:
    """Ray, initialised in this process: a new local instance (``local``), the cluster this machine
    joined (``auto``), or the one at ``rc.address``. Returns the ``ray`` module."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    import logging

    import ray

    if not ray.is_initialized():
        if rc.address == "local":
            ray.init(address="local", num_cpus=rc.num_cpus, include_dashboard=False,
                     logging_level=logging.WARNING)
        else:
            ray.init(address=rc.address, logging_level=logging.WARNING)
        resources = ray.cluster_resources()
        log(f"ray: connected to {rc.address} ({len(ray.nodes())} node(s), {resources.get('CPU', 0):g} CPUs, "
            f"{resources.get('GPU', 0):g} GPUs)")
    return ray
