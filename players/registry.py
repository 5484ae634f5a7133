"""Players built from spec strings, the same everywhere (arena, ``hive-uhp``, ``hive-play``).

A spec is ``kind[:key=value[,key=value]...]`` (``random``, ``greedy``, ``alphabeta:depth=4``,
``uhp:cmd=...``, ``alphazero:level=3``; ``name=`` names any player): :func:`make_player` builds
one, :func:`short_name` names it for tables, :func:`register_player` adds a kind. Each kind's
factory is named ``"module:function"`` and imported only when a spec of that kind is built, so
this package never imports torch or the search.

See docs/players.md (players) and docs/extension.md (your own players).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hive_zero.run_layout import BEST_COPY_PREFIX, CHECKPOINT_PREFIX

from .base import Budget, Player, PlayerSpecError, player_name
from .levels import BUDGET_KEYS, level, level_value


# ----- spec values ---------------------------------------------------------------------------
def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise ValueError("must be a whole number >= 1")
    return value


def positive_float(text: str) -> float:
    value = float(text)
    if not value > 0 or value == float("inf"):
        raise ValueError("must be a number > 0")
    return value


def unit_value(text: str) -> float:
    value = float(text)
    if not 0 <= value <= 1:
        raise ValueError("must be a number from 0 to 1")
    return value


def text_value(text: str) -> str:
    if not text:
        raise ValueError("must not be empty")
    return text


def tt_bits(text: str) -> int:
    value = int(text)
    if not 10 <= value <= 28:
        raise ValueError("must be between 10 and 28")
    return value


# ----- registry ------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Kind:
    factory: Callable[..., Player] | str
    """The factory, or ``"module:function"`` imported on first use."""
    params: Mapping[str, Callable[[str], Any]]
    required: tuple[str, ...]
    doc: str

    def load(self) -> Callable[..., Player]:
        if callable(self.factory):
            return self.factory
        module, _, attr = self.factory.partition(":")
        return getattr(importlib.import_module(module), attr)


_KINDS: dict[str, _Kind] = {}
_SPLIT = re.compile(r",(?=\s*[A-Za-z_]\w*\s*=)")


def register_player(kind: str, factory: Callable[..., Player] | str,
                    params: Mapping[str, Callable[[str], Any]] | None = None,
                    required: tuple[str, ...] = (), doc: str = "") -> None:
    """Make ``kind`` buildable from specs.

    Args:
        kind: the spec's first word, e.g. ``"alphazero"``.
        factory: called as ``factory(seed=..., name=..., **params)`` with parsed values; a
            ``"module:function"`` string is imported when the first spec of the kind is built.
        params: key -> parser from text (raises ValueError on a bad value).
        required: keys that every spec of this kind must give.
        doc: one line for help texts.
    """
    if not re.fullmatch(r"[a-z][a-z0-9_]*", kind):
        raise ValueError(f"player kind {kind!r} must be lower-case letters, digits or _")
    _KINDS[kind] = _Kind(factory, dict(params or {}), tuple(required), doc)


def player_kinds() -> dict[str, str]:
    """Registered kinds and their one-line descriptions."""
    return {k: v.doc for k, v in _KINDS.items()}


def kinds_without_required_params() -> list[str]:
    """Kinds a bare ``kind`` spec can build (the ``hive-uhp`` Player option)."""
    return [k for k, v in _KINDS.items() if not v.required]


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``"kind:key=value,..."`` -> ``(kind, {key: value})``, values still text.

    Raises:
        PlayerSpecError: empty spec, a part that is not ``key=value``, or a repeated key.
    """
    kind, _, rest = spec.strip().partition(":")
    kind = kind.strip()
    if not kind:
        raise PlayerSpecError(f"empty player spec {spec!r} (expected kind[:key=value,...])")
    options: dict[str, str] = {}
    if rest.strip():
        for part in _SPLIT.split(rest):
            key, eq, value = part.partition("=")
            key = key.strip()
            if not eq or not key:
                raise PlayerSpecError(f"player spec {spec!r}: {part.strip()!r} is not key=value")
            if key in options:
                raise PlayerSpecError(f"player spec {spec!r}: {key!r} given twice")
            options[key] = value.strip()
    return kind, options


def spec_option(spec: str, key: str) -> str | None:
    """The text a spec gives ``key`` (``spec_option("alphabeta:time=0.5", "time")`` -> ``"0.5"``),
    or None when it gives none or is no spec (a Player object's label)."""
    try:
        return parse_spec(spec)[1].get(key)
    except PlayerSpecError:
        return None


def with_option(spec: str, key: str, value: object) -> str:
    """``spec`` with ``key=value`` set (added, or replacing the spec's own value).

    Raises:
        PlayerSpecError: a malformed spec.
    """
    kind, options = parse_spec(spec)
    options[key] = str(value)
    return f"{kind}:" + ",".join(f"{k}={v}" for k, v in options.items())


def with_level(spec: str, number: int) -> str:
    """``spec`` (an ``alphazero`` spec) at level ``number`` (``players.levels``): its ``sims=``,
    ``time=`` and ``gumbel=`` dropped (a level sets them), ``level=`` set; hive-play's
    ``--level`` and hive-uhp's ``Level`` option.

    Raises:
        PlayerSpecError: a malformed spec, or a level out of range.
    """
    try:
        level(number)
    except ValueError as e:
        raise PlayerSpecError(str(e)) from None
    kind, options = parse_spec(spec)
    kept = {k: v for k, v in options.items() if k not in (*BUDGET_KEYS, "level")}
    return f"{kind}:" + ",".join(f"{k}={v}" for k, v in {**kept, "level": number}.items())


def accepts_option(spec: str, key: str) -> bool:
    """Whether the kind of ``spec`` (registered) takes the option ``key``."""
    entry = _KINDS.get(spec.strip().partition(":")[0].strip())
    return entry is not None and key in entry.params


NAME_KEY = "name"
"""The spec key every kind accepts: the player's short name in tables, plots and progress text
(:func:`short_name`); it is not passed to the factory as an option."""


def _resolve(spec: str) -> tuple[str, _Kind, dict[str, str], dict[str, Any]]:
    """``spec`` -> (kind, its registry entry, raw values, parsed values); see :func:`check_spec`.
    ``name=`` is checked here and left out of the parsed values (it is no factory option)."""
    kind, raw = parse_spec(spec)
    entry = _KINDS.get(kind)
    if entry is None:
        raise PlayerSpecError(f"unknown player kind {kind!r} (known: {', '.join(sorted(_KINDS))})")
    values: dict[str, Any] = {}
    for key, text in raw.items():
        if key == NAME_KEY:
            if not text:
                raise PlayerSpecError(f"player {kind!r}: bad name={text!r}: must not be empty")
            continue
        parser = entry.params.get(key)
        if parser is None:
            known = ", ".join(sorted([*entry.params, NAME_KEY]))
            raise PlayerSpecError(f"player {kind!r} has no option {key!r} (options: {known})")
        try:
            values[key] = parser(text)
        except ValueError as e:
            raise PlayerSpecError(f"player {kind!r}: bad {key}={text!r}: {e}") from None
    clash = [k for k in BUDGET_KEYS if k in values] if "level" in values else []
    if clash:
        raise PlayerSpecError(f"player {kind!r}: level= sets the budget and the move choice: give "
                              f"level= or {'/'.join(k + '=' for k in clash)}, not both")
    missing = [k for k in entry.required if k not in values]
    if missing:
        raise PlayerSpecError(f"player {kind!r} needs {', '.join(k + '=...' for k in missing)}")
    return kind, entry, raw, values


def check_spec(spec: str) -> None:
    """Check a spec as :func:`make_player` would, without building the player (nothing is
    imported or loaded: a checkpoint path is not opened, an engine not started).

    Raises:
        PlayerSpecError: unknown kind, unknown or missing key, or a bad value.
    """
    _resolve(spec)


def player_label(player: str | Player) -> str:
    """What names a player in an arena's settings, records and tables: a spec string itself, a
    :class:`Player` object's :func:`~players.base.player_name` (its ``name``, else its class name).

    Raises:
        PlayerSpecError: neither a string nor an object with ``choose``.
    """
    return player if isinstance(player, str) else player_name(player)


def make_player(spec: str, seed: int = 0) -> Player:
    """Build a player from a spec string (docs/players.md: the table of kinds).

    A value may contain commas and spaces (a command line), as long as no comma in it is
    followed by ``word=``.

    Args:
        spec: e.g. ``"alphabeta:depth=3"``.
        seed: seeds the player's random choices.

    Raises:
        PlayerSpecError: unknown kind, unknown or missing key, or a bad value.
    """
    kind, entry, raw, values = _resolve(spec)
    name = raw.pop(NAME_KEY, None)
    if name is None:
        name = kind if not raw else kind + ":" + ",".join(f"{k}={v}" for k, v in raw.items())
    return entry.load()(seed=seed, name=name, **values)


# ----- short names -------------------------------------------------------------------------------
_CKPT_STEP = re.compile(r"^(?:ckpt|model|checkpoint)?[_-]?0*(\d+)$")
_FROZEN = re.compile(rf"^{CHECKPOINT_PREFIX}0*(\d+)_([0-9a-f]{{6,}})$")
_FROZEN_BEST = re.compile(rf"^{BEST_COPY_PREFIX}([0-9a-f]{{6,}})$")
_BEST_BEFORE = re.compile(r"^best_before_0*(\d+)$")


def _checkpoint_label(path: str) -> tuple[str, str]:
    """``(label, detail)`` of a checkpoint file: ``("20", "")`` for ``ckpt_00000020.pt``,
    ``("20", "#1a2b3c")`` for a frozen copy ``ckpt_00000020_<hash>.pt``, ``("best", "")``,
    ``("best", "#1a2b3c")`` for ``best_<hash>.pt``, ``("final", "")``, else the file's stem."""
    stem = re.split(r"[\\/]", path.strip())[-1]
    stem = stem[:-3] if stem.endswith(".pt") else stem
    if m := _FROZEN.match(stem):
        return str(int(m.group(1))), "#" + m.group(2)[:6]
    if m := _FROZEN_BEST.match(stem):
        return "best", "#" + m.group(1)[:6]
    if m := _BEST_BEFORE.match(stem):
        return f"best_before_{int(m.group(1))}", ""
    if m := _CKPT_STEP.match(stem):
        return str(int(m.group(1))), ""
    return stem or path, ""


def short_name(spec: str, detail: int = 0) -> str:
    """A player's name for tables, plots and progress text.

    Args:
        spec: a player spec (need not be valid: an unparsable one is its own name).
        detail: 0 the shortest form; 1 adds what tells similar players apart (a frozen copy's
            hash, the options besides ``ckpt``/``device``); 2 the spec itself. ``name=`` wins at
            levels 0 and 1.

    >>> short_name("alphazero:ckpt=runs/smoke/checkpoints/ckpt_00000020.pt,sims=16")
    'az@20'
    >>> short_name("alphazero:ckpt=runs/smoke/checkpoints/ckpt_00000020.pt,sims=16", detail=1)
    'az@20(sims=16)'
    >>> short_name("alphabeta:depth=2,name=ab2")
    'ab2'
    """
    try:
        kind, raw = parse_spec(spec)
    except PlayerSpecError:
        return spec
    if detail >= 2:
        return spec.strip()
    if raw.get(NAME_KEY):
        return raw[NAME_KEY]
    if kind == "alphazero" and raw.get("ckpt"):
        label, tag = _checkpoint_label(raw["ckpt"])
        if detail == 0:
            return f"az@{label}"
        options = ",".join(f"{k}={v}" for k, v in raw.items() if k not in ("ckpt", "device"))
        return f"az@{label}{tag}" + (f"({options})" if options else "")
    if kind == "uhp" and raw.get("cmd") and detail == 0:  # the engine's program, not its path
        program = re.split(r"[\\/]", raw["cmd"].split()[0])[-1]
        return ",".join([f"uhp:{program}", *(f"{k}={v}" for k, v in raw.items() if k != "cmd")])
    return kind if not raw else kind + ":" + ",".join(f"{k}={v}" for k, v in raw.items())


def short_names(specs: Sequence[str]) -> list[str]:
    """The :func:`short_name` of each spec, unique among different specs: players whose names
    clash get more detail, up to the spec itself (equal specs are one player, one name)."""
    detail = dict.fromkeys(specs, 0)
    while True:
        names = {s: short_name(s, d) for s, d in detail.items()}
        owners: dict[str, list[str]] = {}
        for s, n in names.items():
            owners.setdefault(n, []).append(s)
        clashes = [s for group in owners.values() if len(group) > 1 for s in group if detail[s] < 2]
        if not clashes:
            return [names[s] for s in specs]
        for s in clashes:
            detail[s] += 1


# ----- built-in kinds ----------------------------------------------------------------------------
def flag(text: str) -> bool:
    """``1/true/yes/on`` or ``0/false/no/off``."""
    t = text.strip().lower()
    if t in ("1", "true", "yes", "on"):
        return True
    if t in ("0", "false", "no", "off"):
        return False
    raise ValueError("expected 1/0, true/false, yes/no or on/off")


def spec_budget(time: float | None, depth: int | None, default: Budget) -> Budget:
    """The budget of a spec's ``time=``/``depth=``, or ``default`` when it gives neither."""
    b = Budget(time_s=time, depth=depth)
    return default if b.is_empty() else b


def _random(seed: int, name: str) -> Player:
    from .simple import RandomPlayer

    return RandomPlayer(seed, name)


def _greedy(seed: int, name: str) -> Player:
    from .simple import GreedyPlayer

    return GreedyPlayer(seed, name)


register_player("random", _random, doc="uniform over legal moves")
register_player("greedy", _greedy, doc="one ply with the heuristic")
register_player("alphabeta", "players.alphabeta:make_player",
                {"depth": positive_int, "time": positive_float, "tt": tt_bits},
                doc="alpha-beta search (depth=N, time=SECONDS; default depth=3)")
register_player("uhp", "players.uhp_client:make_player",
                {"cmd": text_value, "depth": positive_int, "time": positive_float, "timeout": positive_float,
                 "threads": positive_int, "table_mib": positive_int},
                required=("cmd",),
                doc="external UHP engine (cmd=COMMAND, depth=N or time=SECONDS; default time=1; threads=N, "
                    "table_mib=M: its NumThreads and TableSizeMiB options)")
register_player("alphazero", "search.alphazero_player:make_player",
                {"ckpt": text_value, "sims": positive_int, "time": positive_float, "gumbel": flag,
                 "device": text_value, "cpuct": positive_float, "leaves": positive_int,
                 "backend": text_value, "hard": flag, "level": level_value, "contempt": unit_value},
                doc="network + tree search (the shipped network, or ckpt=PATH; level=1..10 (default 10: "
                    "1 s a move) or sims=N or time=SECONDS, "
                    "leaves=L, gumbel=1, device=auto|cpu|cuda, backend=auto|torch|numba|onnx; hard=0: "
                    "a clock game's hard moves get no more than their share; contempt=C: a draw is worth "
                    "-C to it, 0..1)")
