"""Range checks declared once per dataclass field, checked by one function.

A field carries its range in its metadata (:func:`bounded`); a ``__post_init__`` calls
:func:`check_ranges`, which raises :class:`RangeError` naming the first field out of range::

    batch_size: int = bounded(256, ge=1)            # "batch_size must be >= 1, got 0"
    value_target_q: float = bounded(0.0, ge=0.0, le=1.0)   # "... must be in [0, 1], got 2.0"

A library class's message names the field alone; the config layer that knows the field's
group puts it in front (``train.batch_size``, ``training.config``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field, fields
from typing import Any

RANGE = "range"
"""The metadata key of a field's :class:`Bound`."""


class RangeError(ValueError):
    """A setting out of its range: ``"<name> <what>"``, with ``name`` kept for a caller that
    puts a prefix in front (the config group)."""

    def __init__(self, name: str, what: str):
        super().__init__(f"{name} {what}")
        self.name = name


@dataclass(frozen=True)
class Bound:
    """A number's allowed range; None on a side is no limit there.

    Args:
        ge, gt: the value must be >= ``ge`` (> ``gt``).
        le, lt: the value must be <= ``le`` (< ``lt``).
        even: the value must also be even.
        note: said in brackets after the rule (``0 = no budget``).
        label: the setting's name in messages (default: the field's).
        each: the range is each value's of a mapping field (named ``field.key``).
    """

    ge: float | None = None
    gt: float | None = None
    le: float | None = None
    lt: float | None = None
    even: bool = False
    note: str = ""
    label: str = ""
    each: bool = False

    def holds(self, value: Any) -> bool:
        """Whether ``value`` is in range (None always is: "not set"; NaN never is)."""
        if value is None:
            return True
        if isinstance(value, float) and math.isnan(value):
            return False
        return ((self.ge is None or value >= self.ge) and (self.gt is None or value > self.gt)
                and (self.le is None or value <= self.le) and (self.lt is None or value < self.lt)
                and (not self.even or value % 2 == 0))

    def rule(self) -> str:
        """The range as words: ``>= 1``, ``> 0``, ``1..256`` (whole numbers), ``(0, 1]``,
        ``even and >= 2``."""
        low = self.ge if self.ge is not None else self.gt
        high = self.le if self.le is not None else self.lt
        if low is not None and high is not None:
            if isinstance(low, int) and isinstance(high, int) and self.ge is not None and self.le is not None:
                text = f"{low}..{high}"
            else:
                opening, closing = "[" if self.ge is not None else "(", "]" if self.le is not None else ")"
                text = f"{opening}{_num(low)}, {_num(high)}{closing}"
        else:
            sides = ((">=", self.ge), (">", self.gt), ("<=", self.le), ("<", self.lt))
            text = " and ".join(f"{op} {_num(v)}" for op, v in sides if v is not None)
        return f"even and {text}" if self.even and text else ("even" if self.even else text)

    def complaint(self, value: Any) -> str:
        """What follows the setting's name in its message: ``must be >= 1 (note), got 0``."""
        rule = self.rule()
        words = f"in {rule}" if rule[:1] in "[(" or ".." in rule else rule
        note = f" ({self.note})" if self.note else ""
        return f"must be {words}{note}, got {value}"


def _num(value: float) -> str:
    """A bound as written: whole numbers as they are, others shortest (``0.5``, ``1e-06``)."""
    return str(value) if isinstance(value, int) else f"{value:g}"


def bounded(default: Any = MISSING, *, default_factory: Any = MISSING, **bound: Any) -> Any:
    """A dataclass field with a default and a :class:`Bound` (its keyword arguments)."""
    return field(default=default, default_factory=default_factory, metadata={RANGE: Bound(**bound)})


def bound_of(cls: type, name: str) -> Bound | None:
    """The :class:`Bound` of field ``name`` of dataclass ``cls`` (None: no range)."""
    return next(f.metadata.get(RANGE) for f in fields(cls) if f.name == name)


def check_ranges(obj: Any) -> None:
    """Check every bounded field of the dataclass instance ``obj``, in field order.

    Raises:
        RangeError: the first value out of its range.
    """
    for f in fields(obj):
        bound: Bound | None = f.metadata.get(RANGE)
        if bound is None:
            continue
        name, value = bound.label or f.name, getattr(obj, f.name)
        items = value.items() if bound.each and isinstance(value, Mapping) else [(None, value)]
        for key, item in items:
            if not bound.holds(item):
                raise RangeError(name if key is None else f"{name}.{key}", bound.complaint(item))
