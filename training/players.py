"""One interface for every player: choose a move for a position within a budget.

A *player* is anything with a ``name``, ``choose(game, budget) -> move`` and ``close()``
(see :class:`Player`). Players are built from a short *spec* string, the same everywhere
(arena, ``hive-uhp``, ``hive-play``)::

    kind[:key=value[,key=value]...]

    random                      uniform over legal moves (seeded)
    greedy                      one ply with the heuristic, ties broken at random (seeded)
    alphabeta                   alpha-beta search, default depth 3
    alphabeta:depth=4           ... to depth 4
    alphabeta:time=0.5          ... iterative deepening for 0.5 s per move
    uhp:cmd=/path/to/engine     an external UHP engine (default 1 s per move)
    uhp:cmd=mzinga,depth=2      ... asked for ``bestmove depth 2``

A value may contain commas and spaces (a command line), as long as no comma in it is
followed by ``word=``. Other modules add kinds with :func:`register_player` (the training
issue registers ``alphazero:ckpt=PATH,sims=N``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any, Protocol, runtime_checkable

import numpy as np

from hive_env import Game

from .alphabeta import DEFAULT_TT_BITS, AlphaBeta, SearchResult
from .heuristic import DEFAULT_WEIGHTS, score_moves


@dataclass(frozen=True)
class Budget:
    """How much thought one move may take; ``None`` = no limit on that axis.

    Which fields a player honours: ``alphabeta`` depth and time (both: whichever comes
    first), ``uhp`` depth or else time, AlphaZero sims; ``random`` and ``greedy`` none.
    """

    time_s: float | None = None
    depth: int | None = None
    sims: int | None = None

    def is_empty(self) -> bool:
        return all(getattr(self, f.name) is None for f in fields(self))


def resolve_budget(budget: Budget | None, default: Budget) -> Budget:
    """The budget to use: the one given, or the player's default when none (or an empty one) is."""
    return default if budget is None or budget.is_empty() else budget


@runtime_checkable
class Player(Protocol):
    """Chooses moves. ``choose`` never changes the game it is given."""

    name: str

    def choose(self, game: Game, budget: Budget | None = None) -> int:
        """An encoded legal move of ``game`` (which must be in progress)."""
        ...

    def close(self) -> None:
        """Release what the player holds (processes, memory)."""
        ...


class PlayerSpecError(ValueError):
    """A player spec string that names an unknown kind, key or a bad value."""


def _check_in_progress(game: Game) -> None:
    if game.is_over:
        raise ValueError(f"the game is over ({game.state}): there is no move to choose")


# ----- the built-in players --------------------------------------------------------------------
class RandomPlayer:
    """Uniform over the legal moves; ``seed`` fixes the sequence of choices."""

    def __init__(self, seed: int = 0, name: str = "random"):
        self.name = name
        self._rng = np.random.default_rng(seed)

    def choose(self, game: Game, budget: Budget | None = None) -> int:
        _check_in_progress(game)
        moves = game.legal_moves()
        return int(moves[self._rng.integers(len(moves))])

    def close(self) -> None:
        pass


class GreedyPlayer:
    """One ply: the move whose resulting position the heuristic likes best (a win first).

    Ties are broken uniformly at random by the seeded generator.
    """

    def __init__(self, seed: int = 0, name: str = "greedy", weights: np.ndarray | None = None):
        self.name = name
        self._rng = np.random.default_rng(seed)
        self._weights = DEFAULT_WEIGHTS if weights is None else np.ascontiguousarray(weights, dtype=np.int32)

    def choose(self, game: Game, budget: Budget | None = None) -> int:
        _check_in_progress(game)
        moves = game.legal_moves()
        scores = np.empty(len(moves), dtype=np.int64)
        score_moves(game.board.copy(), game.hist.copy(), moves, self._weights, scores)
        best = np.flatnonzero(scores == scores.max())
        return int(moves[best[self._rng.integers(len(best))]])

    def close(self) -> None:
        pass


class AlphaBetaPlayer:
    """Iterative-deepening alpha-beta with the Hive heuristic (``training.alphabeta``).

    Args:
        default_budget: used when ``choose`` gets no budget (spec ``depth=``/``time=``); depth 3.
        tt_bits: log2 of the transposition table size.
        seed: seeds the tie-breaks between equal root moves.
    """

    def __init__(self, default_budget: Budget | None = None, tt_bits: int = DEFAULT_TT_BITS,
                 seed: int = 0, name: str = "alphabeta"):
        self.name = name
        self.default_budget = default_budget or Budget(depth=3)
        self.search = AlphaBeta(tt_bits=tt_bits, seed=seed)
        self.last: SearchResult | None = None
        """The last ``SearchResult`` (score, depth reached, nodes, seconds), for logs."""

    def choose(self, game: Game, budget: Budget | None = None) -> int:
        _check_in_progress(game)
        b = resolve_budget(budget, self.default_budget)
        if b.depth is None and b.time_s is None:
            b = self.default_budget  # e.g. a sims-only budget meant for AlphaZero
        self.last = self.search.search(game.board, game.hist, depth=b.depth, time_s=b.time_s)
        return self.last.move

    def close(self) -> None:
        pass


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


def text_value(text: str) -> str:
    if not text:
        raise ValueError("must not be empty")
    return text


def _tt_bits(text: str) -> int:
    value = int(text)
    if not 10 <= value <= 28:
        raise ValueError("must be between 10 and 28")
    return value


# ----- registry ------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Kind:
    factory: Callable[..., Player]
    params: Mapping[str, Callable[[str], Any]]
    required: tuple[str, ...]
    doc: str


_KINDS: dict[str, _Kind] = {}
_SPLIT = re.compile(r",(?=\s*[A-Za-z_]\w*\s*=)")


def register_player(kind: str, factory: Callable[..., Player],
                    params: Mapping[str, Callable[[str], Any]] | None = None,
                    required: tuple[str, ...] = (), doc: str = "") -> None:
    """Make ``kind`` buildable from specs.

    Args:
        kind: the spec's first word, e.g. ``"alphazero"``.
        factory: called as ``factory(seed=..., name=..., **params)`` with parsed values.
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


def make_player(spec: str, seed: int = 0) -> Player:
    """Build a player from a spec string (see the module docstring).

    Args:
        spec: e.g. ``"alphabeta:depth=3"``.
        seed: seeds the player's random choices.

    Raises:
        PlayerSpecError: unknown kind, unknown or missing key, or a bad value.
    """
    kind, raw = parse_spec(spec)
    entry = _KINDS.get(kind)
    if entry is None:
        raise PlayerSpecError(f"unknown player kind {kind!r} (known: {', '.join(sorted(_KINDS))})")
    values: dict[str, Any] = {}
    for key, text in raw.items():
        parser = entry.params.get(key)
        if parser is None:
            known = ", ".join(sorted(entry.params)) or "none"
            raise PlayerSpecError(f"player {kind!r} has no option {key!r} (options: {known})")
        try:
            values[key] = parser(text)
        except ValueError as e:
            raise PlayerSpecError(f"player {kind!r}: bad {key}={text!r}: {e}") from None
    missing = [k for k in entry.required if k not in values]
    if missing:
        raise PlayerSpecError(f"player {kind!r} needs {', '.join(k + '=...' for k in missing)}")
    name = kind if not raw else kind + ":" + ",".join(f"{k}={v}" for k, v in raw.items())
    return entry.factory(seed=seed, name=name, **values)


# ----- built-in kinds ----------------------------------------------------------------------------
def _budget(time: float | None, depth: int | None, default: Budget) -> Budget:
    b = Budget(time_s=time, depth=depth)
    return default if b.is_empty() else b


def _alphabeta(seed: int, name: str, depth: int | None = None, time: float | None = None,
               tt: int = DEFAULT_TT_BITS) -> Player:
    return AlphaBetaPlayer(_budget(time, depth, Budget(depth=3)), tt_bits=tt, seed=seed, name=name)


def _uhp(seed: int, name: str, cmd: str, depth: int | None = None, time: float | None = None,
         timeout: float = 30.0) -> Player:
    from .uhp_player import UhpPlayer  # imported here: it starts processes, keep it optional

    return UhpPlayer(cmd, default_budget=_budget(time, depth, Budget(time_s=1.0)), timeout_s=timeout,
                     name=name)


register_player("random", lambda seed, name: RandomPlayer(seed, name), doc="uniform over legal moves")
register_player("greedy", lambda seed, name: GreedyPlayer(seed, name), doc="one ply with the heuristic")
register_player("alphabeta", _alphabeta, {"depth": positive_int, "time": positive_float, "tt": _tt_bits},
                doc="alpha-beta search (depth=N, time=SECONDS; default depth=3)")
register_player("uhp", _uhp, {"cmd": text_value, "depth": positive_int, "time": positive_float,
                              "timeout": positive_float}, required=("cmd",),
                doc="external UHP engine (cmd=COMMAND, depth=N or time=SECONDS; default time=1)")


def _flag(text: str) -> bool:
    """``1/true/yes/on`` or ``0/false/no/off``."""
    t = text.strip().lower()
    if t in ("1", "true", "yes", "on"):
        return True
    if t in ("0", "false", "no", "off"):
        return False
    raise ValueError("expected 1/0, true/false, yes/no or on/off")


def _alphazero(seed: int, name: str, ckpt: str, sims: int = 200, gumbel: bool = False,
               device: str = "auto", cpuct: float = 1.5) -> Player:
    from .alphazero_player import AlphaZeroPlayer  # imported here: it loads torch and a checkpoint

    try:
        return AlphaZeroPlayer(ckpt, sims=sims, gumbel=gumbel, device=device, cpuct=cpuct, seed=seed,
                               name=name)
    except Exception as e:  # a missing or damaged checkpoint is a spec error for the user
        raise PlayerSpecError(f"player 'alphazero': {e}") from None


register_player("alphazero", _alphazero, {"ckpt": text_value, "sims": positive_int, "gumbel": _flag,
                                          "device": text_value, "cpuct": positive_float},
                required=("ckpt",),
                doc="network + tree search (ckpt=PATH, sims=N, gumbel=1, device=auto|cpu|cuda)")
