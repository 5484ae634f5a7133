"""The app's settings (``web.settings``): create_app's defaults, its ranges, and the command line
built from them."""

from __future__ import annotations

import subprocess
import sys

import pytest

from hive_zero.checks import RangeError
from web import create_app
from web.analysis import MAX_SIMS
from web.settings import WebSettings

from helpers import ROOT


def test_the_search_budget_is_twice_an_analysis():
    assert WebSettings().search_sims == 2 * MAX_SIMS


def test_create_app_takes_the_settings_or_fields_by_name(tmp_path):
    server = create_app(tmp_path, max_sessions=3, per_client=2).state.server
    assert server.store.max_sessions == 3
    server = create_app(settings=WebSettings(models_dir=tmp_path, move_time=4.0)).state.server
    assert server.engine_timeout == 2 * 4.0 + 5  # the default engine timeout follows the move time
    with pytest.raises(TypeError):
        create_app(tmp_path, max_games=3)  # no such setting: the command line's name is --max-games
    with pytest.raises(RangeError, match=r"^leaves must be in 1\.\.256, got 300$"):
        create_app(tmp_path, leaves=300)


def test_hive_web_help_shows_the_settings_defaults():
    done = subprocess.run([sys.executable, "-m", "scripts.web", "--help"], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    text = " ".join(done.stdout.split())
    defaults = WebSettings()
    for flag, value in (("--max-games", defaults.max_sessions), ("--search-sims", defaults.search_sims),
                        ("--idle", defaults.idle_s), ("--models", defaults.models_dir)):
        assert f"{flag} " in text and f"(default: {value})" in text, flag
