"""``hive-train``: AlphaZero-style self-play training (Hydra config in configs/).

``hive-train experiment=cpu`` trains one run into ``runs/<name>``, and rerunning the same command
resumes it; ``hive-train -m ...`` is a sweep, one job a core (training.sweep). Every start-up
error is one line with exit 2, a full disk one line with exit 74. The job itself is
:func:`training.loop.train`; its command line and its words are ``training.cli``, which this file
runs.

See docs/training.md and docs/reliability.md (exit statuses).
"""

from __future__ import annotations

import signal
import sys

# Until main() takes over, a signal ends the start-up quietly (nothing is written yet).
for _s in (signal.SIGINT, signal.SIGTERM):
    signal.signal(_s, lambda n, f: sys.exit(128 + n))

from training.cli import main  # noqa: E402

if __name__ == "__main__":
    main()
