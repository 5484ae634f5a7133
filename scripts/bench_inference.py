"""Inference benchmark: positions per second of the network's forward pass alone, per backend.

The benchmark lives in ``search.bench_inference`` (also ``python -m search.bench_inference``);
this file only runs it.

See docs/search.md (inference at CPU speed; benchmarks).
"""

from __future__ import annotations

import sys

from search.bench_inference import main

if __name__ == "__main__":
    sys.exit(main())
