"""Evaluation during training: gauntlets against baselines and the previous best, gating, and
its crash safety (the ledger, evaluations tied to checkpoint content, a damaged best.pt)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from hydra import compose, initialize_config_dir

from arena.ladder import LadderResult
from arena.ratings import pairing_stats
from models.gnn import build_model
from search.checkpoint import load_model
from training import gating
from training.checkpoint import CheckpointStore
from training.config import register_configs, run_config
from training.gating import (
    PROMOTED_TAG,
    EvalState,
    Gatekeeper,
    Ledger,
    LedgerEntry,
    file_hash,
    gauntlet_line,
    gauntlet_scalars,
    promote,
)

CONFIGS = str(Path(__file__).resolve().parents[2] / "configs")


class Recorder:
    """Records TensorBoard scalars (the part of ``training.metrics.Metrics`` gating uses)."""

    def __init__(self):
        self.tags: dict[str, list[tuple[int, float]]] = {}

    def scalar(self, tag, value, step):
        self.tags.setdefault(tag, []).append((step, float(value)))


class FakeTrainer:
    def __init__(self, step: int):
        self.step = step
        self.seconds = self.eval_seconds = 0.0  # the run's clock (clock/* scalars)


class FakeRun:
    def __init__(self, step: int = 0):
        self.metrics = Recorder()
        self.trainer = FakeTrainer(step)


def gatekeeper(tmp_path, gating: str, gate_score: float) -> Gatekeeper:
    overrides = ["experiment=smoke", f"run_dir={tmp_path}", "env.ply_cap=16", "eval.games=2", "eval.sims=2",
                 "eval.opponents=[random]", f"eval.gating={gating}", f"eval.gate_score={gate_score}",
                 "train.keep_checkpoints=10"]
    register_configs()
    with initialize_config_dir(config_dir=CONFIGS, version_base=None):
        cfg = run_config(compose(config_name="train", overrides=overrides))
    return Gatekeeper(cfg, log=lambda *_: None)


def publish(store: CheckpointStore, step: int) -> None:
    torch.manual_seed(step)
    store.publish(step, build_model("tiny"))


@pytest.mark.parametrize("gating,gate_score,promoted", [("none", 0.0, True), ("score", 0.0, True),
                                                        ("score", 1.01, False)])
def test_best_checkpoint_follows_the_gate(tmp_path, gating, gate_score, promoted):
    ev = gatekeeper(tmp_path, gating, gate_score)
    lines: list[str] = []
    ev.log = lines.append
    store = CheckpointStore(tmp_path / "checkpoints")
    run = FakeRun()
    publish(store, 10)
    ev.on_checkpoint(run, 10)  # the first evaluated checkpoint always becomes best
    assert load_model(ev.best)[1]["step"] == 10
    publish(store, 20)
    ev.on_checkpoint(run, 20)
    assert load_model(ev.best)[1]["step"] == (20 if promoted else 10)
    tags = run.metrics.tags
    assert [s for s, _ in tags["eval/score_vs_random"]] == [10, 20]
    assert tags["eval/games_vs_random"] == [(10, 2.0), (20, 2.0)]  # every evaluation, with its games
    assert [s for s, _ in tags["eval/score_vs_best"]] == [20]  # the previous best is an opponent
    assert [s for s, _ in tags["eval/score_vs_best_lo"]] == [s for s, _ in tags["eval/score_vs_best_hi"]]
    assert tags["eval/promoted"][-1] == (20, float(promoted))
    done = ev.ledger.done()
    assert (tmp_path / "eval" / done[20].dir / "ratings.csv").exists()
    assert done[20].promoted == promoted and done[20].rival == done[10].checkpoint
    assert not list(ev.frozen.iterdir())  # frozen copies go once their evaluation is done
    why = " (eval.gating=none: every evaluated checkpoint is)" if gating == "none" else ""
    assert [line for line in lines if "best.pt is now" in line] == \
        [f"step {s}: best.pt is now this checkpoint{why}" for s in ([10, 20] if promoted else [10])]


def game_records(ev: Gatekeeper, entry: LedgerEntry) -> list[dict]:
    lines = (ev.dir / entry.dir / "games.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def test_a_retrained_step_never_reuses_the_old_games(tmp_path):
    ev = gatekeeper(tmp_path, "none", 0.0)
    store = CheckpointStore(tmp_path / "checkpoints")
    run = FakeRun()
    publish(store, 10)
    ev.on_checkpoint(run, 10)
    first = ev.ledger.done()[10]
    torch.manual_seed(99)  # the same step trained again: other weights
    store.publish(10, build_model("tiny"))
    ev.on_checkpoint(run, 10)
    second = ev.ledger.done()[10]
    assert second.checkpoint == file_hash(store.path(10)) != first.checkpoint
    assert second.dir != first.dir
    games = game_records(ev, second)
    assert len(games) == 4  # against random and against the best (the old checkpoint of step 10)
    assert all(second.checkpoint in (g["white"] + g["black"]) for g in games)
    assert len(game_records(ev, first)) == 2  # the old results stay as they were


def test_a_damaged_best_checkpoint_is_ignored_once_and_replaced(tmp_path):
    lines = []
    ev = gatekeeper(tmp_path, "score", 1.01)  # a gate no checkpoint passes against a real best
    ev.log = lines.append
    store = CheckpointStore(tmp_path / "checkpoints")
    run = FakeRun()
    ev.best.write_bytes(b"PK\x03\x04 not a checkpoint")
    publish(store, 10)
    ev.on_checkpoint(run, 10)  # the old code copied the damaged file and crashed in the arena
    assert load_model(ev.best)[1]["step"] == 10
    ev.best.write_bytes(b"damaged again")
    publish(store, 20)
    ev.on_checkpoint(run, 20)
    publish(store, 30)
    ev.on_checkpoint(run, 30)  # best (20) is readable again: the gate applies
    assert load_model(ev.best)[1]["step"] == 20
    assert sum("ignoring best.pt" in line for line in lines) == 1
    assert [s for s, _ in run.metrics.tags["eval/promoted"]] == [10, 20, 30]
    assert not list(store.dir.glob("*.tmp")) and not list(store.dir.glob(".*.tmp"))


def test_an_evaluation_killed_midway_is_finished_by_catch_up(tmp_path, monkeypatch):
    ev = gatekeeper(tmp_path, "none", 0.0)
    store = CheckpointStore(tmp_path / "checkpoints")
    publish(store, 10)
    real_arena = gating.run_arena

    def killed_after_one_game(*args, **kw):
        def kill(record):
            raise KeyboardInterrupt  # a stop after the first game was stored
        return real_arena(*args, **{**kw, "on_record": kill})

    monkeypatch.setattr(gating, "run_arena", killed_after_one_game)
    killed = FakeRun()
    with pytest.raises(KeyboardInterrupt):
        ev.on_checkpoint(killed, 10)
    assert killed.metrics.tags == {}  # logged when decided: the evaluation finished later logs once
    monkeypatch.setattr(gating, "run_arena", real_arena)
    (entry,) = ev.ledger.entries
    assert entry.state == "started"
    fresh = gatekeeper(tmp_path, "none", 0.0)  # the next process
    run = FakeRun(step=10)
    assert fresh.catch_up(run) == 1
    done = fresh.ledger.done()[10]
    assert done.checkpoint == entry.checkpoint
    games = game_records(fresh, done)
    assert len(games) == 2 and len({g["id"] for g in games}) == 2
    assert run.metrics.tags["eval/promoted"] == [(10, 1.0)]
    assert fresh.catch_up(run) == 0  # nothing left to do


def test_catch_up_registers_a_checkpoint_published_but_not_yet_registered(tmp_path):
    ev = gatekeeper(tmp_path, "none", 0.0)
    store = CheckpointStore(tmp_path / "checkpoints")
    publish(store, 10)  # killed right after publishing: no ledger entry
    publish(store, 20)
    run = FakeRun(step=20)
    assert ev.catch_up(run) == 1
    assert set(ev.ledger.done()) == {20}


def test_catch_up_drops_evaluations_of_steps_that_will_be_trained_again(tmp_path):
    ev = gatekeeper(tmp_path, "none", 0.0)
    store = CheckpointStore(tmp_path / "checkpoints")
    publish(store, 10)
    publish(store, 20)
    ev._register(20)
    store.path(20).write_bytes(b"damaged")  # the run resumes from 10 and trains 20 again
    run = FakeRun(step=10)
    assert ev.catch_up(run) == 1  # 10 (the checkpoint resumed from) is evaluated, 20 dropped
    states = {(e.step, e.state) for e in ev.ledger.entries}
    assert states == {(10, "done"), (20, "dropped")}
    assert not list(ev.frozen.iterdir())


def test_an_evaluation_with_the_ladder_plays_its_opponents_and_logs_the_ladder_elo(tmp_path):
    overrides = ["experiment=smoke", f"run_dir={tmp_path}", "env.ply_cap=16", "eval.games=2", "eval.sims=2",
                 "eval.opponents=[random]", "eval.ladder=true", "eval.ladder_depths=[1,2]"]
    register_configs()
    with initialize_config_dir(config_dir=CONFIGS, version_base=None):
        cfg = run_config(compose(config_name="train", overrides=overrides))
    lines = []
    ev = Gatekeeper(cfg, log=lines.append)
    publish(CheckpointStore(tmp_path / "checkpoints"), 10)
    run = FakeRun()
    ev.on_checkpoint(run, 10)
    entry = ev.ledger.done()[10]
    opponents = {g["black"] if g["white_index"] == 0 else g["white"] for g in game_records(ev, entry)}
    assert opponents == {"random", "greedy", "alphabeta:depth=1", "alphabeta:depth=2"}
    tags = run.metrics.tags
    (step, elo), (_, lo), (_, hi) = (tags[f"eval/ladder_elo{t}"][0] for t in ("", "_lo", "_hi"))
    assert step == 10 and lo <= elo <= hi
    ladder = json.loads((ev.dir / entry.dir / "ladder.json").read_text())
    assert ladder["anchor"] == "alphabeta:depth=2" and ladder["elo"] == pytest.approx(elo, abs=0.01)
    # two opponents of one kind are told apart in the tags
    assert set(entry.scores) == {"random", "greedy", "alphabeta_depth_1", "alphabeta_depth_2"}
    assert "eval/score_vs_alphabeta_depth_2" in tags and "eval/elo_vs_random" in tags
    assert any("ladder Elo" in line and "vs alphabeta:depth=2" in line for line in lines)


def test_the_ladder_settings_are_checked_and_off_by_default(tmp_path):
    register_configs()
    with initialize_config_dir(config_dir=CONFIGS, version_base=None):
        for preset in ("smoke", "cpu", "gpu"):
            cfg = run_config(compose(config_name="train", overrides=[f"experiment={preset}", "run_dir=x",
                                                                     "device=cpu"]))
            assert not cfg.eval.ladder and cfg.eval.ladder_depths == (1, 2, 3)
        for value, message in (("[0]", "eval.ladder_depths must be distinct depths >= 1"),
                               ("[1,1]", "eval.ladder_depths must be distinct depths >= 1"),
                               ("[a]", "eval.ladder_depths must be a list of whole numbers")):
            overrides = ["run_dir=x", f"eval.ladder_depths={value}"]
            with pytest.raises(ValueError, match=message):  # a ConfigError naming the setting
                run_config(compose(config_name="train", overrides=overrides))


# ----- the pure parts: the ledger's format, the decision, the tags ------------------------------

LEDGER_V1 = """\
{
 "version": 1,
 "evaluations": [
  {
   "step": 10,
   "checkpoint": "81ea718c5a2c",
   "state": "done",
   "rival": null,
   "dir": "step_00000010_81ea718c5a2c_ade77b",
   "scores": {
    "random": 0.75
   },
   "promoted": true
  },
  {
   "step": 20,
   "checkpoint": "8c9a501e93f5",
   "state": "done",
   "rival": "81ea718c5a2c",
   "dir": "step_00000020_8c9a501e93f5_eb505c",
   "scores": {
    "random": 0.5,
    "best": 0.25
   },
   "promoted": false
  },
  {
   "step": 30,
   "checkpoint": "38df73eaf0e7",
   "state": "due",
   "rival": null
  },
  {
   "step": 40,
   "checkpoint": "fe7d21da5e6f",
   "state": "started",
   "rival": "81ea718c5a2c"
  },
  {
   "step": 50,
   "checkpoint": "a0bd5fe04beb",
   "state": "dropped",
   "rival": null,
   "reason": "the run resumed from step 40; this step is trained again"
  }
 ]
}
"""
"""An ``eval/ledger.json`` as the dict-based gating code (before :class:`LedgerEntry`) wrote it."""


def test_a_ledger_of_version_1_loads_and_is_written_back_byte_identical(tmp_path):
    path = tmp_path / "ledger.json"
    path.write_text(LEDGER_V1)
    warnings = []
    ledger = Ledger(path, log=warnings.append)
    assert not warnings
    assert [(e.step, e.state) for e in ledger.entries] == [
        (10, EvalState.DONE), (20, EvalState.DONE), (30, EvalState.DUE), (40, EvalState.STARTED),
        (50, EvalState.DROPPED)]
    assert [e.step for e in ledger.unfinished()] == [30, 40]
    done = ledger.done()
    assert set(done) == {10, 20} and done[20].promoted is False
    assert done[20].scores == {"random": 0.5, "best": 0.25}
    assert done[20].rival == "81ea718c5a2c" and ledger.entries[4].reason.startswith("the run resumed")
    assert ledger.find(50, "a0bd5fe04beb") is None and ledger.find(30, "38df73eaf0e7") is ledger.entries[2]
    ledger.save()
    assert path.read_text() == LEDGER_V1


def test_a_ledger_entry_goes_through_its_states_in_the_format_of_version_1():
    entry = LedgerEntry(10, "abc")
    assert entry.to_json() == {"step": 10, "checkpoint": "abc", "state": "due", "rival": None}
    entry.state, entry.rival = EvalState.STARTED, "def"
    assert entry.unfinished and entry.to_json()["state"] == "started"
    entry.state, entry.dir, entry.scores, entry.promoted = EvalState.DONE, "step_x", {"random": 1.0}, False
    data = entry.to_json()
    assert list(data) == ["step", "checkpoint", "state", "rival", "dir", "scores", "promoted"]
    assert json.loads(json.dumps(data)) == data and LedgerEntry.from_json(data) == entry
    assert not entry.unfinished


@pytest.mark.parametrize("text", [
    "{not json", '{"version": 1}', '{"evaluations": [{"step": 1}]}',
    '{"evaluations": [{"step": 1, "checkpoint": "a", "state": "lost", "rival": null}]}'])
def test_an_unreadable_ledger_is_warned_about_and_started_anew(tmp_path, text):
    path = tmp_path / "ledger.json"
    path.write_text(text)
    warnings = []
    assert Ledger(path, log=warnings.append).entries == []
    assert len(warnings) == 1 and "is unreadable" in warnings[0] and "starting a new ledger" in warnings[0]


@pytest.mark.parametrize("gating,has_rival,score,decision,promoted", [
    ("none", True, 0.0, None, True),
    ("none", False, None, None, True),
    ("score", False, None, None, True),  # no readable best.pt: the first checkpoint becomes best
    ("score", True, 0.55, None, True),
    ("score", True, 0.5499, None, False),
    ("score", True, None, None, False),
    ("sprt", False, None, None, True),
    ("sprt", True, 1.0, "H1", True),
    ("sprt", True, 1.0, "H0", False),
    ("sprt", True, 1.0, None, False),  # undecided at its most games
])
def test_promotion_follows_the_gating_mode(gating, has_rival, score, decision, promoted):
    assert promote(gating, has_rival, score, 0.55, decision) is promoted


def test_promotion_refuses_an_unknown_mode():
    with pytest.raises(ValueError, match="unknown gating 'elo'"):
        promote("elo", True, 1.0, 0.55, "H1")


def test_the_tensorboard_tags_of_an_evaluation():
    ladder = LadderResult(player="me", anchor="alphabeta:depth=2", elo=35.0, lo=-40.0, hi=110.0,
                          games=8, anchor_games=2)
    stats = {name: pairing_stats(w, d, l) for name, (w, d, l) in
             (("random", (3, 0, 1)), ("alphabeta_depth_2", (1, 0, 3)), ("best", (1, 2, 1)))}
    scalars = gauntlet_scalars(stats, (-12.0, -80.0, 50.0), ladder)
    assert list(scalars) == [f"eval/{kind}_vs_{name}{suffix}" for name in stats
                             for kind, suffix in (("score", ""), ("score", "_lo"), ("score", "_hi"),
                                                  ("games", ""))] + [
        "eval/elo_vs_random", "eval/elo_vs_random_lo", "eval/elo_vs_random_hi",
        "eval/ladder_elo", "eval/ladder_elo_lo", "eval/ladder_elo_hi"]
    assert [scalars[f"eval/score_vs_{n}"] for n in stats] == [0.75, 0.25, 0.5]
    assert [scalars[f"eval/games_vs_{n}"] for n in stats] == [4, 4, 4]
    assert scalars["eval/score_vs_random_lo"] == stats["random"].score_lo < 0.75 < stats["random"].score_hi
    assert [scalars[f"eval/elo_vs_random{s}"] for s in ("", "_lo", "_hi")] == [-12.0, -80.0, 50.0]
    assert [scalars[f"eval/ladder_elo{s}"] for s in ("", "_lo", "_hi")] == [35.0, -40.0, 110.0]
    assert list(gauntlet_scalars({"greedy": stats["random"]}, None, None, "final")) == [
        "final/score_vs_greedy", "final/score_vs_greedy_lo", "final/score_vs_greedy_hi",
        "final/games_vs_greedy"]
    assert PROMOTED_TAG == "eval/promoted"
    r, b = stats["random"], stats["best"]
    assert gauntlet_line({"random": r, "best": b}, ladder) == (
        f"random 0.75 of 4 [{r.score_lo:.2f}, {r.score_hi:.2f}], best 0.50 of 4 [{b.score_lo:.2f}, "
        f"{b.score_hi:.2f}]; ladder Elo +35 [-40, +110] vs alphabeta:depth=2")


# ----- what the caller passes: the SPRT bounds, the executor ------------------------------------


def test_the_sprt_gate_plays_with_the_configured_bounds(tmp_path, monkeypatch):
    overrides = ["experiment=smoke", f"run_dir={tmp_path}", "env.ply_cap=16", "eval.games=2", "eval.sims=2",
                 "eval.opponents=[random]", "eval.gating=sprt", "eval.sprt_elo0=-10", "eval.sprt_elo1=15",
                 "eval.sprt_max_games=2"]
    register_configs()
    with initialize_config_dir(config_dir=CONFIGS, version_base=None):
        cfg = run_config(compose(config_name="train", overrides=overrides))
    real_arena, modes = gating.run_arena, []

    def record(config, out, **kw):
        modes.append(config.mode)
        if config.mode == "sprt":
            assert (config.elo0, config.elo1, config.games_per_pairing) == (-10.0, 15.0, 2)
            assert out.name.startswith("gate_00000020_")
        return real_arena(config, out, **kw)

    monkeypatch.setattr(gating, "run_arena", record)
    ev = Gatekeeper(cfg, log=lambda *_: None)
    store = CheckpointStore(tmp_path / "checkpoints")
    run = FakeRun()
    publish(store, 10)
    ev.on_checkpoint(run, 10)  # no rival: no SPRT
    publish(store, 20)
    ev.on_checkpoint(run, 20)
    assert modes == ["gauntlet", "gauntlet", "sprt"]
    assert ev.ledger.done()[20].promoted is False  # two games never decide an SPRT


def test_the_callers_executor_plays_the_games(tmp_path):
    from arena.arena import execute

    ev = gatekeeper(tmp_path, "none", 0.0)
    calls = []

    def executor(tasks, workers, handle, modules=()):
        calls.append(workers)
        execute(tasks, workers, handle, modules)

    ev.executor = executor
    publish(CheckpointStore(tmp_path / "checkpoints"), 10)
    ev.on_checkpoint(FakeRun(), 10)
    report = ev.final_match(ev.best)
    assert calls == [1, 1] and report.games_done == ev.ev.final_games and ev.ledger.done()[10].promoted
