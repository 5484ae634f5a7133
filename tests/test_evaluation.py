"""Evaluation during training: gauntlets against baselines and the previous best, gating, and
its crash safety (the ledger, evaluations tied to checkpoint content, a damaged best.pt)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from hydra import compose, initialize_config_dir

from models.gnn import build_model
from search.checkpoint import load_model
from training import gating
from training.checkpoint import CheckpointStore
from training.config import register_configs, run_config
from training.gating import Evaluation, file_hash

CONFIGS = str(Path(__file__).resolve().parents[1] / "configs")


class Recorder:
    """Records TensorBoard scalars (the part of ``training.metrics.Metrics`` gating uses)."""

    def __init__(self):
        self.tags: dict[str, list[tuple[int, float]]] = {}

    def scalar(self, tag, value, step):
        self.tags.setdefault(tag, []).append((step, float(value)))


class FakeTrainer:
    def __init__(self, step: int):
        self.step = step


class FakeRun:
    def __init__(self, step: int = 0):
        self.metrics = Recorder()
        self.trainer = FakeTrainer(step)


def evaluation(tmp_path, gating: str, gate_score: float) -> Evaluation:
    overrides = ["experiment=smoke", f"run_dir={tmp_path}", "env.ply_cap=16", "eval.games=2", "eval.sims=2",
                 "eval.opponents=[random]", f"eval.gating={gating}", f"eval.gate_score={gate_score}",
                 "train.keep_checkpoints=10"]
    register_configs()
    with initialize_config_dir(config_dir=CONFIGS, version_base=None):
        cfg = run_config(compose(config_name="train", overrides=overrides))
    return Evaluation(cfg, log=lambda *_: None)


def publish(store: CheckpointStore, step: int) -> None:
    torch.manual_seed(step)
    store.publish(step, build_model("tiny"))


@pytest.mark.parametrize("gating,gate_score,promoted", [("none", 0.0, True), ("score", 0.0, True),
                                                        ("score", 1.01, False)])
def test_best_checkpoint_follows_the_gate(tmp_path, gating, gate_score, promoted):
    ev = evaluation(tmp_path, gating, gate_score)
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
    assert [s for s, _ in tags["eval/score_vs_best"]] == [20]  # the previous best is an opponent
    assert tags["eval/promoted"][-1] == (20, float(promoted))
    done = ev.ledger.done()
    assert (tmp_path / "eval" / done[20]["dir"] / "ratings.csv").exists()
    assert done[20]["promoted"] == promoted and done[20]["rival"] == done[10]["checkpoint"]
    assert not list(ev.frozen.iterdir())  # frozen copies go once their evaluation is done


def game_records(ev: Evaluation, entry: dict) -> list[dict]:
    lines = (ev.dir / entry["dir"] / "games.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def test_a_retrained_step_never_reuses_the_old_games(tmp_path):
    ev = evaluation(tmp_path, "none", 0.0)
    store = CheckpointStore(tmp_path / "checkpoints")
    run = FakeRun()
    publish(store, 10)
    ev.on_checkpoint(run, 10)
    first = ev.ledger.done()[10]
    torch.manual_seed(99)  # the same step trained again: other weights
    store.publish(10, build_model("tiny"))
    ev.on_checkpoint(run, 10)
    second = ev.ledger.done()[10]
    assert second["checkpoint"] == file_hash(store.path(10)) != first["checkpoint"]
    assert second["dir"] != first["dir"]
    games = game_records(ev, second)
    assert len(games) == 4  # against random and against the best (the old checkpoint of step 10)
    assert all(second["checkpoint"] in (g["white"] + g["black"]) for g in games)
    assert len(game_records(ev, first)) == 2  # the old results stay as they were


def test_a_damaged_best_checkpoint_is_ignored_once_and_replaced(tmp_path):
    lines = []
    ev = evaluation(tmp_path, "score", 1.01)  # a gate no checkpoint passes against a real best
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
    ev = evaluation(tmp_path, "none", 0.0)
    store = CheckpointStore(tmp_path / "checkpoints")
    publish(store, 10)
    real_arena = gating.run_arena

    def killed_after_one_game(*args, **kw):
        def kill(record):
            raise KeyboardInterrupt  # a stop after the first game was stored
        return real_arena(*args, **kw, on_record=kill)

    monkeypatch.setattr(gating, "run_arena", killed_after_one_game)
    with pytest.raises(KeyboardInterrupt):
        ev.on_checkpoint(FakeRun(), 10)
    monkeypatch.setattr(gating, "run_arena", real_arena)
    (entry,) = ev.ledger.entries
    assert entry["state"] == "started"
    fresh = evaluation(tmp_path, "none", 0.0)  # the next process
    run = FakeRun(step=10)
    assert fresh.catch_up(run) == 1
    done = fresh.ledger.done()[10]
    assert done["checkpoint"] == entry["checkpoint"]
    games = game_records(fresh, done)
    assert len(games) == 2 and len({g["id"] for g in games}) == 2
    assert run.metrics.tags["eval/promoted"] == [(10, 1.0)]
    assert fresh.catch_up(run) == 0  # nothing left to do


def test_catch_up_registers_a_checkpoint_published_but_not_yet_registered(tmp_path):
    ev = evaluation(tmp_path, "none", 0.0)
    store = CheckpointStore(tmp_path / "checkpoints")
    publish(store, 10)  # killed right after publishing: no ledger entry
    publish(store, 20)
    run = FakeRun(step=20)
    assert ev.catch_up(run) == 1
    assert set(ev.ledger.done()) == {20}


def test_catch_up_drops_evaluations_of_steps_that_will_be_trained_again(tmp_path):
    ev = evaluation(tmp_path, "none", 0.0)
    store = CheckpointStore(tmp_path / "checkpoints")
    publish(store, 10)
    publish(store, 20)
    ev._register(20)
    store.path(20).write_bytes(b"damaged")  # the run resumes from 10 and trains 20 again
    run = FakeRun(step=10)
    assert ev.catch_up(run) == 1  # 10 (the checkpoint resumed from) is evaluated, 20 dropped
    states = {(e["step"], e["state"]) for e in ev.ledger.entries}
    assert states == {(10, "done"), (20, "dropped")}
    assert not list(ev.frozen.iterdir())


def test_an_evaluation_with_the_ladder_plays_its_opponents_and_logs_the_ladder_elo(tmp_path):
    overrides = ["experiment=smoke", f"run_dir={tmp_path}", "env.ply_cap=16", "eval.games=2", "eval.sims=2",
                 "eval.opponents=[random]", "eval.ladder=true", "eval.ladder_depths=[1,2]"]
    register_configs()
    with initialize_config_dir(config_dir=CONFIGS, version_base=None):
        cfg = run_config(compose(config_name="train", overrides=overrides))
    lines = []
    ev = Evaluation(cfg, log=lines.append)
    publish(CheckpointStore(tmp_path / "checkpoints"), 10)
    run = FakeRun()
    ev.on_checkpoint(run, 10)
    entry = ev.ledger.done()[10]
    opponents = {g["black"] if g["white_index"] == 0 else g["white"] for g in game_records(ev, entry)}
    assert opponents == {"random", "greedy", "alphabeta:depth=1", "alphabeta:depth=2"}
    tags = run.metrics.tags
    (step, elo), (_, lo), (_, hi) = (tags[f"eval/ladder_elo{t}"][0] for t in ("", "_lo", "_hi"))
    assert step == 10 and lo <= elo <= hi
    ladder = json.loads((ev.dir / entry["dir"] / "ladder.json").read_text())
    assert ladder["anchor"] == "alphabeta:depth=2" and ladder["elo"] == pytest.approx(elo, abs=0.01)
    # two opponents of one kind are told apart in the tags
    assert set(entry["scores"]) == {"random", "greedy", "alphabeta_depth_1", "alphabeta_depth_2"}
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
