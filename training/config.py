"""From the Hydra config to typed settings, with start-up checks that name the bad setting."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from hive_env.pieces import parse_game_type

from .loop import RunConfig
from .mcts import SearchConfig
from .selfplay import SelfPlayConfig
from .trainer import TrainConfig


class ConfigError(ValueError):
    """A setting that cannot work; the message names it."""


def _fields(section: Any, cls: type, name: str, drop: tuple[str, ...] = ()) -> Any:
    values = {k: v for k, v in dict(section).items() if k not in drop}
    known = set(cls.__dataclass_fields__)
    unknown = sorted(set(values) - known)
    if unknown:
        raise ConfigError(f"unknown setting {name}.{unknown[0]} (known: {', '.join(sorted(known))})")
    try:
        return cls(**values)
    except (TypeError, ValueError) as e:
        raise ConfigError(str(e)) from None


def run_config(cfg: DictConfig) -> RunConfig:
    """Typed settings of a run; raises :class:`ConfigError` naming the first bad setting."""
    c = OmegaConf.to_container(cfg, resolve=True)
    try:
        parse_game_type(str(c["env"]["game_type"]))
    except ValueError as e:
        raise ConfigError(f"env.game_type: {e}") from None
    ply_cap = c["env"].get("ply_cap", 0)
    if not isinstance(ply_cap, int) or not 0 <= ply_cap < 32768:
        raise ConfigError(f"env.ply_cap must be a whole number in 0..32767, got {ply_cap!r}")
    model = dict(c["model"])
    for key in ("width", "layers"):
        if not isinstance(model.get(key), int) or model[key] < 1:
            raise ConfigError(f"model.{key} must be a whole number >= 1, got {model.get(key)!r}")
    sp = dict(c["selfplay"])
    workers = sp.pop("workers", 1)
    shard_games = sp.pop("shard_games", 16)
    if not isinstance(workers, int) or workers < 0:
        raise ConfigError(f"selfplay.workers must be a whole number >= 0, got {workers!r}")
    if not isinstance(shard_games, int) or shard_games < 1:
        raise ConfigError(f"selfplay.shard_games must be a whole number >= 1, got {shard_games!r}")
    search = _fields(c["search"], SearchConfig, "search")
    selfplay = _fields(sp, SelfPlayConfig, "selfplay")
    train = _fields(c["train"], TrainConfig, "train", drop=("keep_checkpoints",))
    ev = dict(c.get("eval") or {})
    if ev.get("games", 0) % 2 or ev.get("final_games", 0) % 2:
        raise ConfigError("eval.games and eval.final_games must be even (colours alternate in pairs)")
    if ev.get("gating", "none") not in ("none", "score", "sprt"):
        raise ConfigError(f"eval.gating must be none, score or sprt, got {ev.get('gating')!r}")
    compile_ = c.get("compile", False)
    if not isinstance(compile_, bool):
        raise ConfigError(f"compile must be true or false, got {compile_!r}")
    device = str(c.get("device", "auto"))
    if device not in ("auto", "cpu") and not device.startswith("cuda"):
        raise ConfigError(f"device must be auto, cpu or cuda[:N], got {device!r}")
    if device.startswith("cuda"):
        import torch

        if not torch.cuda.is_available():
            raise ConfigError(f"device={device} but no CUDA device is available (use device=cpu or auto)")
    return RunConfig(
        run_dir=Path(c["run_dir"]), game_type=str(c["env"]["game_type"]), ply_cap=ply_cap,
        model={"width": model["width"], "layers": model["layers"]}, search=search, selfplay=selfplay,
        workers=workers, shard_games=shard_games, train=train, eval=ev, seed=int(c.get("seed", 0)),
        device=device, compile=compile_,
    )
