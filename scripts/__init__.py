"""Thin command-line entry points (console scripts in pyproject.toml) and benchmarks."""
