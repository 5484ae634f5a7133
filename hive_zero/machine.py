"""This machine in words: its cores and CPU model, for benchmark lines and model cards.

Standard library only (``hive_zero`` imports nothing else), so every package may use it.
"""

from __future__ import annotations

import os
import platform
from pathlib import Path


def cpu_line() -> str:
    """``"2 cores, Intel(R) Xeon(R) Processor"``: the cores Python sees and the CPU's model name."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} cores, {cpu}"


def machine(device: str | None = "cpu") -> str:
    """:func:`cpu_line` and the device that trained a network (its lineage's ``device``: ``cpu``
    is "no GPU used"; None, a network from before lineages recorded it: "device not recorded")."""
    if device is None:
        used = "device not recorded"
    elif device == "cpu":
        used = "no GPU used"
    else:
        used = f"trained on {device}"
    return f"{cpu_line()}, {used}"
