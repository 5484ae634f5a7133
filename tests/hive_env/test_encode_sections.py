"""hive_env.encode_sections: its last cut is the encoder (the same observation as
``encode_games``, rows reused), and an earlier cut leaves the later sections out."""

from __future__ import annotations

import numpy as np

from hive_env import encode as enc
from hive_env.encode_sections import SECTIONS, encode_sections, random_positions
from hive_env.pieces import parse_game_type


def test_the_full_cut_writes_what_the_encoder_writes():
    for game_type in ("Base", "Base+MLP"):
        boards = random_positions(game_type, 12, seed=3)
        exp = parse_game_type(game_type)
        mine, theirs = enc.allocate_observation(12, exp), enc.allocate_observation(12, exp)
        moves, errors = enc.allocate_moves(12), np.zeros(12, np.int32)
        encode_sections(boards, enc.obs_arrays(mine), moves, len(SECTIONS) - 1, 2)  # twice: rows reused
        enc.encode_games(boards, enc.obs_arrays(theirs), enc.allocate_moves(12), errors, 0, 12)
        for key in mine:
            np.testing.assert_array_equal(mine[key], theirs[key], err_msg=f"{game_type} {key}")
        cut = enc.allocate_observation(12, exp)
        encode_sections(boards, enc.obs_arrays(cut), enc.allocate_moves(12), 3, 1)  # up to the cell features
        assert cut["n_legal"].sum() == 0 and not cut["legal_mask"].any() and theirs["n_legal"].min() > 0
        np.testing.assert_array_equal(cut["neighbours"], theirs["neighbours"])
