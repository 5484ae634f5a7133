"""Search benchmark: simulations per second of the whole batched search loop, network included.

``python -m scripts.bench_search [--sizes tiny default] [--batches 1 16 64 256] [--device cpu] [--compile]
[--backend auto]``: the search's sims/s and its shares of time; ``--player``: the ``alphazero``
player's sims/s at a time a move. The benchmark lives in ``search.bench_search`` (also
``python -m search.bench_search``); this file only runs it.

See docs/search.md (benchmarks).
"""

from __future__ import annotations

import sys

from search.bench_search import main

if __name__ == "__main__":
    sys.exit(main())
