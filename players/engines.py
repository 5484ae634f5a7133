"""Where a built nokamute (the strong Rust alpha-beta UHP engine the project measures against) is.

One home for the lookup: the ``NOKAMUTE`` environment variable, else ``../shared/tools/nokamute``
beside a checkout of this project. Tools that use it as an anchor (the training curve, the
levels' calibration) skip it with one line where neither exists.
"""

from __future__ import annotations

import os
from pathlib import Path

ENV_VAR = "NOKAMUTE"
"""The environment variable naming a nokamute executable."""
CHECKOUT_PATH = Path(__file__).resolve().parents[2] / "shared" / "tools" / "nokamute"
"""Where the project keeps a built nokamute beside a checkout (``../shared/tools/nokamute``)."""


def nokamute_path() -> Path | None:
    """The nokamute executable: ``$NOKAMUTE`` when set (even if missing: the caller says so),
    else :data:`CHECKOUT_PATH` when it exists; None when neither names one."""
    given = os.environ.get(ENV_VAR)
    if given:
        return Path(given)
    return CHECKOUT_PATH if CHECKOUT_PATH.is_file() else None


def nokamute_spec(seconds: float, path: Path | None = None) -> str | None:
    """The player spec of nokamute at ``seconds`` a move, named ``nokamute``, or None where no
    executable is found (:func:`nokamute_path`). The arena asks it for one thread (a spec with
    its own time is a timed side: ``arena.config.ArenaConfig.thread_limit``)."""
    path = path or nokamute_path()
    if path is None or not path.is_file() or not os.access(path, os.X_OK):
        return None
    return f"uhp:cmd={path},time={seconds:g},name=nokamute"


def missing_line() -> str:
    """The one line a tool prints when it leaves nokamute out."""
    given = os.environ.get(ENV_VAR)
    where = f"${ENV_VAR}={given} is not an executable" if given else \
        f"no ${ENV_VAR} and no {CHECKOUT_PATH}"
    return f"nokamute left out ({where})"
