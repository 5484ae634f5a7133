"""Range checks declared on dataclass fields (``hive_zero.checks``) and options built from fields
(``hive_zero.options``): the words of each rule, one message format, defaults read from one place."""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass, field

import pytest

from hive_zero.checks import Bound, RangeError, bound_of, bounded, check_ranges
from hive_zero.options import default_of, field_type, option, param_default, ranges_line


@dataclass(frozen=True)
class Example:
    count: int = bounded(4, ge=1)
    rate: float = bounded(0.5, gt=0.0, le=1.0)
    share: float = bounded(0.0, ge=0.0, le=1.0)
    cap: int = bounded(300, ge=0, le=32767)
    games: int = bounded(2, ge=2, even=True, note="colours alternate in pairs", label="games per pairing")
    budget: float = bounded(0.0, ge=0.0, note="0 = none")
    limit: int | None = bounded(None, ge=1, note="or null = all")
    amounts: dict[str, float] = bounded(default_factory=dict, gt=0.0, each=True)
    free: str = "x"
    plain: list[int] = field(default_factory=list)

    def __post_init__(self):
        check_ranges(self)


@pytest.mark.parametrize("bound,rule", [
    (Bound(ge=1), ">= 1"), (Bound(gt=0.0), "> 0"), (Bound(ge=-1), ">= -1"),
    (Bound(ge=0.0, le=1.0), "[0, 1]"), (Bound(gt=0.0, le=1.0), "(0, 1]"), (Bound(gt=0.0, lt=0.5), "(0, 0.5)"),
    (Bound(ge=0, le=32767), "0..32767"),
    (Bound(ge=2, even=True), "even and >= 2"), (Bound(ge=1_000_000), ">= 1000000"),
])
def test_each_rule_in_words(bound, rule):
    assert bound.rule() == rule


@pytest.mark.parametrize("values,message", [
    ({"count": 0}, "count must be >= 1, got 0"),
    ({"rate": 0.0}, "rate must be in (0, 1], got 0.0"),
    ({"share": 2.0}, "share must be in [0, 1], got 2.0"),
    ({"cap": -1}, "cap must be in 0..32767, got -1"),
    ({"games": 3}, "games per pairing must be even and >= 2 (colours alternate in pairs), got 3"),
    ({"budget": -1.0}, "budget must be >= 0 (0 = none), got -1.0"),
    ({"limit": 0}, "limit must be >= 1 (or null = all), got 0"),
    ({"amounts": {"gpu": 1.0, "node": 0.0}}, "amounts.node must be > 0, got 0.0"),
    ({"rate": math.nan}, "rate must be in (0, 1], got nan"),
])
def test_a_value_out_of_range_is_named_in_one_format(values, message):
    with pytest.raises(RangeError) as e:
        Example(**values)
    assert str(e.value) == message and e.value.name == message.split(" must")[0]
    assert isinstance(e.value, ValueError)


def test_values_in_range_and_none_pass():
    Example(count=1, rate=1.0, share=0.0, cap=32767, games=4, budget=0.0, limit=None, amounts={"a": 0.5})
    assert bound_of(Example, "count") == Bound(ge=1) and bound_of(Example, "free") is None


def test_the_first_field_out_of_range_is_named():
    with pytest.raises(RangeError, match="^count "):
        Example(count=0, share=5.0)


def test_a_default_is_read_from_its_field_or_keyword():
    assert default_of(Example, "count") == 4 and default_of(Example, "amounts") == {}
    with pytest.raises(AttributeError):
        default_of(Example, "nothing")

    def play(games: int, workers: int = 3) -> None: ...

    assert param_default(play, "workers") == 3
    with pytest.raises(ValueError):
        param_default(play, "games")
    assert field_type(Example, "limit") is int and field_type(Example, "rate") is float


def test_an_option_takes_its_type_default_and_metavar_from_the_field():
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-count", **option(Example, "count", "--max-count"),
                        help="(default %(default)s)")
    parser.add_argument("--limit", **option(Example, "limit", "--limit"))
    args = parser.parse_args([])
    assert (args.count, args.limit) == (4, None)
    assert parser.parse_args(["--max-count", "7", "--limit", "2"]).count == 7
    assert "--max-count MAX_COUNT (default 4)" in " ".join(parser.format_help().split())


def test_options_ranges_in_one_line():
    assert ranges_line([("--port", Bound(ge=1, le=65535)), ("--move-time", Bound(gt=0.0)),
                        ("--sims", Bound(ge=1)), ("--leaves", Bound(ge=1, le=256))]) == (
        "--port must be 1..65535, --move-time > 0, --sims >= 1 and --leaves 1..256")
    assert ranges_line([("--a", Bound(ge=1)), ("--b", Bound(ge=0)), ("--c", Bound(ge=1))]) == (
        "--a and --c must be >= 1 and --b >= 0")
    assert ranges_line([("--idle", Bound(gt=0.0))]) == "--idle must be > 0"
