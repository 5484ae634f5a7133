"""The network shipped with the package: the default ``alphazero`` player.

``base.pt`` is a checkpoint (weights, model config, encoding version and training step only)
written by ``python -m scripts.ship``, which also writes its model card: ``card.json`` (the
facts: command, commit, seed, steps, wall time, machine, ladder) and ``MODEL_CARD.md`` (the
same for people). ``alphazero`` without ``ckpt=`` loads it (``search.alphazero_player``).
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
CHECKPOINT = HERE / "base.pt"
CARD = HERE / "card.json"
MODEL_CARD = HERE / "MODEL_CARD.md"


def card() -> dict:
    """The shipped model's card (``card.json``)."""
    return json.loads(CARD.read_text(encoding="utf-8"))
