"""``python -m scripts.arena``: the ``hive-arena`` command (``arena.cli``) from a checkout.

    python -m scripts.arena gauntlet PLAYER OPPONENT...
    python -m scripts.arena ladder PLAYER

The command line, its parsing and its output live in ``arena.cli``, where tests drive it; this
file only runs it.
"""

from __future__ import annotations

import sys

from arena.cli import main

if __name__ == "__main__":
    sys.exit(main())
