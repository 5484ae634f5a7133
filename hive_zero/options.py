"""Command-line options built from dataclass fields, so that a default lives in its dataclass only.

    parser.add_argument("--max-games", **option(WebSettings, "max_sessions", "--max-games"),
                        help="games kept at once (default %(default)s)")

takes the option's destination, type and default from the field (:func:`param_default`: from a
function's keyword); a help text shows the default through argparse's ``%(default)s`` (or
``%(default)g``), never a number of its own.
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable, Sequence
from dataclasses import MISSING, fields
from typing import Any, Union, get_args, get_origin, get_type_hints

from .checks import Bound


def default_of(cls: type, name: str) -> Any:
    """The default of field ``name`` of dataclass ``cls`` (its factory's value for a factory)."""
    f = next((f for f in fields(cls) if f.name == name), None)
    if f is None:
        raise AttributeError(f"{cls.__name__} has no field {name!r}")
    if f.default is not MISSING:
        return f.default
    if f.default_factory is not MISSING:
        return f.default_factory()
    raise ValueError(f"{cls.__name__}.{name} has no default")


def field_type(cls: type, name: str) -> type:
    """The type of field ``name`` of ``cls``: ``X`` for ``X | None``, else its annotation."""
    hint = get_type_hints(cls)[name]
    if get_origin(hint) in (Union, types.UnionType):
        kinds = [a for a in get_args(hint) if a is not type(None)]
        return kinds[0] if len(kinds) == 1 else hint
    return hint


def option(cls: type, name: str, flag: str) -> dict[str, Any]:
    """``add_argument`` keywords of the option ``flag`` that sets field ``name`` of ``cls``: its
    ``dest``, ``metavar`` (as ``flag`` alone would have it), ``type`` (bools are flags: give
    ``action`` yourself) and ``default``."""
    kind = field_type(cls, name)
    metavar = flag.lstrip("-").replace("-", "_").upper()
    out = {"dest": name, "metavar": metavar, "default": default_of(cls, name)}
    if kind in (int, float, str):
        out["type"] = kind
    return out


def param_default(func: Callable[..., Any], name: str) -> Any:
    """The default of keyword ``name`` of ``func``: an option that passes its value on shows the
    function's own default."""
    default = inspect.signature(func).parameters[name].default
    if default is inspect.Parameter.empty:
        raise ValueError(f"{func.__qualname__}({name}) has no default")
    return default


def ranges_line(options: Sequence[tuple[str, Bound]]) -> str:
    """Several options' ranges in one line, the options of one range together, in order of
    first appearance: ``--a and --c must be >= 1, --b > 0 and --d 1..256``."""
    groups: dict[str, list[str]] = {}
    for flag, bound in options:
        groups.setdefault(bound.rule(), []).append(flag)
    parts: list[str] = []
    for rule, flags in groups.items():
        parts.append(f"{_and(flags)}{'' if parts else ' must be'} {rule}")
    return _and(parts)


def _and(words: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"
