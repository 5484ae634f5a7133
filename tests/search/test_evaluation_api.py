"""``Network.load(path | "shipped").evaluate(game)`` (search.evaluation): the numbers of the
five-call path (load_model, observe, adapt + trim, to_tensors, the model's heads) on real
positions, batch equal to single, the shipped networks by name, bad input refused in one line."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from hive_env import Game
from hive_env.encode import MAX_LEGAL, observe_batch_with_moves
from models import shipped
from models.gnn import expected_value
from search import Evaluation, EvaluationError, Network
from search.checkpoint import CheckpointError, load_model, read_checkpoint
from search.network import adapt_obs, to_tensors, trim

from helpers import MIDGAME, WIN_IN_ONE, WIN_IN_ONE_MOVE, real_game_positions

TOL = 1e-6


@pytest.fixture(scope="module")
def base() -> Network:
    return Network.load("shipped")


def five_calls(path, game: Game) -> tuple[tuple[float, float, float], float, dict[str, float]]:
    """The path the API replaces: (White win, draw, Black win), the side to move's value, and
    each legal move's prior by MoveString."""
    model, _ = load_model(path, "cpu")
    obs, slot_moves = observe_batch_with_moves(game.board[None], MAX_LEGAL)
    with torch.no_grad():
        inputs = to_tensors(trim(adapt_obs(obs, model.encoding_version)), torch.device("cpu"))
        logits, wdl_logits = model(inputs)
    win, draw, loss = torch.softmax(wdl_logits[0].double(), -1).tolist()
    value = float(expected_value(wdl_logits.float())[0])
    n = int(obs["n_legal"][0])
    priors = torch.softmax(logits[0, :n].double(), -1).tolist()
    moves = {game.move_string(int(m)): p for m, p in zip(slot_moves[0, :n], priors, strict=True)}
    white = game.side_to_move == 0
    return ((win, draw, loss) if white else (loss, draw, win)), value, moves


@pytest.mark.parametrize("game_type", ["Base", "Base+MLP"])
def test_evaluate_gives_the_numbers_of_the_five_call_path_on_real_positions(game_type):
    path = shipped.network(game_type).checkpoint
    network = Network.load(f"shipped:{game_type}")
    # the shipped network's own encoding (observations adapted for an older one)
    assert network.model.encoding_version == read_checkpoint(path)["encoding"]["version"]
    positions = real_game_positions(game_type, every=9)
    assert len(positions) >= 4 and {p.side_to_move for p in positions} == {0, 1}
    for game in positions:
        before = game.game_string()
        ev = network.evaluate(game)
        assert game.game_string() == before
        white_wdl, value, priors = five_calls(path, game)
        np.testing.assert_allclose((ev.white, ev.draw, ev.black), white_wdl, atol=TOL)
        assert ev.value == pytest.approx(value, abs=TOL)
        assert ev.score == pytest.approx((1 + value) / 2, abs=TOL)
        assert ev.side_to_move == ("white" if game.side_to_move == 0 else "black")
        assert set(ev.priors) == set(priors) == set(game.legal_move_strings())
        for move, p in ev.priors.items():
            assert p == pytest.approx(priors[move], abs=TOL)
        shown = list(ev.priors.values())
        assert shown == sorted(shown, reverse=True) and sum(shown) == pytest.approx(1.0)
        assert list(ev.move_priors.values()) == shown and ev.best == next(iter(ev.priors))
        assert sum(ev.wdl) == pytest.approx(1.0) and ev.wdl[0] == (ev.white if ev.side_to_move == "white"
                                                                   else ev.black)


def test_evaluate_many_equals_one_call_each_in_order_across_game_types(base, monkeypatch):
    positions = real_game_positions("Base", every=7)
    many = base.evaluate_many(positions)
    assert [type(e) for e in many] == [Evaluation] * len(positions)
    again = base.evaluate(positions[1])
    assert again == base.evaluate(positions[1]) and hash(again) == hash(base.evaluate(positions[1]))
    monkeypatch.setattr("search.evaluation.EVAL_BATCH", 3)  # several forward passes
    for chunked, single, game in zip(base.evaluate_many(positions), many, positions, strict=True):
        one = base.evaluate(game)
        for got in (chunked, single):
            assert got.side_to_move == one.side_to_move and list(got.priors) == list(one.priors)
            np.testing.assert_allclose((got.white, got.draw, got.black), (one.white, one.draw, one.black),
                                       atol=TOL)
            np.testing.assert_allclose(list(got.priors.values()), list(one.priors.values()), atol=TOL)
    anything = Network(base.model, base.evaluator)  # no game type known: every type, batched by type
    mixed = [Game("Base+MLP"), positions[3], Game.from_string(MIDGAME)]
    evs = anything.evaluate_many(mixed)
    assert [len(e.priors) for e in evs] == [len(g.legal_moves()) for g in mixed]
    assert anything.evaluate_many([]) == []


def test_the_shipped_networks_load_by_name(base, unshipped):
    assert (base.name, base.game_type) == ("base.pt", "Base")
    game = Game.from_string(WIN_IN_ONE)
    ev = base.evaluate(game)
    assert WIN_IN_ONE_MOVE in ev.priors
    game.play(ev.best)  # a key is a MoveString the game takes
    mlp = Network.load("shipped:Base+MLP")
    assert (mlp.name, mlp.game_type) == ("base_mlp.pt", "Base+MLP")
    by_path = Network.load(shipped.CHECKPOINT)
    assert by_path.game_type == "Base"  # a shipped file by its path: its type from the shipped table
    with open(shipped.CHECKPOINT, "rb") as f:  # a file the caller opened (hive-web checks it so)
        opened = Network.load(f)
    assert (opened.name, opened.game_type) == ("base.pt", "Base")
    assert opened.evaluate(Game.from_string(MIDGAME)) == by_path.evaluate(Game.from_string(MIDGAME))
    assert Network.load("shipped:Base+M").game_type == "Base+M"  # every type has one
    unshipped("Base+M")
    with pytest.raises(CheckpointError, match=r"^no network is shipped for Base\+M \(shipped: Base, "):
        Network.load("shipped:Base+M")
    with pytest.raises(CheckpointError, match="no checkpoint at"):
        Network.load("no/such/file.pt")


def test_bad_input_is_refused_in_one_line(base, unshipped):
    over = Game.from_string(WIN_IN_ONE)
    over.play(WIN_IN_ONE_MOVE)
    cases = [
        ([over], r"^the game is over \(WhiteWins\): there is no move to evaluate$"),
        ([Game("Base+MLP")],
         r"^base\.pt learnt Base games, not Base\+MLP: use Network\.load\('shipped:Base\+MLP'\)$"),
        ([Game("Base+L")],
         r"^base\.pt learnt Base games, not Base\+L: use Network\.load\('shipped:Base\+L'\)$"),
        (["Base;NotStarted;White[1]"], r"^evaluate takes a hive_env\.Game, not str \(Game\.from_string"),
        ([Game("Base"), over], r"^game 1: the game is over"),
    ]
    for games, message in cases:
        with pytest.raises(EvaluationError, match=message) as info:
            base.evaluate_many(games) if len(games) > 1 else base.evaluate(games[0])
        assert "\n" not in str(info.value)
    unshipped("Base+L")  # a type without a shipped network: train one
    with pytest.raises(EvaluationError, match=r"^base\.pt learnt Base games, not Base\+L: use a network tr"):
        base.evaluate(Game("Base+L"))
    assert isinstance(EvaluationError("x"), ValueError)


def test_the_network_is_one_class_wherever_it_is_imported():
    import search.evaluation
    import search.review

    assert search.review.Network is search.evaluation.Network is Network


def test_a_review_reports_the_apis_numbers_and_refuses_another_game_type_first(base):
    from search.review import review_game

    game = Game.from_string(MIDGAME)
    review = review_game(game, base, sims=4)
    replay = Game("Base")
    for ply, move in zip(review.plies, game.moves, strict=True):
        ev = base.evaluate(replay)
        np.testing.assert_allclose(ply.white_wdl, (ev.white, ev.draw, ev.black), atol=TOL)  # a batch of all
        replay.play(int(move))
    mlp = Game("Base+MLP")
    mlp.play("wS1")
    calls = []
    with pytest.raises(EvaluationError, match=r"^base\.pt learnt Base games, not Base\+MLP"):
        review_game(mlp, base, sims=4, progress=calls.append)
    assert calls == []  # refused before any search
