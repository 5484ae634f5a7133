"""A run that starts from another network (``train.init_from``) and the lineage it carries on.

``train.init_from`` names the parent: a checkpoint path, ``shipped`` or ``shipped:GAME_TYPE``.
The run takes the parent's size where the command line does not set it (:func:`adopt_parent_size`)
and its weights, with a new step counter, a fresh replay store and a learning-rate warm restart.
Every checkpoint carries ``lineage``: its game type and ply cap, the parent, and the totals over
the whole line of networks (steps, self-play positions, training and evaluation minutes).

See docs/training.md (carrying on from a released network).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf, open_dict

import hive_zero
from hive_env.files import sha256_file
from models import shipped
from models.gnn import SIZES
from search.checkpoint import CheckpointError, read_checkpoint

from .config import ConfigError


@dataclass(frozen=True)
class Totals:
    """Work over a line of networks: training steps, self-play positions (None: some network
    of the line did not record them), minutes of training and of evaluation."""

    steps: int = 0
    positions: int | None = 0
    train_minutes: float = 0.0
    eval_minutes: float = 0.0

    def plus(self, steps: int, positions: int, train_minutes: float, eval_minutes: float) -> Totals:
        known = None if self.positions is None else self.positions + positions
        return Totals(self.steps + steps, known, round(self.train_minutes + train_minutes, 2),
                      round(self.eval_minutes + eval_minutes, 2))


@dataclass(frozen=True)
class Parent:
    """The network a run started from: where, its hash, its step, and the totals up to it."""

    path: str
    sha256: str
    step: int
    game_type: str | None
    totals: Totals
    generations: int = 1  # networks in the line up to and including this one
    ancestors: tuple[dict[str, Any], ...] = field(default_factory=tuple)  # the parent's own parents


def resolve(spec: str, game_type: str) -> Path:
    """The checkpoint ``train.init_from`` names: ``shipped`` (the network shipped for
    ``game_type``), ``shipped:GAME_TYPE``, or a path. Raises :class:`ConfigError`."""
    try:
        found = shipped.resolve(spec, game_type)
    except shipped.NoShippedNetworkError as e:
        raise ConfigError(f"train.init_from={spec}: {e}") from None
    if found is not None:
        return found
    path = Path(spec).expanduser()
    if not path.is_file():
        raise ConfigError(f"train.init_from: no checkpoint at {path}")
    return path


def load_parent(spec: str, game_type: str, model_config: dict[str, Any],
                optimizer: bool) -> tuple[Parent, dict[str, Any]]:
    """The parent named by ``spec`` and its checkpoint, checked against the run's network
    (``model_config``: ``vars`` of the run's ``ModelConfig``). Raises :class:`ConfigError` in one
    line: no such network, unreadable, another encoding, another shape, or no optimiser state
    when ``optimizer`` asks for it."""
    path = resolve(spec, game_type)
    try:
        state = read_checkpoint(path)
    except CheckpointError as e:
        raise ConfigError(f"train.init_from: {e}") from None
    theirs = state["model_config"]
    if theirs != model_config:
        keys = [k for k in sorted(set(theirs) | set(model_config)) if theirs.get(k) != model_config.get(k)]
        diff = ", ".join(f"{k} {theirs.get(k)!r} (this run: {model_config.get(k)!r})" for k in keys)
        raise ConfigError(f"train.init_from: {path} is another network: {diff}; set model.* to match it")
    if optimizer and "trainer" not in state:
        raise ConfigError(f"train.init_from: {path} holds no optimiser state (final.pt and shipped networks "
                          "keep only weights; a run's ckpt_<step>.pt has it): set train.init_optimizer=false")
    return parent_of(path, state), state


def parent_of(path: Path, state: dict[str, Any]) -> Parent:
    """``path`` as a parent: its lineage's totals if it has one, else a root's (its step, and the
    minutes its model card gives when it is a shipped network)."""
    lineage = state.get("lineage")
    game_type = (state.get("config") or {}).get("env", {}).get("game_type")
    if lineage:
        totals = Totals(**lineage["totals"])
        return Parent(str(path), sha256_file(path), int(state.get("step", 0)),
                      lineage.get("game_type", game_type), totals, int(lineage.get("generations", 1)),
                      tuple(_ancestors(lineage)))
    step = int(state.get("step", 0))
    minutes = 0.0
    card = shipped.card_of(path)
    if card is not None:
        minutes = float(card.get("run", {}).get("wall_minutes") or 0.0)
        game_type = card.get("game_type", "Base")
    return Parent(str(path), sha256_file(path), step, game_type, Totals(step, None, minutes, 0.0))


def _ancestors(lineage: dict[str, Any]) -> list[dict[str, Any]]:
    """The parents above a checkpoint's own, nearest first (each without its ancestors)."""
    parent = lineage.get("parent")
    if parent is None:
        return []
    return [{k: v for k, v in parent.items() if k != "ancestors"}, *parent.get("ancestors", [])]


def lineage(parent: Parent | None, game_type: str, steps: int, positions: int, train_minutes: float,
            eval_minutes: float, ply_cap: int = 0, game_types: tuple[str, ...] = (),
            device: str | None = None, cpus: int | None = None) -> dict[str, Any]:
    """The ``lineage`` entry of a checkpoint at ``steps`` of this run (plain data); ``ply_cap``:
    the cap its self-play games were played to (the player warns past it); ``game_types``: the
    types its self-play played (``selfplay.game_types``; empty: ``game_type`` alone); ``device``:
    what trained it (:func:`device_name`: ``cpu``, ``cuda (NVIDIA H100 80GB HBM3)``); ``cpus``: the
    cores the run had (its curve's core-minutes, training.curve). ``version``
    is the hive-zero that trained it (``hive_zero.__version__``): the model card says both."""
    base = parent.totals if parent is not None else Totals()
    totals = base.plus(steps, positions, train_minutes, eval_minutes)
    out: dict[str, Any] = {"game_type": game_type, "game_types": list(game_types or (game_type,)),
                           "generations": 1 + (parent.generations if parent else 0),
                           "ply_cap": ply_cap, "totals": asdict(totals), "parent": None,
                           "version": hive_zero.__version__, "device": device, "cpus": cpus}
    if parent is not None:
        out["parent"] = {"file": Path(parent.path).name, "sha256": parent.sha256, "step": parent.step,
                         "game_type": parent.game_type, "generations": parent.generations,
                         "totals": asdict(parent.totals), "ancestors": list(parent.ancestors)}
    return out


def device_name(device: Any) -> str:
    """A torch device as a lineage records it: ``cpu``, or the accelerator's kind and model
    (``cuda (NVIDIA H100 80GB HBM3)``)."""
    kind = getattr(device, "type", str(device))
    if kind == "cuda":
        import torch

        try:
            return f"cuda ({torch.cuda.get_device_name(device)})"
        except Exception:  # no driver to ask: the kind alone
            return "cuda"
    return kind


def parent_from_lineage(entry: dict[str, Any] | None) -> Parent | None:
    """The parent named by a checkpoint's ``lineage`` (how a resumed run knows its own)."""
    if not entry or not entry.get("parent"):
        return None
    p = entry["parent"]
    return Parent(p["file"], p["sha256"], int(p["step"]), p.get("game_type"), Totals(**p["totals"]),
                  int(p["generations"]), tuple(p.get("ancestors", [])))


SIZE_KEYS = ("width", "layers", "aux_head")
"""The network settings a run adopts from its parent when the command line leaves them unset."""


def set_on_command_line(overrides: Sequence[str]) -> set[str]:
    """The keys of :data:`SIZE_KEYS` that ``overrides`` (command-line ``KEY=VALUE``) set: a
    ``model.<key>`` override sets that key, ``model=<size>`` and ``model.size=<size>`` set
    ``width`` and ``layers`` (a named size is a width and a depth)."""
    keys: set[str] = set()
    for override in overrides:
        key = override.split("=", 1)[0].lstrip("+~")
        if key in ("model", "model.size"):
            keys |= {"width", "layers"}
        elif key.startswith("model.") and key[6:] in SIZE_KEYS:
            keys.add(key[6:])
    return keys


def adopt_parent_size(cfg: DictConfig, overrides: Sequence[str]) -> str | None:
    """Give ``cfg``'s network the size of the network it starts from (``train.init_from``) wherever
    the command line (``overrides``) leaves it unset, so that a fine-tune needs no ``model.*``: a
    new run adopts the parent's, a resumed run (``config.yaml`` in its run directory) what it
    was started with. A size the command sets stays, and a parent that does not match it is
    refused later (:func:`load_parent`). Returns a line saying what was adopted, or None.

    Raises:
        ConfigError: the parent cannot be found or read (one line).
    """
    spec = OmegaConf.select(cfg, "train.init_from")
    free = [k for k in SIZE_KEYS if k not in set_on_command_line(overrides)]
    if not spec or not free:
        return None
    from .resume import saved_settings

    run_dir = OmegaConf.select(cfg, "run_dir")
    saved = saved_settings(Path(run_dir)) if run_dir else None
    if saved is not None and isinstance(saved.get("model"), dict):
        source, theirs = "the run's first start", saved["model"]
        if theirs.get("width") is None or theirs.get("layers") is None:  # saved by size name
            given = {k: v for k, v in theirs.items() if v is not None}
            theirs = {**SIZES[theirs.get("size", "small")], **given}
    else:
        path = resolve(spec, OmegaConf.select(cfg, "env.game_type") or "Base")
        try:
            theirs = read_checkpoint(path)["model_config"]
        except (CheckpointError, KeyError) as e:
            raise ConfigError(f"train.init_from: {path}: {e}") from None
        source = f"{path}"
    adopted = {k: theirs[k] for k in free if k in theirs}
    with open_dict(cfg):
        for key, value in adopted.items():
            cfg.model[key] = value
    return "network size from " + source + ": " + ", ".join(f"model.{k}={v}" for k, v in adopted.items())
