"""From the Hydra config to typed settings, with start-up checks that name the bad setting.

Each config group (``env``, ``model``, ``search``, ``selfplay``, ``train``, ``eval``, ``ray``) has
a dataclass, and its defaults live there and nowhere else; :class:`RunConfig` holds them all with
the top-level settings. :func:`register_configs` puts the defaults into Hydra's ConfigStore, so
the yaml files hold only deltas, and :func:`run_config` checks the composed config, naming any
unknown key or bad value in one line.

See docs/training.md (settings and start-up errors).
"""

from __future__ import annotations

import difflib
import types
from collections.abc import Sequence
from dataclasses import MISSING, asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Union, get_args, get_origin, get_type_hints

from omegaconf import DictConfig, OmegaConf

from hive_env.encode import MAX_LEGAL
from hive_env.outcome import DEFAULT_PLY_CAP
from hive_env.pieces import parse_game_type
from hive_zero.checks import RangeError, bounded, check_ranges
from models.gnn import SIZES, ModelConfig, model_config
from players.base import PlayerSpecError
from players.registry import check_spec
from search.mcts import SearchConfig
from search.network import BACKENDS as INFERENCE_BACKENDS

from .selfplay import SelfPlayConfig
from .trainer import TrainConfig


class ConfigError(ValueError):
    """A setting that cannot work; the one-line message names it by its full key."""


# ----- the groups ------------------------------------------------------------------------------
@dataclass(frozen=True)
class EnvConfig:
    """The game.

    Args:
        game_type: ``Base`` or Base plus expansions, e.g. ``Base+MLP`` (tournament play).
        ply_cap: a game reaching this ply is a draw (training only; UHP play has no cap);
            0 = no cap. Reference: hive_env.outcome.DEFAULT_PLY_CAP.
    """

    game_type: str = "Base"
    ply_cap: int = bounded(DEFAULT_PLY_CAP, ge=0, le=32767)

    def __post_init__(self):
        try:
            parse_game_type(self.game_type)
        except ValueError as e:
            raise ValueError(f"env.game_type: {e}") from None
        check_ranges(self)


@dataclass(frozen=True)
class ModelSettings:
    """The network: a named size of ``models.gnn.SIZES`` (tiny for CPUs, default and large
    for GPUs), optionally with its width or depth changed.

    Args:
        size: a key of ``models.gnn.SIZES``.
        width: channels per node instead of the size's (None = the size's).
        layers: residual blocks instead of the size's (None = the size's).
        aux_head: the auxiliary head (plies left, final queen pressure; models.gnn), trained
            with ``train.moves_left_weight`` and ``train.pressure_weight``.
    """

    size: str = "small"
    width: int | None = bounded(None, ge=1)
    layers: int | None = bounded(None, ge=1)
    aux_head: bool = False

    def __post_init__(self):
        if self.size not in SIZES:
            raise ValueError(f"model.size must be one of {', '.join(SIZES)} (models.gnn.SIZES), "
                             f"got {self.size!r}")
        check_ranges(self)

    def model_config(self) -> ModelConfig:
        overrides = {k: v for k, v in (("width", self.width), ("layers", self.layers)) if v is not None}
        return model_config(self.size, aux_head=self.aux_head, **overrides)


@dataclass(frozen=True)
class SelfPlaySettings(SelfPlayConfig):
    """Self-play: :class:`training.selfplay.SelfPlayConfig` plus its processes.

    Args:
        workers: self-play processes (0 = inside the trainer process, for tiny runs).
        shard_games: finished games per replay shard.
        game_types: the game types self-play plays (empty: the run's ``env.game_type``): one
            network learns several types (the encoding has every expansion piece; the trainer
            encodes each position as its own type). Worker ``w`` of ``W`` plays the ``w mod
            n``-th type where ``n <= W``, else types ``w, w + W, ...`` in turn, a batch of
            games each (``training.worker.worker_game_types``): every type is played. Evaluation
            plays ``env.game_type``.
    """

    workers: int = bounded(1, ge=0)
    shard_games: int = bounded(16, ge=1)
    game_types: tuple[str, ...] = ()

    def __post_init__(self):
        super().__post_init__()  # the ranges of every field, these too
        for game_type in self.game_types:
            try:
                parse_game_type(game_type)
            except ValueError as e:
                raise ValueError(f"selfplay.game_types: {e}") from None


@dataclass(frozen=True)
class TrainSettings(TrainConfig):
    """Training: :class:`training.trainer.TrainConfig` plus checkpoint housekeeping.

    Args:
        keep_checkpoints: step checkpoints kept on disk (best.pt and final.pt always are).
        init_from: the network a new run starts from (training.lineage): a checkpoint path,
            ``shipped`` (the network shipped for ``env.game_type``) or ``shipped:GAME_TYPE``;
            empty = a new network. Its weights, a new step counter, a fresh replay store and a
            learning-rate warm restart; it must have the run's model shape and encoding.
        init_optimizer: also take the parent's optimiser state (a run's checkpoint has it, a
            shipped network does not).
    """

    keep_checkpoints: int = bounded(20, ge=1)
    init_from: str = ""
    init_optimizer: bool = False

    def __post_init__(self):
        super().__post_init__()  # the ranges of every field, these too
        if self.init_optimizer and not self.init_from:
            raise ValueError("train.init_optimizer needs train.init_from (the network whose optimiser "
                             "state to take)")


GATING = ("none", "score", "sprt")
PAIRS = "colours alternate in pairs"
"""Why a count of games is even: each opening is played once with each colour."""


@dataclass(frozen=True)
class EvalConfig:
    """Evaluation of checkpoints during training and of the final network (training.gating).

    Args:
        every: evaluate every N-th published checkpoint (0 = never during training).
        games: games per opponent (even: colours alternate in pairs).
        sims: search simulations of the evaluated network.
        opponents: player specs (players.registry) of the baselines.
        gating: how best.pt is chosen: ``none`` (the newest evaluated checkpoint),
            ``score`` (scoring >= ``gate_score`` against the previous best) or ``sprt``.
        gate_score: the score needed with ``gating: score`` (AlphaGo Zero: 0.55).
        sprt_max_games: the most games of a ``gating: sprt`` test (even).
        sprt_elo0, sprt_elo1: the hypotheses of a ``gating: sprt`` test (``arena.sprt``): H0,
            the checkpoint is ``sprt_elo0`` Elo stronger than best.pt (0: no better), against
            H1, it is ``sprt_elo1`` stronger; promoted when H1 is accepted. ``sprt_elo1`` must
            exceed ``sprt_elo0``.
        final_games: games of the final network against each final opponent (even).
        final_opponents: player specs of the final match.
        final_sims: simulations of the final network (None = ``sims``).
        openings_plies: random opening plies per game pair (the arena's ``random:N``).
        workers: arena processes.
        ladder: each evaluation also plays the ladder's opponents (``arena.ladder``: random,
            greedy, alphabeta at each of ``ladder_depths``) and logs the checkpoint's Elo
            relative to alphabeta:depth=2 (random when 2 is not a ladder depth) as
            ``eval/ladder_elo`` with ``_lo``/``_hi``; ``games`` games per opponent.
        ladder_depths: the alphabeta depths of the ladder during training (the standalone
            ladder, ``hive-arena ladder``, plays 1-4; 4 is slow for every evaluation).
        final_ladder: games per rung of the ladder the final network plays after the final
            match (0 = none): ``arena.ladder``'s rungs (random, greedy, alphabeta at each of
            ``final_ladder_depths``), its seed and openings, at ``final_sims``; the result in
            ``<run_dir>/ladder/ladder.json`` (what ``hive-arena compare`` reads of a sweep's
            runs) and ``final/ladder_elo`` in TensorBoard. Even.
        final_ladder_depths: the alphabeta depths of the final ladder.
        nokamute_time: with seconds a move > 0, nokamute (``players.engines``: ``$NOKAMUTE`` or
            ``../shared/tools/nokamute``, one thread) at that time joins the baselines of every
            evaluation during training (``eval/score_vs_nokamute``; with ``ladder``, a rung of
            its own); where no nokamute is found, the run says so in one line and goes without.
    """

    every: int = bounded(1, ge=0)
    games: int = bounded(20, ge=2, even=True, note=PAIRS)
    sims: int = bounded(32, ge=1)
    opponents: tuple[str, ...] = ("random", "greedy")
    gating: str = "none"
    gate_score: float = 0.55
    sprt_max_games: int = bounded(200, ge=2, even=True, note=PAIRS)
    sprt_elo0: float = 0.0
    sprt_elo1: float = 20.0
    final_games: int = bounded(20, ge=2, even=True, note=PAIRS)
    final_opponents: tuple[str, ...] = ("random",)
    final_sims: int | None = bounded(None, ge=1, note="or null = eval.sims")
    openings_plies: int = bounded(2, ge=0)
    workers: int = bounded(1, ge=1)
    ladder: bool = False
    ladder_depths: tuple[int, ...] = (1, 2, 3)
    final_ladder: int = bounded(0, ge=0, even=True, note=f"{PAIRS}; 0 = none")
    final_ladder_depths: tuple[int, ...] = (1, 2, 3, 4)
    nokamute_time: float = bounded(0.0, ge=0.0)

    def __post_init__(self):
        check_ranges(self)
        if self.gating not in GATING:
            raise ValueError(f"eval.gating must be one of {', '.join(GATING)}, got {self.gating!r}")
        if not self.sprt_elo1 > self.sprt_elo0:
            raise ValueError(f"eval.sprt_elo1 must be greater than eval.sprt_elo0 ({self.sprt_elo0:g}), "
                             f"got {self.sprt_elo1:g}")
        for key in ("opponents", "final_opponents"):
            specs = getattr(self, key)
            if not specs:
                raise ValueError(f"eval.{key} must name at least one player")
            for i, spec in enumerate(specs):
                try:
                    check_spec(spec)
                except PlayerSpecError as e:
                    raise ValueError(f"eval.{key}[{i}]: {e}") from None
                if spec in specs[:i]:
                    raise ValueError(f"eval.{key}[{i}]: {spec!r} is listed twice")
        for key in ("ladder_depths", "final_ladder_depths"):
            depths = getattr(self, key)
            if not depths or min(depths) < 1 or len(set(depths)) != len(depths):
                raise ValueError(f"eval.{key} must be distinct depths >= 1, got {list(depths)}")


@dataclass(frozen=True)
class RayConfig:
    """Self-play on a Ray cluster (``backend=ray``, training.ray_selfplay): ``selfplay.workers``
    actors placed by resources, evaluation games as Ray tasks; the trainer stays in the driver.

    Args:
        address: ``local`` starts Ray in this process, ``auto`` joins the cluster this machine
            belongs to (``ray start``), anything else is a cluster address (``host:port``).
        num_cpus: CPUs a ``local`` Ray may use (None = all of the machine's).
        worker_cpus: CPUs each self-play actor reserves (fractions allowed).
        worker_gpus: GPUs each self-play actor reserves (fractions share one GPU; 0 = CPU).
        worker_resources: custom resources each actor needs, e.g. ``{selfplay_node: 1}`` to put
            the actors on nodes started with ``--resources='{"selfplay_node": 4}'``.
        max_restarts: times Ray restarts a dead actor (-1 = always); the games it was playing
            are lost, its delivered shards are kept.
        eval_cpus: CPUs each evaluation game (a Ray task) reserves. 0 (default): none, so the
            games always find a place even when the actors hold every CPU (they then share
            CPUs with them); 1 with ``eval_resources`` for nodes kept for evaluation.
        eval_resources: custom resources each evaluation game needs (like ``worker_resources``).
    """

    address: str = "local"
    num_cpus: int | None = bounded(None, ge=1, note="or null = all")
    worker_cpus: float = bounded(1.0, ge=0.0)
    worker_gpus: float = bounded(0.0, ge=0.0)
    worker_resources: dict[str, float] = bounded(default_factory=dict, gt=0.0, each=True)
    max_restarts: int = bounded(3, ge=-1, note="-1 = always")
    eval_cpus: float = bounded(0.0, ge=0.0)
    eval_resources: dict[str, float] = bounded(default_factory=dict, gt=0.0, each=True)

    def __post_init__(self):
        if not self.address:
            raise ValueError("ray.address must be local, auto or host:port, got ''")
        check_ranges(self)


@dataclass(frozen=True)
class Stage:
    """From network step ``at_step`` on, self-play and training use these settings in place of
    the run's (None: as before). Stages go by the step of the network, which every worker knows
    from the checkpoint it loads, so the schedule needs no clock and resumes with the run.

    Args:
        at_step: the first network step of the stage (each stage's after the one before).
        sims: self-play's ``search.sims``.
        ply_cap: self-play's ``env.ply_cap`` (the evaluations keep the run's).
        window: the trainer's ``train.window``.
    """

    at_step: int = bounded(1, ge=1)
    sims: int | None = bounded(None, ge=1, note="or null = as before")
    ply_cap: int | None = bounded(None, ge=0, le=32767, note="or null = as before")
    window: int | None = bounded(None, ge=1, note="or null = as before")

    def __post_init__(self):
        check_ranges(self)


STAGE_SETTINGS = {"sims": ("search", "sims"), "ply_cap": ("env", "ply_cap"), "window": ("train", "window")}
"""Each :class:`Stage` field -> the (group, setting) of :class:`RunConfig` it replaces."""

BACKENDS = ("local", "ray")
"""Where self-play runs: processes on this machine, or actors on a Ray cluster."""

GROUPS: dict[str, type] = {"env": EnvConfig, "model": ModelSettings, "search": SearchConfig,
                           "selfplay": SelfPlaySettings, "train": TrainSettings, "eval": EvalConfig,
                           "ray": RayConfig}
"""Config group -> its dataclass."""

TOP_LEVEL = ("seed", "device", "compile", "backend", "inference", "name", "run_dir", "stages")
"""Settings outside the groups (fields of :class:`RunConfig`)."""


# ----- the run -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class RunConfig:
    """Everything a run needs, built from the Hydra config by :func:`run_config`.

    Words: a ``*Config`` holds one component's settings (``SelfPlayConfig``, ``TrainConfig``,
    ``search.mcts.SearchConfig``, ``models.gnn.ModelConfig``); a ``*Settings`` is a hive-train
    config group that extends one with what only a run needs (``SelfPlaySettings`` adds worker
    processes, ``TrainSettings`` kept checkpoints, ``ModelSettings`` picks a named size that
    resolves to a ``ModelConfig``). "Evaluate" is the network's call (``search.network``);
    judging checkpoints in the arena is gating.

    Args:
        run_dir: the run's directory (rerunning the same command resumes it).
        env, search, selfplay, train, eval: the groups (:func:`register_configs`).
        model: the network's settings, resolved from the ``model`` group.
        name: the run's name (``run_dir`` defaults to ``runs/<name>``).
        seed: seeds self-play, sampling and initialisation.
        device: ``auto`` (CUDA when present, else CPU), ``cpu``, ``cuda`` or ``cuda:N``.
        compile: torch.compile the network in self-play and training (pays off on GPUs).
        backend: ``local`` (self-play processes on this machine) or ``ray`` (actors on a Ray
            cluster, configured by ``ray``; training.ray_selfplay).
        inference: the self-play network's inference backend (``search.network.BACKENDS``;
            ``auto``: numba on a CPU, with ``compile`` the compiled model for batches of 8 or
            more of networks wider than ``small``;
            ``torch`` forces the torch model). Workers load new weights into it in place.
        ray: the Ray cluster of ``backend: ray``.
        stages: the run's schedule, a list of ``{at_step, sims, ply_cap, window}`` in order of
            ``at_step`` (:class:`Stage`): from each network step on, self-play and training use
            that stage's settings (:meth:`staged`), e.g. ``[{at_step: 20000, sims: 64}]``.
        max_legal: legal-move slots M of the observations (hive_env.encode; not a setting).
    """

    run_dir: Path
    env: EnvConfig = field(default_factory=EnvConfig)
    model: ModelConfig = field(default_factory=lambda: ModelSettings().model_config())
    search: SearchConfig = field(default_factory=SearchConfig)
    selfplay: SelfPlaySettings = field(default_factory=SelfPlaySettings)
    train: TrainSettings = field(default_factory=TrainSettings)
    eval: EvalConfig = field(default_factory=EvalConfig)
    ray: RayConfig = field(default_factory=RayConfig)
    name: str = "default"
    seed: int = 0
    device: str = "auto"
    compile: bool = False
    backend: str = "local"
    inference: str = "auto"
    stages: tuple[Stage, ...] = ()
    max_legal: int = MAX_LEGAL

    def __post_init__(self):
        """The checks across groups (each group checks its own settings)."""
        _check_device(self.device)
        if self.backend not in BACKENDS:
            raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {self.backend!r}")
        if self.inference not in INFERENCE_BACKENDS:
            raise ValueError(f"inference must be one of {', '.join(INFERENCE_BACKENDS)}, "
                             f"got {self.inference!r}")
        if self.backend == "ray" and self.selfplay.workers < 1:
            raise ValueError("selfplay.workers must be >= 1 with backend=ray (it is the number of actors)")
        if self.search.contempt:
            raise ValueError("search.contempt must be 0 in training: it values a draw for one side, and "
                             "self-play's targets are for both (contempt is for play: alphazero:contempt=C)")
        sp = self.selfplay
        if sp.full_search_prob < 1 and sp.fast_sims > self.search.sims:
            raise ValueError(f"selfplay.fast_sims ({sp.fast_sims}) must be at most search.sims "
                             f"({self.search.sims})")
        if self.train.aux and not self.model.aux_head:
            raise ValueError("train.moves_left_weight and train.pressure_weight train the auxiliary head: "
                             "set model.aux_head=true (or the weights to 0)")
        for i, stage in enumerate(self.stages):
            if i and stage.at_step <= self.stages[i - 1].at_step:
                raise ValueError(f"stages[{i}].at_step must be after stages[{i - 1}].at_step "
                                 f"({self.stages[i - 1].at_step}), got {stage.at_step}")
            try:
                self.staged(stage.at_step)  # the settings in force from it pass every check
            except ValueError as e:
                raise ValueError(f"stages[{i}] (from step {stage.at_step}): {e}") from None

    def stage_at(self, step: int) -> int:
        """How many stages the network of ``step`` has reached (0: the run's own settings)."""
        return sum(1 for s in self.stages if s.at_step <= step)

    def staged(self, step: int) -> RunConfig:
        """The settings in force for the network of ``step``: the run's, with each stage reached
        applied in order (without ``stages``: a schedule's settings, not a schedule)."""
        groups: dict[str, Any] = {}
        for stage in self.stages[:self.stage_at(step)]:
            for name, (group, key) in STAGE_SETTINGS.items():
                if (value := getattr(stage, name)) is not None:
                    groups[group] = replace(groups.get(group, getattr(self, group)), **{key: value})
        return replace(self, **groups, stages=())

    def stage_settings(self) -> dict[str, Any]:
        """The settings a stage may change, by full key, as they are here (``search.sims``: 32)."""
        return {f"{group}.{key}": getattr(getattr(self, group), key)
                for group, key in STAGE_SETTINGS.values()}

    def stage_changes(self, step: int) -> str:
        """What the stage reached at ``step`` changes, in words (``search.sims 32 -> 64, ...``)."""
        before, after = self.staged(step - 1).stage_settings(), self.staged(step).stage_settings()
        changed = [f"{k} {before[k]} -> {after[k]}" for k in after if before[k] != after[k]]
        return ", ".join(changed) or "nothing"


def defaults() -> dict[str, Any]:
    """Every setting but ``run_dir`` with its default, as plain data (tuples as lists)."""
    top = {f.name: list(f.default) if isinstance(f.default, tuple) else f.default
           for f in fields(RunConfig) if f.name in TOP_LEVEL and f.default is not MISSING}
    groups = {name: {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(cls()).items()}
              for name, cls in GROUPS.items()}
    return {**top, **groups}


def register_configs() -> None:
    """Store :func:`defaults` in Hydra's ConfigStore as ``run_defaults``, with open groups.
    Call before Hydra composes ``configs/train.yaml``.

    The groups and their dataclasses::

        env       EnvConfig            game type and ply cap
        model     ModelSettings        a size of models.gnn.SIZES, width/layers overrides
        search    search.mcts.SearchConfig
        selfplay  SelfPlaySettings     training.selfplay.SelfPlayConfig + worker processes
        train     TrainSettings        training.trainer.TrainConfig + checkpoints kept
        eval      EvalConfig           evaluation during and after training (training.gating)
        ray       RayConfig            the Ray cluster of ``backend=ray`` (training.ray_selfplay)

    plus the top-level settings of :class:`RunConfig`. ``run_defaults`` is the first entry of
    ``configs/train.yaml``'s defaults list, so the yaml files hold only deltas and ``hive-train
    eval.games=4`` finds the key. The stored groups are plain dicts, not Hydra structured
    configs, so that OmegaConf does not coerce values (``1`` to ``true``, ``"3"`` to ``3``)
    before :func:`run_config` checks them, and they are open (not in struct mode), so that a
    misspelt key reaches :func:`run_config`, which names it."""
    from hydra.core.config_store import ConfigStore

    node = OmegaConf.create(defaults())
    for name in GROUPS:
        OmegaConf.set_struct(node[name], False)
    ConfigStore.instance().store(name="run_defaults", node=node)


# ----- checks ------------------------------------------------------------------------------------
def _typed(value: Any, hint: Any, key: str) -> Any:
    """``value`` checked against a field annotation (and converted: int -> float, list ->
    tuple, str -> Path); raises :class:`ConfigError` naming ``key``."""
    origin, args = get_origin(hint), get_args(hint)
    if origin in (Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        (hint,) = (a for a in args if a is not type(None))
        origin, args = get_origin(hint), get_args(hint)
    if hint is bool:
        ok, want = type(value) is bool, "true or false"
    elif hint is int:
        ok, want = type(value) is int, "a whole number"
    elif hint is float:
        ok, want = type(value) in (int, float), "a number"
        value = float(value) if ok else value
    elif hint in (str, Path):
        ok, want = isinstance(value, str), "text"
        value = hint(value) if ok else value
    elif origin is dict and args == (str, float):
        ok = isinstance(value, dict) and all(isinstance(k, str) and type(v) in (int, float)
                                             for k, v in value.items())
        want = "a mapping of names to numbers"
        value = {k: float(v) for k, v in value.items()} if ok else value
    elif origin in (tuple, list) and args[0] in (str, int):
        item = args[0]
        ok = isinstance(value, (list, tuple)) and all(type(v) is item for v in value)
        want = "a list of text" if item is str else "a list of whole numbers"
        value = origin(value) if ok else value
    else:
        raise TypeError(f"{key}: no check for the type {hint}")
    if not ok:
        raise ConfigError(f"{key} must be {want}, got {value!r}")
    return value


def unknown_setting(key: str, known: Sequence[str], candidates: Sequence[str]) -> ConfigError:
    """The one-line error of an unknown setting ``key``: the closest of ``candidates`` (full
    keys, by ``difflib``), then the names ``known`` at its level."""
    close = difflib.get_close_matches(key, candidates, n=2, cutoff=0.75)
    hint = f": did you mean {' or '.join(close)}?" if close else ""
    return ConfigError(f"unknown setting {key}{hint} (known: {', '.join(sorted(known))})")


def _known(given: dict, known: list[str], prefix: str) -> None:
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise unknown_setting(f"{prefix}{unknown[0]}", known, [f"{prefix}{k}" for k in known])


def _group(name: str, cls: type, section: Any) -> Any:
    """The dataclass ``cls`` from the config section ``name``, checked."""
    if section is None:
        section = {}
    if not isinstance(section, dict):
        raise ConfigError(f"{name} must be a group of settings, got {section!r}")
    hints = get_type_hints(cls)
    _known(section, [f.name for f in fields(cls) if f.init], f"{name}.")
    values = {k: _typed(v, hints[k], f"{name}.{k}") for k, v in section.items()}
    try:
        return cls(**values)
    except RangeError as e:  # a range names the field alone: the group is said here
        raise ConfigError(f"{name}.{e}") from None
    except ValueError as e:
        raise ConfigError(str(e)) from None


def _stages(section: Any) -> tuple[Stage, ...]:
    """The ``stages`` list: each entry a group of :class:`Stage`'s settings, checked."""
    if section is None:
        return ()
    if not isinstance(section, list):
        raise ConfigError(f"stages must be a list of stages ({{at_step: N, sims: S, ...}}), got {section!r}")
    return tuple(_group(f"stages[{i}]", Stage, entry) for i, entry in enumerate(section))


def _check_device(device: str) -> None:
    if device not in ("auto", "cpu", "cuda") and not (device.startswith("cuda:") and device[5:].isdigit()):
        raise ValueError(f"device must be auto, cpu, cuda or cuda:N, got {device!r}")
    if device.startswith("cuda"):
        import torch

        if not torch.cuda.is_available():
            raise ValueError(f"device={device} but no CUDA device is available (use device=cpu or auto)")


def run_config(cfg: DictConfig) -> RunConfig:
    """Typed settings of a run; raises :class:`ConfigError` naming the first bad setting.

    Checks: no unknown key at the top level or in a group (Hydra's own ``hydra`` excluded);
    every value's type against its field's annotation; each group's own checks (its
    dataclass's ``__post_init__``: the ranges its fields declare (``hive_zero.checks``, named
    here with the group), gating, player specs of ``eval.opponents`` and
    ``eval.final_opponents``, model size, ``search.max_nodes``
    against ``search.sims``); then :class:`RunConfig`'s checks across groups (device,
    backend, inference, ``selfplay.fast_sims`` against ``search.sims``, the auxiliary weights
    against ``model.aux_head``).
    """
    c = OmegaConf.to_container(cfg, resolve=True)
    c.pop("hydra", None)
    _known(c, [*TOP_LEVEL, *GROUPS], "")
    groups = {name: _group(name, cls, c.get(name)) for name, cls in GROUPS.items()}
    hints = get_type_hints(RunConfig)
    if "run_dir" not in c:
        raise ConfigError("run_dir must be set")
    top = {k: _typed(c[k], hints[k], k) for k in TOP_LEVEL if k in c and k != "stages"}
    top["stages"] = _stages(c.get("stages"))
    groups["model"] = groups["model"].model_config()
    try:
        return RunConfig(**groups, **top)
    except ValueError as e:
        raise ConfigError(str(e)) from None
