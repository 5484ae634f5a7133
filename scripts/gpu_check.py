"""The steps of ``scripts/gpu_check.sh`` (run that script, which sets up the venv first): timed
checks on one CUDA machine and one JSON report.

Steps (:data:`PLANS`), each a subprocess with its own timeout: one that fails or times out is
recorded with its log's tail, and the next one runs. Standard library only (the report is written
even without the venv); ``GPU_CHECK_DEVICE=cpu`` runs the steps on the CPU, tiny, to check the plumbing.
The steps live in ``training.gpu_check``; this file is their command line.

See docs/search.md (benchmarks) and docs/scaling.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from training.gpu_check import PLANS, check


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="the JSON report")
    parser.add_argument("--work", type=Path, required=True, help="logs and the run dir")
    parser.add_argument("--device", choices=list(PLANS), default="cuda")
    parser.add_argument("--started", type=float, default=time.time(), help="epoch seconds the check began")
    parser.add_argument("--budget", type=float, default=470.0, help="seconds for the whole check")
    parser.add_argument("--setup-rc", type=int, default=0)
    parser.add_argument("--setup-seconds", type=float, default=0.0)
    return check(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
