"""``hive-arena compare``: ladders side by side (an ablation's arms), refusals in one line."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from arena.cli import main
from arena.ladder import LadderResult, write_ladder
from arena.ladder_plot import compare_data, ladder_figure, plot_ladders

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
ANCHOR = "alphabeta:depth=2"


def score(wins: int, draws: int, losses: int) -> dict:
    games = wins + draws + losses
    s = (wins + draws / 2) / games
    return {"games": games, "wins": wins, "draws": draws, "losses": losses, "score": s,
            "score_lo": max(0.0, s - 0.1), "score_hi": min(1.0, s + 0.1), "elo": None, "elo_lo": None,
            "elo_hi": None}


def ladder_dir(root: Path, name: str, player: str, elo: float, opponents: dict[str, dict],
               anchor: str = ANCHOR) -> Path:
    """A ladder's results directory as ``hive-arena ladder`` writes it (``write_ladder``)."""
    out = root / name
    out.mkdir()
    anchor_games = opponents[anchor]["games"] if anchor in opponents else 0
    games = sum(s["games"] for s in opponents.values())
    result = LadderResult(player, anchor, elo, elo - 60, elo + 60, games, anchor_games, scores=opponents)
    write_ladder(result, out)
    return out


@pytest.fixture
def arms(tmp_path: Path) -> list[Path]:
    return [
        ladder_dir(tmp_path, "base", "alphazero:ckpt=runs/a/final.pt,sims=64", -280.0,
                   {"greedy": score(7, 48, 45), ANCHOR: score(2, 28, 70)}),
        ladder_dir(tmp_path, "gumbel", "alphazero:ckpt=runs/b/final.pt,sims=64", -140.0,
                   {"greedy": score(65, 57, 78), "alphabeta:depth=1": score(59, 65, 76),
                    ANCHOR: score(38, 47, 115)}),
    ]


def test_arms_in_order_with_their_scores_elo_and_every_opponent(arms):
    data = compare_data(arms, ["baseline", "gumbel 16"])
    assert data.anchor == ANCHOR
    assert [a.label for a in data.arms] == ["baseline", "gumbel 16"]
    assert [a.elo for a in data.arms] == [-280.0, -140.0]
    assert (data.arms[1].lo, data.arms[1].hi) == (-200.0, -80.0)
    assert data.arms[0].scores["greedy"]["draws"] == 48
    assert data.opponents == ["greedy", ANCHOR, "alphabeta:depth=1"]  # the union, first seen first
    assert data.notes == []
    default = compare_data(arms)  # the players' names, told apart although both are final.pt
    assert len({a.label for a in default.arms}) == 2 and all(a.label for a in default.arms)


def test_the_png_draws_one_elo_point_per_rated_arm(arms, tmp_path):
    unrated = ladder_dir(tmp_path, "unrated", "alphazero:ckpt=runs/c/final.pt", math.nan,
                         {"greedy": score(1, 0, 1)})
    data = compare_data([*arms, unrated], ["a", "b", "c"])
    assert data.notes == [f"c: unrated (no Elo relative to {ANCHOR})"]
    fig = ladder_figure([*arms, unrated], ["a", "b", "c"])
    left, right = fig.axes[:2]
    assert [t.get_text() for t in left.get_yticklabels()] == ["a", "b", "c"]
    assert [t.get_text() for t in right.texts] == ["-280 [-340, -220]", "-140 [-200, -80]"]
    out = plot_ladders([*arms, unrated], tmp_path / "plots" / "ladders.png", ["a", "b", "c"])
    assert out.read_bytes()[:8] == PNG_MAGIC


@pytest.mark.parametrize("case, message", [
    ("missing", "no ladder.json"),
    ("anchors", "different anchors"),
    ("labels", "1 labels for 2 ladders"),
])
def test_refusals_are_one_line_and_exit_2(arms, tmp_path, capsys, case, message):
    if case == "missing":
        argv = ["compare", str(arms[0]), str(tmp_path / "nothing")]
    elif case == "anchors":
        other = ladder_dir(tmp_path, "other", "alphazero:ckpt=x.pt", 10.0, {"random": score(5, 0, 5)},
                           anchor="random")
        argv = ["compare", str(arms[0]), str(other)]
    else:
        argv = ["compare", *map(str, arms), "--labels", "one"]
    out = tmp_path / "never.png"
    assert main([*argv, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and message in err and "Traceback" not in err
    assert not out.exists()


def test_compare_writes_the_png_named_by_out(arms, tmp_path, capsys):
    out = tmp_path / "cmp.png"
    assert main(["compare", *map(str, arms), "--labels", "x", "y", "--out", str(out)]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    assert out.read_bytes()[:8] == PNG_MAGIC
