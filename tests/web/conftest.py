"""Fixtures shared by the hive-web tests.

``client`` is one TestClient for a whole module over ``create_app(app_models, **app_options)``:
by default ``tiny_models`` and ``move_time=5.0, sims=16``. A module whose app serves another
models directory or takes other options overrides ``app_models`` or ``app_options``
(``test_web_api``: a directory with a damaged file and a link out of it; ``test_web_hostile``:
decoys that load as data but not as networks, and 8 simulations). A module that needs a fresh
app per test has a fixture of its own, under another name (``test_web_clock``'s
``clock_client``, on a fake clock).

fastapi and ``web`` are imported where they are used, so that the browser tests can still skip
when the server's packages are missing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from models.gnn import build_model
from search.checkpoint import save_checkpoint


@pytest.fixture(scope="module")
def tiny_models(tmp_path_factory) -> Path:
    """A models directory holding one tiny untrained checkpoint (``tiny/ckpt_1.pt``)."""
    root = tmp_path_factory.mktemp("models")
    save_checkpoint(root / "tiny" / "ckpt_1.pt", build_model("tiny"))
    return root


@pytest.fixture(scope="module")
def app_models(tiny_models) -> Path:
    """The models directory ``client``'s app serves (a module may override it)."""
    return tiny_models


@pytest.fixture(scope="module")
def app_options() -> dict:
    """``create_app``'s other arguments for ``client`` (a module may override it)."""
    return {"move_time": 5.0, "sims": 16}


@pytest.fixture(scope="module")
def client(app_models, app_options):
    """A TestClient over ``create_app(app_models, **app_options)``, shared by a module's tests."""
    from fastapi.testclient import TestClient

    from web import create_app

    with TestClient(create_app(app_models, **app_options)) as c:
        yield c
