"""Shared test helpers: where ../shared lives, and skipping when it is absent."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
REFERENCE = SHARED / "reference"


def require_reference(name: str) -> Path:
    """Path of a file in ../shared/reference, or skip the test when it is absent."""
    path = REFERENCE / name
    if not path.is_file():
        pytest.skip(f"{path} not available")
    return path
