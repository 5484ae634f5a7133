"""``hive-arena compare``: ladders side by side (an ablation's arms), statistics over seeds
(Welch t intervals), sweep directories, refusals in one line."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from arena.cli import main
from arena.ladder import LadderResult, write_ladder
from arena.ladder_plot import (
    BETTER,
    FEW_SEEDS,
    NO_DIFFERENCE,
    WORSE,
    compare_data,
    ladder_figure,
    plot_ladders,
)

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
    assert [a.elos for a in data.arms] == [[-280.0], [-140.0]]
    assert (data.arms[1].ladders[0].lo, data.arms[1].ladders[0].hi) == (-200.0, -80.0)
    assert data.arms[0].scores("greedy").draws == 48 and data.arms[0].scores("alphabeta:depth=1") is None
    # one seed an arm: no interval over seeds, and the statistics say so
    assert [s.verdict for s in data.stats] == ["reference", FEW_SEEDS]
    assert data.stats[1].diff == 140.0 and data.stats[1].diff_lo is None and data.stats[1].elo_sd is None
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


# ----- across seeds -----------------------------------------------------------------------------
def seeds(root: Path, arm: str, elos: list[float]) -> list[Path]:
    """One ladder directory per seed of ``arm``, with these Elos."""
    return [ladder_dir(root, f"{arm}-{k}", f"alphazero:ckpt=runs/{arm}{k}/final.pt", elo,
                       {"greedy": score(6, 2, 2), ANCHOR: score(4, 2, 4)}) for k, elo in enumerate(elos)]


@pytest.fixture
def seeded(tmp_path: Path) -> tuple[list[Path], list[str]]:
    arms = {"puct": [0.0, 10.0, 20.0], "gumbel": [30.0, 40.0, 50.0], "weak": [-50.0, -40.0, -30.0],
            "same": [10.0, 20.0, 30.0]}
    dirs, labels = [], []
    for arm, elos in arms.items():
        dirs += seeds(tmp_path, arm, elos)
        labels += [arm] * len(elos)
    return dirs, labels


def test_statistics_over_seeds_with_known_answers(seeded):
    data = compare_data(*seeded)
    assert [a.label for a in data.arms] == ["puct", "gumbel", "weak", "same"]  # first appearance
    puct, gumbel, weak, same = data.stats
    assert (puct.seeds, puct.elo_mean, puct.elo_sd, puct.elos) == (3, 10.0, 10.0, [0.0, 10.0, 20.0])
    assert puct.verdict == "reference" and puct.diff is None
    half = 2.776445 * math.sqrt(200 / 3)
    assert (gumbel.diff, gumbel.diff_lo, gumbel.diff_hi) == pytest.approx((30, 30 - half, 30 + half),
                                                                          abs=1e-3)
    assert gumbel.verdict == BETTER
    assert (weak.diff, weak.diff_hi) == pytest.approx((-50, -50 + half), abs=1e-3) and weak.verdict == WORSE
    assert same.diff == 10 and same.diff_lo < 0 < same.diff_hi and same.verdict == NO_DIFFERENCE
    # the left panel pools each arm's games against an opponent: 3 seeds of 6-2-2
    st = data.arms[0].scores("greedy")
    assert (st.wins, st.draws, st.losses) == (18, 6, 6)


def test_one_seed_in_either_arm_gives_no_interval(tmp_path):
    dirs = seeds(tmp_path, "a", [0.0, 10.0]) + seeds(tmp_path, "b", [100.0])
    a, b = compare_data(dirs, ["a", "a", "b"]).stats
    assert (b.seeds, b.elo_sd, b.diff, b.diff_lo, b.diff_hi) == (1, None, 95.0, None, None)
    assert b.verdict == FEW_SEEDS and a.elo_sd == pytest.approx(7.0711, abs=1e-4)


def test_an_unrated_seed_is_left_out_with_a_note(tmp_path):
    dirs = seeds(tmp_path, "a", [0.0, 10.0, math.nan]) + seeds(tmp_path, "b", [20.0, 30.0])
    data = compare_data(dirs, ["a", "a", "a", "b", "b"])
    assert data.stats[0].seeds == 2 and data.stats[0].elos == [0.0, 10.0]
    assert data.notes == [f"a: unrated 1 of 3 ladders, left out (no Elo relative to {ANCHOR})"]


def test_compare_prints_a_table_and_writes_json_and_png(seeded, tmp_path, capsys):
    dirs, labels = seeded
    out, stats = tmp_path / "cmp.png", tmp_path / "out" / "stats.json"
    argv = ["compare", *map(str, dirs), "--labels", *labels, "--out", str(out), "--json", str(stats)]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("arm ") and "verdict" in lines[0]
    rows = {line.split()[0]: line for line in lines[1:5]}
    assert rows["gumbel"].split()[1:4] == ["3", "+40", "10"] and rows["gumbel"].endswith(BETTER)
    assert "+30 [+7, +53]" in rows["gumbel"] and rows["weak"].endswith(WORSE)
    assert rows["same"].endswith(NO_DIFFERENCE) and "reference" in rows["puct"]
    assert f"wrote {out}" in lines and f"wrote {stats}" in lines and out.read_bytes()[:8] == PNG_MAGIC
    body = json.loads(stats.read_text())
    assert body["anchor"] == ANCHOR and body["reference"] == "puct"
    assert [a["label"] for a in body["arms"]] == ["puct", "gumbel", "weak", "same"]
    keys = {"label", "seeds", "elo_mean", "elo_sd", "elos", "diff", "diff_lo", "diff_hi", "verdict"}
    assert all(set(a) == keys for a in body["arms"])
    gumbel = body["arms"][1]
    assert (gumbel["seeds"], gumbel["elo_mean"], gumbel["elo_sd"], gumbel["elos"]) == (3, 40.0, 10.0,
                                                                                      [30.0, 40.0, 50.0])
    assert (gumbel["diff"], gumbel["diff_lo"], gumbel["diff_hi"]) == (30.0, 7.33, 52.67)
    assert body["arms"][0]["diff"] is None and body["arms"][0]["verdict"] == "reference"


def test_the_png_draws_the_seeds_and_their_mean(seeded):
    fig = ladder_figure(*seeded)
    left, right = fig.axes[:2]
    assert [t.get_text() for t in left.get_yticklabels()] == [f"{a}\n3 seeds" for a in
                                                             ("puct", "gumbel", "weak", "same")]
    texts = [t.get_text() for t in right.texts]
    assert texts[0] == "+10 [-15, +35] mean of 3"  # 10 +- 4.303 * 10 / sqrt(3)
    assert "diff +30 [+7, +53]: better" in texts and "diff -50 [-73, -27]: worse" in texts
    seed_points = [line for line in right.get_lines() if len(line.get_xdata()) == 3]
    assert sorted(list(seed_points[0].get_xdata())) == [0.0, 10.0, 20.0]


def sweep(root: Path, jobs: list[tuple[str, int, float | None]], absolute: bool = False) -> Path:
    """A sweep directory: ``sweep.json`` and, per job with an Elo, ``<run_dir>/ladder/ladder.json``."""
    sweep_dir = root / "sweep"
    sweep_dir.mkdir()
    entries = []
    for k, (arm, seed, elo) in enumerate(jobs):
        run_dir = sweep_dir / str(k)
        run_dir.mkdir()
        if elo is not None:
            ladder_dir(run_dir, "ladder", f"alphazero:ckpt={run_dir}/final.pt", elo,
                       {"greedy": score(6, 2, 2), ANCHOR: score(4, 2, 4)})
        entries.append({"job": k, "arm": arm, "seed": seed, "overrides": [arm, f"seed={seed}"],
                        "run_dir": str(run_dir) if absolute else str(k), "status": "done"})
    body = {"sweep_dir": str(sweep_dir), "arms": ["search=puct", "search=gumbel"], "jobs": entries}
    (sweep_dir / "sweep.json").write_text(json.dumps(body))
    return sweep_dir


@pytest.mark.parametrize("absolute", [False, True])
def test_a_sweep_directory_gives_its_arms_and_skips_jobs_without_a_ladder(tmp_path, capsys, absolute):
    jobs = [("search=gumbel", 1, 30.0), ("search=puct", 1, 0.0), ("search=gumbel", 2, 50.0),
            ("search=puct", 2, 20.0), ("search=puct", 3, None), ("search=gumbel", 3, 40.0)]
    sweep_dir = sweep(tmp_path, jobs, absolute)
    stats = tmp_path / "stats.json"
    assert main(["compare", str(sweep_dir), "--out", str(tmp_path / "s.png"), "--json", str(stats)]) == 0
    err = capsys.readouterr().err.strip()
    assert err == ("hive-arena compare: warning: no ladder.json yet, skipped 1 jobs: "
                   "job 4 (search=puct, seed 3)")
    arms = json.loads(stats.read_text())["arms"]
    assert [(a["label"], a["elos"]) for a in arms] == [("search=puct", [0.0, 20.0]),
                                                       ("search=gumbel", [30.0, 50.0, 40.0])]
    assert arms[1]["diff"] == 30.0 and arms[1]["verdict"] in (BETTER, NO_DIFFERENCE)
    # --labels renames the sweep's arms, in sweep.json's order
    assert main(["compare", str(sweep_dir), "--labels", "P", "G", "--out", str(tmp_path / "s.png"),
                 "--json", str(stats)]) == 0
    assert [a["label"] for a in json.loads(stats.read_text())["arms"]] == ["P", "G"]


def test_an_old_ladder_json_without_the_pooled_fields_still_reads(tmp_path):
    old = tmp_path / "old"
    old.mkdir()
    (old / "ladder.json").write_text(json.dumps({
        "summary": f"ladder: x  Elo vs {ANCHOR}: -100 [-160, -40] (200 games, 100 vs {ANCHOR})",
        "player": "alphazero:ckpt=runs/old/final.pt", "anchor": ANCHOR, "elo": -100.0, "lo": -160.0,
        "hi": -40.0, "rated": True, "games": 200, "anchor_games": 100, "anchor_note": None,
        "equal_time": None, "complete": True, "prior_draws": 1.0,
        "scores": {"greedy": score(60, 10, 30), ANCHOR: score(30, 10, 60)}, "per_move": {}}))
    new = seeds(tmp_path, "new", [-50.0])[0]
    data = compare_data([old, new], ["old", "new"])
    assert data.stats[0].elos == [-100.0] and data.arms[0].ladders[0].rating == "anchor"
    assert data.notes == []  # both rest on the games against the anchor (the fixture's default)


@pytest.mark.parametrize("case, message", [
    ("no ladder", "no ladder.json"),
    ("labels", "2 labels for 3 ladders"),
    ("sweep and more", "a sweep directory comes alone"),
    ("bad sweep", "not a sweep's jobs"),
    ("empty sweep", "no job of the sweep has a ladder.json yet"),
    ("sweep labels", "3 labels for 2 arms of the sweep"),
])
def test_bad_compare_inputs_are_one_line_and_exit_2(tmp_path, capsys, case, message):
    dirs = seeds(tmp_path, "a", [0.0, 10.0, 20.0])
    if case == "no ladder":
        (tmp_path / "empty").mkdir()
        argv = [str(dirs[0]), str(tmp_path / "empty")]
    elif case == "labels":
        argv = [*map(str, dirs), "--labels", "a", "b"]
    elif case == "sweep and more":
        argv = [str(sweep(tmp_path, [("search=puct", 1, 0.0)])), str(dirs[0])]
    elif case == "bad sweep":
        (tmp_path / "bad").mkdir()
        (tmp_path / "bad" / "sweep.json").write_text('{"jobs": [{"run_dir": "x"}]}')
        argv = [str(tmp_path / "bad")]
    elif case == "empty sweep":
        argv = [str(sweep(tmp_path, [("search=puct", 1, None)]))]
    else:
        argv = [str(sweep(tmp_path, [("search=puct", 1, 0.0)])), "--labels", "a", "b", "c"]
    out = tmp_path / "never.png"
    assert main(["compare", *argv, "--out", str(out), "--json", str(tmp_path / "never.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("hive-arena: error: ") and message in err[0], err
    assert not out.exists() and not (tmp_path / "never.json").exists()


def test_arms_that_won_every_game_against_a_rung_still_plot(tmp_path):
    """An arm's summed score of 100% (every seed won every game against random): the interval's
    bounds, computed in floating point, may fall a hair inside the score; the bars stay drawn."""
    dirs = [ladder_dir(tmp_path, f"s{k}", f"alphazero:ckpt=runs/s{k}/final.pt", 400.0 + 50 * k,
                       {"random": score(40, 0, 0), ANCHOR: score(35, 5, 0)}) for k in range(3)]
    fig = ladder_figure(dirs, ["all wins"] * 3)
    assert fig.axes[0].get_yticklabels()[0].get_text() == "all wins\n3 seeds"
