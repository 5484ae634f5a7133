"""The match a candidate must win to replace a shipped network (arena.head_to_head), read from
the files a real arena writes."""

from __future__ import annotations

import shutil

import pytest

from arena import head_to_head as h2h
from arena.arena import run_arena
from arena.config import ArenaConfig, ArenaError
from models import shipped
from models.gnn import build_model
from search.checkpoint import save_checkpoint


@pytest.fixture(scope="module")
def match(tmp_path_factory):
    """Two games of the shipped network against an untrained one, 64 simulations each."""
    root = tmp_path_factory.mktemp("h2h")
    strong = shutil.copy(shipped.CHECKPOINT, root / "strong.pt")
    weak = save_checkpoint(root / "weak.pt", build_model("tiny"))  # untrained weights
    specs = (f"alphazero:ckpt={strong},sims=64,device=cpu", f"alphazero:ckpt={weak},sims=64,device=cpu")
    report = run_arena(ArenaConfig("gauntlet", specs, games_per_pairing=2, seed=1, ply_cap=120,
                                   openings="random:4"), root / "match", progress=False)
    (_, _, stats), = report.pairings
    return root, stats


def test_a_won_match_is_the_cards_section_and_a_lost_or_short_one_is_refused(match, monkeypatch):
    root, stats = match
    assert stats.games == 2 and stats.score > 0.5  # the shipped network beats random weights
    with pytest.raises(ArenaError, match="it needs more than half of at least 200 games"):
        h2h.head_to_head(root / "match", root / "strong.pt", root / "weak.pt", "Base")
    monkeypatch.setattr(h2h, "MIN_GAMES", 2)
    section = h2h.head_to_head(root / "match", root / "strong.pt", root / "weak.pt", "Base")
    row = section["row"]
    assert (row["wins"], row["draws"], row["losses"]) == (stats.wins, stats.draws, stats.losses)
    assert section["sims"] == 64 and section["openings"] == "random:4" and section["seed"] == 1
    with pytest.raises(ArenaError, match="the candidate scored"):  # the other way round
        h2h.head_to_head(root / "match", root / "weak.pt", root / "strong.pt", "Base")


def test_a_match_of_other_networks_or_settings_does_not_count(match, monkeypatch, tmp_path):
    root, _ = match
    monkeypatch.setattr(h2h, "MIN_GAMES", 2)
    other = save_checkpoint(tmp_path / "other.pt", build_model("tiny"))
    with pytest.raises(ArenaError, match="its players are not the candidate and the shipped network"):
        h2h.head_to_head(root / "match", root / "strong.pt", other, "Base")
    with pytest.raises(ArenaError, match="game_type 'Base', not 'Base\\+MLP'"):
        h2h.head_to_head(root / "match", root / "strong.pt", root / "weak.pt", "Base+MLP")
    with pytest.raises(ArenaError, match="holds no finished arena"):
        h2h.head_to_head(tmp_path, root / "strong.pt", root / "weak.pt", "Base")
    command = h2h.match_command(root / "strong.pt", root / "weak.pt", "Base")
    assert command.startswith("hive-arena sprt 'alphazero:ckpt=") and "sims=64" in command
