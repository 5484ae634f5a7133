"""Game records of a network's self-play, one GameString each (the tactics suite's input).

The self-play of training (``training.selfplay``: its root noise and opening temperature), ply cap
300, with a checkpoint or the network shipped with the package, on the CPU.
"""

from __future__ import annotations

from models import shipped
from search.checkpoint import load_model
from search.mcts import SearchConfig
from search.network import make_evaluator

from .selfplay import SelfPlay, SelfPlayConfig

PLY_CAP = 300
"""A self-play game reaching this ply ends (a draw)."""


def selfplay_records(ckpt: str | None, games: int, sims: int, game_type: str, seed: int) -> list[str]:
    """GameStrings of ``games`` self-play games of a checkpoint (the shipped network if None).

    Raises:
        search.checkpoint.CheckpointError: ``ckpt`` is not a usable checkpoint.
    """
    model, _ = load_model(shipped.CHECKPOINT if ckpt is None else ckpt, "cpu")
    play = SelfPlay(SelfPlayConfig(games=games), SearchConfig(sims=sims, leaves_per_tree=4), game_type,
                    PLY_CAP, make_evaluator(model, "cpu"), seed=seed)
    records: list[str] = []
    while len(records) < games:
        records += [g.game_string for g in play.step()]
    return records[:games]
