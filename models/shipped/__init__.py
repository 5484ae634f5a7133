"""The networks shipped with the package, one per game type: the default ``alphazero`` player.

Each game type has a checkpoint (``base.pt``, ``base_mlp.pt``, ``base_m.pt``, ...:
:data:`NETWORKS`) and a model card (``card.json`` and ``MODEL_CARD.md`` for Base,
``<name>.card.json`` and ``MODEL_CARD_<name>.md`` for the others), both written by ``python -m
scripts.ship``. ``alphazero`` without ``ckpt=`` loads the one of the game's type; a game type
without one is refused in one line (:class:`NoShippedNetworkError`).

See docs/search.md (the shipped networks).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Network:
    """Where one shipped network and its card live."""

    game_type: str
    checkpoint: Path
    card: Path
    model_card: Path


GAME_TYPES = ("Base", "Base+M", "Base+L", "Base+P", "Base+ML", "Base+MP", "Base+LP", "Base+MLP")
"""Every game type, each with a place for its network: ``hive_env.pieces.GAME_TYPES``, copied
because models import no hive_env (tests/models/test_shipped_model.py holds the copy to it)."""


def _network(game_type: str) -> Network:
    """Where ``game_type``'s network lives: ``base_m.pt`` and its cards for ``Base+M`` (Base's
    cards keep the names they were first shipped under)."""
    if game_type == "Base":
        return Network("Base", HERE / "base.pt", HERE / "card.json", HERE / "MODEL_CARD.md")
    stem = game_type.lower().replace("+", "_")
    return Network(game_type, HERE / f"{stem}.pt", HERE / f"{stem}.card.json", HERE / f"MODEL_CARD_{stem}.md")


NETWORKS: dict[str, Network] = {t: _network(t) for t in GAME_TYPES}
"""Every network the package may ship, by game type (a file may be absent: not shipped yet)."""

CHECKPOINT = NETWORKS["Base"].checkpoint
CARD = NETWORKS["Base"].card
MODEL_CARD = NETWORKS["Base"].model_card


SHIPPED = "shipped"
"""The name of the shipped networks where a checkpoint path is expected (:func:`resolve`)."""


class NoShippedNetworkError(ValueError):
    """No network is shipped for a game type."""


def available() -> list[str]:
    """The game types with a shipped network."""
    return [t for t, n in NETWORKS.items() if n.checkpoint.is_file()]


def network(game_type: str = "Base") -> Network:
    """The network shipped for ``game_type``; raises :class:`NoShippedNetworkError` (one line) when
    there is none."""
    net = NETWORKS.get(game_type)
    if net is None or not net.checkpoint.is_file():
        shipped = ", ".join(available())
        raise NoShippedNetworkError(f"no network is shipped for {game_type} (shipped: {shipped}); "
                                    "train one with hive-train env.game_type=... or pass ckpt=PATH")
    return net


def resolve(name: str, game_type: str = "Base") -> Path | None:
    """The checkpoint of a shipped network named where a path is expected (``train.init_from``,
    ``search.evaluation.Network.load``): ``shipped`` (the one of ``game_type``) or
    ``shipped:GAME_TYPE``; None when ``name`` is no such name (a path). Raises
    :class:`NoShippedNetworkError` (one line) when that type has none."""
    if name != SHIPPED and not name.startswith(SHIPPED + ":"):
        return None
    return network(name.partition(":")[2] or game_type).checkpoint


def card(game_type: str = "Base") -> dict:
    """The card (``.json``) of the network shipped for ``game_type``."""
    return json.loads(network(game_type).card.read_text(encoding="utf-8"))


def game_type_of(path: str | Path) -> str | None:
    """The game type of a shipped checkpoint given by its path, else None (not a shipped file)."""
    resolved = Path(path).resolve()
    return next((t for t, net in NETWORKS.items() if net.checkpoint == resolved), None)


def card_of(path: str | Path) -> dict | None:
    """The card of a shipped checkpoint given by its path, else None (not a shipped file)."""
    resolved = Path(path).resolve()
    for net in NETWORKS.values():
        if net.checkpoint == resolved and net.card.is_file():
            return json.loads(net.card.read_text(encoding="utf-8"))
    return None
