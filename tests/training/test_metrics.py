"""What a run writes to TensorBoard (training.metrics): each step once across a stop and a resume,
the config as text and hyper-parameters, every evaluation's scores with their games and
intervals, self-play statistics at every checkpoint, the final match; and log lines printed
above the progress bar."""

from __future__ import annotations

import io
import logging
import signal
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from hive_env import DRAW, WHITE_WINS
from training.loop import compose_config, train
from training.metrics import RECENT_GAMES, Metrics, Progress, flat_settings, write_line
from training.run import Run, Stopped
from training.selfplay import SelfPlayConfig
from training.trainer import Trainer

from helpers import TINY_RUN, fake_nokamute

RUN = [*TINY_RUN, "selfplay.games=4", "env.ply_cap=30", "search.sims=2"]
"""A run of 4 steps, a checkpoint and an evaluation every 2, with self-play shortened further."""


def events(run_dir: Path) -> EventAccumulator:
    """The run's TensorBoard events as TensorBoard reads them (purges applied)."""
    acc = EventAccumulator(str(run_dir / "tb"))
    acc.Reload()
    return acc


def steps(acc: EventAccumulator, tag: str) -> list[int]:
    return [e.step for e in acc.Scalars(tag)]


def values(acc: EventAccumulator, tag: str) -> list[float]:
    return [e.value for e in acc.Scalars(tag)]


@pytest.fixture(scope="module")
def resumed_run(tmp_path_factory) -> Path:
    """A run stopped (as by Ctrl-C) before its step 4, after logging step 3, and rerun from its
    step-2 checkpoint to the end; then rerun once more (nothing left to do)."""
    run_dir = tmp_path_factory.mktemp("metrics") / "run"
    cfg = compose_config([*RUN, f"run_dir={run_dir}"])
    real = Trainer.train_step

    def stop_at_step_4(self, batch):
        if self.step == 3:
            raise Stopped(signal.SIGINT)
        return real(self, batch)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Trainer, "train_step", stop_at_step_4)
        with pytest.raises(Stopped):
            train(cfg, log=lambda _: None)
    assert steps(events(run_dir), "train/total") == [1, 2, 3]
    lines: list[str] = []
    train(cfg, log=lines.append)
    assert any(line.startswith("resumed from checkpoint step 2 ") for line in lines)
    train(cfg, log=lambda _: None)  # a finished run rerun: its final match is not logged again
    return run_dir


def test_a_resumed_run_logs_each_step_once(resumed_run):
    acc = events(resumed_run)
    assert steps(acc, "train/total") == [1, 2, 3, 4]  # step 3 was trained twice, logged once
    assert steps(acc, "train/lr") == [1, 2, 3, 4]
    assert steps(acc, "time/train_minutes") == [2, 4]


def test_the_config_is_logged_as_text_and_hyper_parameters(resumed_run):
    from tensorboard.plugins.hparams.plugin_data_pb2 import HParamsPluginData

    acc = events(resumed_run)
    texts = acc.Tensors("config/text_summary")
    assert [t.step for t in texts] == [0, 2, 4]  # each start: new, resumed at 2, rerun at 4
    text = texts[0].tensor_proto.string_val[0].decode()
    assert "    name: smoke" in text and "  lr: 0.001" in text and "  ply_cap: 30" in text
    content = acc.PluginTagToContent("hparams")
    start = HParamsPluginData.FromString(content["_hparams_/session_start_info"]).session_start_info
    assert start.hparams["train.lr"].number_value == pytest.approx(0.001)
    assert start.hparams["name"].string_value == "smoke"
    assert start.hparams["eval.opponents"].string_value == "['random']"
    experiment = HParamsPluginData.FromString(content["_hparams_/experiment"]).experiment
    assert "train/total" in [m.name.tag for m in experiment.metric_infos]


def test_the_self_play_inference_is_logged_as_text(resumed_run):
    from search.packednet import pick_precision

    texts = events(resumed_run).Tensors("inference/text_summary")
    assert [t.step for t in texts] == [0, 2, 4]
    text = texts[0].tensor_proto.string_val[0].decode()
    assert text.startswith("auto -> numba (fp32) below 16 positions, packed from 16: ")
    assert f"{pick_precision('auto')} GEMMs" in text and "cpu flags" in text


def test_every_evaluation_logs_its_scores_with_games_and_intervals(resumed_run):
    acc = events(resumed_run)
    for opponent, evaluated in (("random", [2, 4]), ("best", [4])):
        assert steps(acc, f"eval/score_vs_{opponent}") == evaluated
        assert values(acc, f"eval/games_vs_{opponent}") == [2.0] * len(evaluated)
        for lo, score, hi in zip(*(values(acc, f"eval/score_vs_{opponent}{s}") for s in ("_lo", "", "_hi")),
                                 strict=True):
            assert 0 < lo <= score <= hi < 1
    assert steps(acc, "eval/elo_vs_random_lo") == steps(acc, "eval/elo_vs_random_hi") == [2, 4]
    assert steps(acc, "eval/promoted") == [2, 4]


def test_self_play_statistics_are_logged_at_every_checkpoint(resumed_run):
    acc = events(resumed_run)
    for tag in ("game_length_mean", "draw_share", "capped_share", "games_per_s", "games_finished",
                "replay_positions"):
        assert steps(acc, f"selfplay/{tag}") == [2, 4], tag
    assert all(0 < v <= 30 for v in values(acc, "selfplay/game_length_mean"))  # env.ply_cap=30
    assert all(v >= 32 for v in values(acc, "selfplay/replay_positions"))  # train.min_positions


def test_the_final_match_is_logged_once(resumed_run):
    acc = events(resumed_run)
    assert steps(acc, "final/score_vs_random") == [4]
    assert values(acc, "final/games_vs_random") == [2.0]
    assert steps(acc, "final/elo_vs_random") == [4]


# ----- the parts alone ----------------------------------------------------------------------------


def test_a_purge_step_drops_what_a_stopped_process_logged_after_its_checkpoint(tmp_path):
    first = Metrics(tmp_path)
    for step in range(1, 6):
        first.scalar("train/total", step, step)
    first.close()  # stopped after step 5; its last checkpoint was step 3
    second = Metrics(tmp_path, purge_step=4)
    for step in range(4, 7):
        second.scalar("train/total", 10 * step, step)
    second.close()
    acc = EventAccumulator(str(tmp_path))
    acc.Reload()
    assert [(e.step, e.value) for e in acc.Scalars("train/total")] == [
        (1, 1.0), (2, 2.0), (3, 3.0), (4, 40.0), (5, 50.0), (6, 60.0)]


def test_self_play_statistics_are_logged_without_new_games(tmp_path):
    metrics = Metrics(tmp_path)
    metrics.selfplay({"plies": np.array([10, 20], np.int32), "status": np.array([1, 3], np.int8),
                      "truncated": np.array([False, True])}, new=False)
    metrics.log_selfplay(2, 300)  # games seen before this process: statistics, but no rate
    metrics.selfplay({"plies": np.full(RECENT_GAMES, 40, np.int32),
                      "status": np.full(RECENT_GAMES, 2, np.int8), "truncated": np.zeros(RECENT_GAMES, bool)})
    metrics.log_selfplay(4, 900)
    metrics.log_selfplay(6, 900)  # nothing new since step 4
    metrics.close()
    acc = EventAccumulator(str(tmp_path))
    acc.Reload()
    assert values(acc, "selfplay/game_length_mean") == [15.0, 40.0, 40.0]  # the newest RECENT_GAMES
    assert values(acc, "selfplay/capped_share") == [0.5, 0.0, 0.0]
    assert values(acc, "selfplay/games_finished") == [0.0, RECENT_GAMES, 0.0]
    assert values(acc, "selfplay/replay_positions") == [300.0, 900.0, 900.0]
    assert values(acc, "selfplay/games_per_s")[0] == 0.0 and values(acc, "selfplay/games_per_s")[1] > 0


def test_a_run_whose_self_play_is_nearly_all_draws_says_so_once(tmp_path):
    lines = []
    run = SimpleNamespace(_warned_draws=False, log=lines.append,
                          cfg=SimpleNamespace(selfplay=SelfPlayConfig(adjudicate_margin=2)))
    warn = Run._warn_of_draws.__get__(run)
    metrics = Metrics(tmp_path)
    drawn = {"plies": np.full(RECENT_GAMES, 38, np.int32), "status": np.full(RECENT_GAMES, DRAW, np.int8),
             "truncated": np.zeros(RECENT_GAMES, bool)}
    metrics.selfplay({k: v[:RECENT_GAMES // 2] for k, v in drawn.items()})
    warn(*metrics.log_selfplay(1, 100))
    assert lines == []  # too few games to say
    metrics.selfplay(drawn)
    shares, games = metrics.log_selfplay(2, 200)
    assert games == RECENT_GAMES and shares["draw_share"] == 1.0
    warn(shares, games)
    warn(shares, games)
    said = f"warning: 100% of the last {RECENT_GAMES} self-play games were draws (0% by the ply cap, the rest"
    assert len(lines) == 1 and lines[0].startswith(said) and "adjudicate" not in lines[0]
    assert lines[0].endswith("selfplay.avoid_repetition=true keeps self-play from shuffling into repetitions")
    run.cfg.selfplay, run._warned_draws, lines[:] = SelfPlayConfig(avoid_repetition=True), False, []
    warn(shares, games)
    assert len(lines) == 1 and lines[0].endswith("teach the network nothing")  # no hint: it is on
    capped = {**drawn, "truncated": np.ones(RECENT_GAMES, bool)}  # drawn by the cap, no adjudication
    metrics.selfplay(capped)
    run.cfg.selfplay, run._warned_draws, lines[:] = SelfPlayConfig(), False, []
    warn(*metrics.log_selfplay(3, 300))
    hint = "selfplay.adjudicate_margin=2 scores games stopped by the cap by queen pressure"
    assert len(lines) == 1 and lines[0].endswith(hint)
    some = {**drawn, "status": np.where(np.arange(RECENT_GAMES) % 5 == 0, WHITE_WINS, DRAW).astype(np.int8)}
    metrics.selfplay(some)
    run._warned_draws, lines[:] = False, []
    warn(*metrics.log_selfplay(4, 400))
    assert lines == []  # 80% draws: below the warning
    metrics.close()


def test_settings_are_flattened_for_the_hparams_dashboard():
    settings = {"seed": 1, "train": {"lr": 0.1, "init_from": ""},
                "eval": {"opponents": ["random"], "final_sims": None}}
    assert flat_settings(settings) == {"seed": 1, "train.lr": 0.1, "train.init_from": "",
                                       "eval.opponents": "['random']", "eval.final_sims": "None"}


class Console(logging.StreamHandler):
    """A console handler, as Hydra's job logging installs on the root logger (stdout)."""


def test_log_lines_go_through_tqdm_write_while_a_bar_is_shown(monkeypatch):
    from tqdm import tqdm

    written: list[tuple[str, object]] = []
    monkeypatch.setattr(tqdm, "write", classmethod(lambda cls, s, file=None, **kw: written.append((s, file))))
    console = Console(sys.stdout)
    console.setFormatter(logging.Formatter("%(message)s"))
    root = logging.getLogger()
    monkeypatch.setattr(root, "handlers", [console])
    monkeypatch.setattr(root, "level", logging.INFO)
    log = logging.getLogger("hive-train").info
    progress = Progress(20, 0, log, stream=io.StringIO(), interactive=True)
    progress.step(1, 2.0, 480)
    log("step 10: random 0.50 of 2 [0.09, 0.91]")
    assert written == [("step 10: random 0.50 of 2 [0.09, 0.91]", sys.stdout)]  # above the bar
    assert console not in root.handlers
    progress.close()
    assert root.handlers == [console]  # the console handler back once the bar is gone
    log("final checkpoint: x")
    assert len(written) == 1


def test_without_a_bar_log_lines_are_left_alone(monkeypatch):
    console = Console(sys.stdout)
    root = logging.getLogger()
    monkeypatch.setattr(root, "handlers", [console])
    progress = Progress(20, 0, lambda _: None, stream=io.StringIO())  # no terminal: plain lines
    assert root.handlers == [console]
    progress.close()


def test_write_line_prints_above_the_bars(capsys):
    from tqdm import tqdm

    bar = tqdm(total=3, file=sys.stderr)
    write_line("run directory: x")
    bar.close()
    assert capsys.readouterr().out == "run directory: x\n"


def test_the_curve_during_a_run_goes_to_tensorboard_by_the_run_clock(tmp_path, monkeypatch):
    from players import engines

    monkeypatch.setenv(engines.ENV_VAR, str(fake_nokamute(tmp_path)))
    run_dir = tmp_path / "run"
    lines: list[str] = []
    train(compose_config([*RUN, f"run_dir={run_dir}", "eval.ladder=true", "eval.ladder_depths=[2]",
                          "eval.opponents=[greedy]", "eval.nokamute_time=0.05"]), log=lines.append)
    acc = events(run_dir)
    assert steps(acc, "eval/score_vs_nokamute") == steps(acc, "eval/ladder_elo") == [2, 4]
    clock = steps(acc, "clock/ladder_elo")
    assert len(clock) == 2 and clock == sorted(clock) and clock == steps(acc, "clock/score_vs_nokamute")
    total = values(acc, "time/total_minutes")[-1]
    assert clock[-1] <= total * 60 + 1
    assert any("nokamute" in line for line in lines if line.startswith("step 4:"))


def test_without_nokamute_the_run_says_so_once_and_goes_on(tmp_path, monkeypatch):
    from players import engines

    monkeypatch.setenv(engines.ENV_VAR, str(tmp_path / "none"))
    lines: list[str] = []
    train(compose_config([*RUN, f"run_dir={tmp_path / 'run'}", "eval.nokamute_time=0.05"]), log=lines.append)
    assert [line for line in lines if "left out" in line] == [
        f"evaluation: nokamute left out (${engines.ENV_VAR}={tmp_path / 'none'} is not an executable)"]

