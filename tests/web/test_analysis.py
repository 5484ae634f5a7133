"""hive-web's analysis (web.analysis.analyse) reports the evaluation API's numbers
(``search.Network.evaluate``), whether it is given the network or its model and evaluator."""

from __future__ import annotations

import pytest

from hive_env import Game
from models import shipped
from web.analysis import ModelCache, analyse

from helpers import MIDGAME


def test_analyse_reports_the_evaluation_apis_win_draw_loss_and_priors():
    cache = ModelCache("cpu")
    network = cache.network(shipped.CHECKPOINT)
    assert cache.network(shipped.CHECKPOINT) is network  # loaded once
    game = Game.from_string(MIDGAME)
    out = analyse(game, network, sims=0)
    assert analyse(game, *cache.get(shipped.CHECKPOINT), 0) == out  # the form web/app.py calls
    ev = network.evaluate(game)
    assert out["wdl"] == {"white": ev.white, "draw": ev.draw, "black": ev.black}
    assert out["side_to_move"] == ev.side_to_move and out["sims"] == 0 and out["search_value"] is None
    assert {r["move"]: r["prior"] for r in out["moves"]} == ev.priors
    assert [r["move"] for r in out["moves"]] == list(ev.priors)  # without a search: by prior
    searched = analyse(game, network, sims=16)
    assert searched["sims"] == 16 and sum(r["share"] for r in searched["moves"]) == pytest.approx(1.0)
    with pytest.raises(TypeError, match="a model and its evaluator"):
        analyse(game, network.model)
