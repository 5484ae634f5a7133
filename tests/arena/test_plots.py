"""``hive-arena plot``: one rating scale, checkpoints by step, copies of checkpoints placed or left out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.plot import checkpoint_step, plot_ratings, rating_plot_data, read_ratings

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
RUN = "runs/smoke"


def az(ckpt: str, sims: int = 8, extra: str = "") -> str:
    return f"alphazero:ckpt={ckpt},sims={sims},device=cpu{extra}"


Row = tuple[str, float | None, float | None, float | None]


def summary(root: Path, folder: str, anchor: str, rows: list[Row]) -> Path:
    """A results directory with only a ``summary.json`` (the shape ``arena.report`` writes)."""
    path = root / folder
    path.mkdir(parents=True)
    ratings = [{"player": p.split(",")[0][-20:], "spec": p, "elo": e, "elo_lo": lo, "elo_hi": hi}
               for p, e, lo, hi in rows]
    (path / "summary.json").write_text(json.dumps({"anchor": anchor, "ratings": ratings}))
    return path


@pytest.fixture
def arena_dirs(tmp_path: Path) -> list[Path]:
    """The issue's mix: a round robin anchored on random, an SPRT anchored on alphabeta, the
    evaluations of a run (frozen copies, best, final) and a sweep of checkpoints."""
    run = tmp_path / RUN
    (run / "eval").mkdir(parents=True)
    (run / "eval" / "ledger.json").write_text(json.dumps({"version": 1, "evaluations": [
        {"step": 10, "checkpoint": "aaaaaaaaaaaa", "state": "done"},
        {"step": 20, "checkpoint": "bbbbbbbbbbbb", "state": "done"}]}))
    frozen = f"{run}/eval/frozen"
    return [
        summary(tmp_path, "roundrobin-1", "random", [
            ("random", 0.0, 0.0, 0.0), ("greedy", 419.0, 380.0, 458.0),
            ("alphabeta:depth=2", 552.0, 500.0, 604.0)]),
        summary(tmp_path, "sprt-1", "alphabeta:depth=2", [
            ("greedy", -133.0, -300.0, 34.0), ("alphabeta:depth=2", 0.0, 0.0, 0.0)]),
        summary(tmp_path, "step_10", "random", [
            (az(f"{frozen}/ckpt_00000010_aaaaaaaaaaaa.pt"), 40.0, -60.0, 140.0), ("random", 0.0, 0.0, 0.0)]),
        summary(tmp_path, "step_20", "random", [
            (az(f"{frozen}/ckpt_00000020_bbbbbbbbbbbb.pt"), 90.0, -20.0, 200.0), ("random", 0.0, 0.0, 0.0),
            (az(f"{frozen}/best_aaaaaaaaaaaa.pt"), 45.0, -30.0, 120.0)]),
        summary(tmp_path, "final", "random", [
            (az(f"{run}/checkpoints/final.pt", 16), 100.0, 0.0, 200.0), ("random", 0.0, 0.0, 0.0),
            (az(f"{run}/checkpoints/best_before_00000020.pt"), 50.0, -50.0, 150.0)]),
        summary(tmp_path, "sweep", "random", [
            ("random", 0.0, 0.0, 0.0),
            (az(f"{run}/checkpoints/ckpt_00000030.pt", 8, ",name=late"), 150.0, 60.0, 240.0),
            (az(f"{run}/checkpoints/ckpt_00000010.pt"), 30.0, 0.0, 60.0),
            (az(f"{run}/checkpoints/best.pt"), 1, 0, 2)]),
    ]


def test_one_scale_checkpoints_by_step_copies_placed_or_left_out(arena_dirs, tmp_path):
    data = rating_plot_data(arena_dirs)
    assert data.anchor == "random"
    base = {r.player: r for r in data.baselines}
    assert set(base) == {"random", "greedy", "alphabeta:depth=2"}  # no checkpoint copy became a line
    # greedy: +419 from the round robin (narrower) wins over the SPRT's, which was re-anchored
    assert base["greedy"].elo == 419.0 and base["alphabeta:depth=2"].elo == 552.0
    assert any("sprt-1" in n and "alphabeta:depth=2" in n and "+552" in n for n in data.notes)
    # one series for the run: frozen copies and checkpoints joined, best_<hash> at its step,
    # name= and device= not splitting it; ordered by step
    assert list(data.series) == [f"az {RUN} sims=8"]
    points = data.series[f"az {RUN} sims=8"]
    assert [s for s, _ in points] == [10, 20, 30] == data.steps
    assert points[0][1].elo == 30.0  # step 10: the narrowest of the frozen copy, best, the sweep
    assert [r.elo for _, r in points[1:]] == [90.0, 150.0]
    assert data.notes[-1] == "left out (no training step known): az@best, az@best_before_20, az@final"


def test_re_anchoring_shifts_and_widens(tmp_path):
    a = summary(tmp_path, "a", "random", [("random", 0.0, 0.0, 0.0), ("greedy", 400.0, 360.0, 440.0)])
    b = summary(tmp_path, "b", "greedy", [("greedy", 0.0, 0.0, 0.0),
                                           ("alphabeta:depth=1", 100.0, 70.0, 130.0)])
    ratings, anchors, notes = read_ratings([a, b])
    ab = next(r for r in ratings if r.player == "alphabeta:depth=1")
    assert anchors == ["random", "greedy"] and ab.elo == 500.0
    assert ab.lo == pytest.approx(500 - 50) and ab.hi == pytest.approx(500 + 50)  # 30 and 40 in quadrature
    assert notes == ["b (anchor greedy) re-anchored through greedy: +400"]


def test_anchors_without_a_shared_player_are_refused_in_one_line(tmp_path, capsys):
    a = summary(tmp_path, "a", "random", [("random", 0.0, 0.0, 0.0), ("greedy", 400.0, 360.0, 440.0)])
    b = summary(tmp_path, "b", "alphabeta:depth=2", [("alphabeta:depth=2", 0.0, 0.0, 0.0),
                                                     ("alphabeta:depth=3", 90.0, 40.0, 140.0)])
    with pytest.raises(ValueError, match="anchor alphabeta:depth=2"):
        rating_plot_data([a, b])
    from arena.cli import main

    assert main(["plot", str(a), str(b), "--out", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("hive-arena: error: ") and err.count("\n") == 1 and "random" in err
    assert not (tmp_path / "x.png").exists()


def test_checkpoint_step_of_copies():
    assert checkpoint_step(az("r/eval/frozen/ckpt_00000020_0a1b2c3d4e59.pt")) == (
        "alphazero:ckpt=r/checkpoints/ckpt_*.pt,sims=8", 20)
    assert checkpoint_step(az("r/checkpoints/best_before_00000020.pt")) is None
    assert checkpoint_step(az("r/checkpoints/final.pt")) is None
    assert checkpoint_step(az("r/checkpoints/ckpt_00000020.pt", extra=",name=x")) == (
        "alphazero:ckpt=r/checkpoints/ckpt_*.pt,sims=8", 20)


def test_plot_png(arena_dirs, tmp_path):
    out = plot_ratings(arena_dirs, tmp_path / "plots" / "ratings.png")
    assert out.read_bytes().startswith(PNG_MAGIC)


def test_unrated_players_are_not_drawn_and_named_in_a_note(tmp_path):
    """The plot of a ladder once drew its unrated rungs' +0 lines under random's."""
    from arena.config import ArenaConfig
    from arena.report import build_report, write_report

    from helpers import match_records

    config = ArenaConfig("gauntlet", ("greedy", "random", "alphabeta:depth=1", "alphabeta:depth=2"), 4)
    records = match_records(*((0, j, 4, 0, 0) for j in (1, 2, 3)))
    write_report(build_report(config, tmp_path, 1, records, 12))
    data = rating_plot_data([tmp_path])
    assert [r.player for r in data.baselines] == ["greedy", "random"]
    assert data.notes == ["left out (unrated: no games bound their Elo): "
                          "alphabeta:depth=1, alphabeta:depth=2"]
    assert [r.games for r in data.baselines] == [12, 4]


def test_the_plot_shows_the_games_behind_each_point(tmp_path):
    from arena.plot import baseline_label, rating_figure

    d = summary(tmp_path, "a", "random", [
        ("random", 0.0, 0.0, 0.0), ("greedy", 419.0, 380.0, 458.0),
        (az(f"{RUN}/checkpoints/ckpt_00000010.pt"), 30.0, 0.0, 60.0),
        (az(f"{RUN}/checkpoints/ckpt_00000020.pt"), 90.0, 20.0, 160.0)])
    data = json.loads((d / "summary.json").read_text())
    for row, games in zip(data["ratings"], (60, 40, 13, 29), strict=True):
        row["games"] = games
    (d / "summary.json").write_text(json.dumps(data))
    plot = rating_plot_data([d])
    (points,) = plot.series.values()
    assert [(s, r.games) for s, r in points] == [(10, 13), (20, 29)]
    assert baseline_label(plot.baselines[0]) == "greedy +419 (40 games)"
    ax = rating_figure([d]).axes[0]
    assert sorted(t.get_text() for t in ax.texts) == ["13", "29"]  # beside each point
    assert "random +0 (60 games)" in ax.get_legend_handles_labels()[1]
    assert "numbers: games" in ax.get_ylabel()
