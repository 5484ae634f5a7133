"""``hive-arena`` with no options plays what the library plays with no arguments: its defaults
are read from ``ArenaConfig``, ``run_arena`` and ``arena.ladder``, never stated again."""

from __future__ import annotations

from arena import ladder
from arena.arena import run_arena
from arena.cli import build_parser, config_from_args
from arena.config import ArenaConfig
from hive_zero.options import param_default


def parsed(*argv: str):
    args = build_parser().parse_args(list(argv))
    return args, config_from_args(args)


def test_a_match_without_options_is_the_default_arena():
    args, config = parsed("gauntlet", "greedy", "random")
    assert config == ArenaConfig("gauntlet", ("greedy", "random"))
    assert args.workers == param_default(run_arena, "workers")
    assert args.elo_prior == param_default(run_arena, "prior_draws")
    _, config = parsed("sprt", "greedy", "random")
    assert config.sprt() == ArenaConfig("sprt", ("greedy", "random")).sprt()


def test_a_ladder_and_a_calibration_without_options_are_the_librarys():
    _, config = parsed("ladder", "alphabeta:depth=5")
    assert config == ladder.ladder_config("alphabeta:depth=5")
    _, config = parsed("calibrate")
    assert config == ladder.calibration_config()


def test_the_help_shows_the_defaults_it_uses():
    sub = build_parser()._subparsers._group_actions[0].choices  # noqa: SLF001 - the parsers' own help
    text = " ".join(sub["sprt"].format_help().split())
    default = ArenaConfig("sprt", ("a", "b"))
    assert f"(default {default.elo1:g})" in text and f"(default {default.openings})" in text
    assert f"(default {default.games_per_pairing})" in text
