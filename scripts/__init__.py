"""Thin command-line entry points (console scripts in pyproject.toml) and benchmarks."""

from hive_zero.layout import check as _check_layout

_check_layout()  # another 'scripts' (a user's folder, another package) is one line, not a bad import
