"""Pins of seeded self-play: the samples and records of short seeded runs, as hashes.

A refactor of the engine, the encoder, the search or self-play must not change what a
fixed seed plays. The network here is a fake whose outputs are small-integer arithmetic of
the observation (exact in float32 on any machine), so the hashes depend only on our code.
When a change is *meant* to alter self-play (a rule fix, a new search feature), regenerate
the hashes with ``python -m tests.training.test_selfplay_pin`` and say why in the commit.
"""

from __future__ import annotations

import hashlib
import sys

import numpy as np
import pytest

from search.mcts import SearchConfig
from training.replay import FIELDS, Samples
from training.selfplay import SelfPlay, SelfPlayConfig


def integer_evaluate(obs: dict) -> tuple[np.ndarray, np.ndarray]:
    """Logits and values from integer features only: bit-identical on every machine."""
    feat = obs["node_feat"].astype(np.int64).sum(axis=(1, 2))
    src = obs["legal_src"].astype(np.int64)
    dst = obs["legal_dst"].astype(np.int64)
    logits = ((src * 7 + dst * 3 + feat[:, None]) % 11).astype(np.float32) / np.float32(4)
    values = ((feat % 5) - 2).astype(np.float32) / np.float32(4)
    return logits, values


CASES = {
    "puct": (SelfPlayConfig(games=4, temperature_plies=6), SearchConfig(sims=8), "Base", 40),
    "gumbel_mlp": (SelfPlayConfig(games=3, temperature_plies=4, adjudicate_margin=2),
                   SearchConfig(sims=8, gumbel=True, gumbel_m=4), "Base+MLP", 36),
    "pcr_proven": (SelfPlayConfig(games=4, full_search_prob=0.5, fast_sims=4, proven_targets=True),
                   SearchConfig(sims=8, leaves_per_tree=2), "Base", 40),
    "argmax_mlp": (SelfPlayConfig(games=4, temperature_plies=0, full_search_prob=1.0, proven_targets=True),
                   SearchConfig(sims=8, dirichlet_eps=0.0, leaves_per_tree=2), "Base+MLP", 40),
}
"""name -> (self-play settings, search settings, game type, ply cap). ``argmax_mlp`` draws no
random number (no root noise, every move the most visited): its pin holds the search and the
engine alone when a change alters only the random streams."""

PINNED = {
    "argmax_mlp": "222d076276d27638927b566ed3a209f9cf91f157dbd70646d47c7930cb38d21c",
    "gumbel_mlp": "5f4fb02919b72b8cabeef5c31ff0b99793799682ab8deaadb7ddce6573248626",
    "pcr_proven": "6ed902b2ab93b44c636af633a142eb0452701030aa07edc1a7ed01ce161daba7",
    "puct": "7962d2b43452beba06be742afffb373644ee2aea10458858403ebead043debd4",
}
"""name -> the sha256 of :func:`play_hash` when the pins were taken."""


def play_hash(name: str, finished_games: int = 6, seed: int = 11) -> str:
    """Self-play a case until ``finished_games`` games ended: the hash of their samples (every
    field's bytes), records, statuses, plies and truncation flags, in order."""
    sp_cfg, search_cfg, game_type, ply_cap = CASES[name]
    sp = SelfPlay(sp_cfg, search_cfg, game_type, ply_cap, integer_evaluate, seed=seed)
    games = []
    while len(games) < finished_games:
        games.extend(sp.step())
    digest = hashlib.sha256()
    samples = Samples.concat([g.samples for g in games])
    for f in FIELDS:
        arr = np.ascontiguousarray(getattr(samples, f))
        digest.update(f"{f}{arr.dtype}{arr.shape}".encode())
        digest.update(arr.tobytes())
    for g in games:
        digest.update(f"{g.game_string}|{g.status}|{g.plies}|{g.truncated}\n".encode())
    return digest.hexdigest()


@pytest.mark.parametrize("name", sorted(CASES))
def test_seeded_selfplay_plays_what_it_played_when_pinned(name):
    assert play_hash(name) == PINNED[name]


def test_the_pin_sees_a_change_of_seed():
    assert play_hash("puct", seed=12) != PINNED["puct"]


if __name__ == "__main__":  # print fresh pins
    for case in sorted(CASES):
        print(f'    "{case}": "{play_hash(case)}",', file=sys.stdout)
