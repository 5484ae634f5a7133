"""The network's input widths are the encoder's: ``models`` imports no ``hive_env`` (the import
contracts), so its defaults are copies, held to their home here."""

from __future__ import annotations

import pytest

from hive_env.encode import N_GLOBAL_FEATURES, N_NODE_FEATURES
from models.gnn import SIZES, ModelConfig, model_config


@pytest.mark.parametrize("size", [None, *SIZES])
def test_every_size_takes_the_encoder_s_node_and_global_features(size):
    cfg = model_config(size) if size else ModelConfig()
    assert (cfg.node_features, cfg.global_features) == (N_NODE_FEATURES, N_GLOBAL_FEATURES)
