"""A run that starts from another network (``train.init_from``, training.lineage): its weights,
a new step counter, a fresh replay, a warm restart; refusals; the lineage's totals."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from omegaconf import OmegaConf

from hive_env.encode import ENCODING_VERSION
from hive_env.files import sha256_file
from models import shipped
from search.checkpoint import read_checkpoint, save_checkpoint
from training.config import ConfigError, run_config
from training.lineage import Totals, lineage, load_parent, parent_of, resolve, set_on_command_line
from training.loop import compose_config, prepare, train
from training.replay import ReplayStore
from training.trainer import lr_at

from helpers import TINY_RUN


@pytest.fixture(scope="module")
def parent_run(tmp_path_factory):
    """A finished tiny run: the parent of the runs below."""
    run_dir = tmp_path_factory.mktemp("lineage") / "parent"
    train(compose_config([*TINY_RUN, f"run_dir={run_dir}"]), log=lambda _: None)
    return run_dir


def test_a_run_starts_from_its_parents_weights_with_a_new_counter_and_replay(parent_run, tmp_path):
    parent = parent_run / "checkpoints" / "ckpt_00000004.pt"  # with its optimiser state
    child = tmp_path / "child"
    lines: list[str] = []
    train(compose_config([*TINY_RUN, f"run_dir={child}", f"train.init_from={parent}",
                          "train.init_optimizer=true", "seed=5"]), log=lines.append)
    start = read_checkpoint(child / "checkpoints" / "ckpt_00000000.pt")
    theirs = read_checkpoint(parent)
    assert start["step"] == 0 and start["trainer"]["train_step"] == 0
    assert all(torch.equal(start["model"][k], theirs["model"][k]) for k in theirs["model"])
    assert any(f"started from {parent} (step 4" in line for line in lines)
    # the steps the child may train count its own positions only (not the parent's 4 steps' worth)
    assert ReplayStore(child / "replay").count() >= 32
    tc = run_config(compose_config([*TINY_RUN, "run_dir=x"])).train
    after = read_checkpoint(child / "checkpoints" / "ckpt_00000004.pt")["trainer"]["optimizer"]
    assert after["param_groups"][0]["lr"] == pytest.approx(lr_at(3, tc))  # the warm-up again
    final = read_checkpoint(child / "checkpoints" / "final.pt")
    assert final["step"] == 4
    lin = final["lineage"]
    assert lin["generations"] == 2 and lin["parent"]["step"] == 4 and lin["parent"]["file"] == parent.name
    assert lin["totals"]["steps"] == 8  # the parent's 4 and the child's 4
    parent_positions = theirs["lineage"]["totals"]["positions"]
    assert lin["totals"]["positions"] == parent_positions + ReplayStore(child / "replay").count()
    assert lin["totals"]["train_minutes"] >= theirs["lineage"]["totals"]["train_minutes"]


def test_resuming_a_child_keeps_its_own_checkpoints_and_parent(parent_run, tmp_path):
    parent = parent_run / "checkpoints" / "final.pt"
    child = tmp_path / "child"
    overrides = [*TINY_RUN, f"run_dir={child}", f"train.init_from={parent}"]
    train(compose_config(overrides), log=lambda _: None)
    lines: list[str] = []
    train(compose_config([*overrides, "train.steps=6"]), log=lines.append)
    final = read_checkpoint(child / "checkpoints" / "final.pt")
    assert final["step"] == 6 and not any("started from" in line for line in lines)
    assert final["lineage"]["generations"] == 2 and final["lineage"]["totals"]["steps"] == 10
    with pytest.raises(ConfigError, match="cannot resume .* train.init_from"):
        train(compose_config([*TINY_RUN, f"run_dir={child}", "train.init_from=shipped"]))


def test_a_parent_of_another_shape_or_encoding_is_refused_before_anything_is_written(parent_run, tmp_path,
                                                                                      unshipped):
    child = tmp_path / "child"
    parent = parent_run / "checkpoints" / "final.pt"
    with pytest.raises(ConfigError, match=r"^train.init_from: .* another network: width 16 \(this run: 24\)"):
        train(compose_config([*TINY_RUN, f"run_dir={child}", f"train.init_from={parent}", "model.width=24"]))
    unshipped("Base+L")
    state = read_checkpoint(parent)
    state["encoding"]["version"] = -1
    torch.save(state, tmp_path / "old.pt")
    for spec, message in [(tmp_path / "old.pt", "uses encoding version -1"),
                          (tmp_path / "nothing.pt", "no checkpoint at"),
                          ("shipped:Base+L", "no network is shipped for Base\\+L")]:
        with pytest.raises(ConfigError, match=message) as e:
            train(compose_config([*TINY_RUN, f"run_dir={child}", f"train.init_from={spec}"]))
        assert "\n" not in str(e.value)
    with pytest.raises(ConfigError, match="holds no optimiser state"):
        config = read_checkpoint(shipped.CHECKPOINT)["model_config"]
        load_parent("shipped:Base", "Base", config, optimizer=True)
    with pytest.raises(ConfigError, match="train.init_optimizer needs train.init_from"):
        train(compose_config([*TINY_RUN, f"run_dir={child}", "train.init_optimizer=true"]))
    assert not child.exists()


def test_shipped_names_the_network_of_the_runs_game_type(unshipped):
    assert resolve("shipped", "Base") == shipped.CHECKPOINT == resolve("shipped:Base", "Base+MLP")
    unshipped("Base+M")
    with pytest.raises(ConfigError, match="train.init_from=shipped: no network is shipped for Base\\+M "):
        resolve("shipped", "Base+M")


def test_a_network_without_a_lineage_is_a_root_with_its_cards_minutes(tmp_path, monkeypatch):
    """A network shipped before lineages were recorded (as the first Base network was): a root,
    with the training minutes its model card gives."""
    from models.gnn import HiveGNN, ModelConfig

    shipped_state = read_checkpoint(shipped.CHECKPOINT)
    network = HiveGNN(ModelConfig(**shipped_state["model_config"]))
    old = save_checkpoint(tmp_path / "old.pt", network, step=50001)
    state = read_checkpoint(old)
    assert "lineage" not in state
    card = {"step": 50001, "game_type": "Base", "run": {"wall_minutes": 145.2}}
    monkeypatch.setattr(shipped, "card_of", lambda path: card if Path(path) == old else None)
    root = parent_of(old, state)
    assert root.totals == Totals(card["step"], None, card["run"]["wall_minutes"], 0.0)
    assert root.generations == 1 and root.game_type == "Base"
    monkeypatch.setattr(shipped, "card_of", lambda path: None)
    assert parent_of(old, state).totals == Totals(50001, None, 0.0, 0.0)  # not shipped: no minutes known
    monkeypatch.setattr(shipped, "card_of", lambda path: card if Path(path) == old else None)
    entry = lineage(root, "Base", steps=10, positions=500, train_minutes=1.5, eval_minutes=0.5)
    assert entry["totals"]["steps"] == card["step"] + 10
    assert entry["totals"]["positions"] is None  # the root did not record its positions
    assert entry["parent"]["sha256"] == root.sha256 and len(root.sha256) == 64
    # a grandchild lists its ancestors, nearest first
    child = tmp_path / "child.pt"
    save_checkpoint(child, HiveGNN(ModelConfig(**state["model_config"])), step=10, lineage=entry)
    grand = lineage(parent_of(child, read_checkpoint(child)), "Base", 5, 100, 1.0, 0.0)
    assert grand["generations"] == 3 and grand["totals"]["steps"] == card["step"] + 15
    assert [a["sha256"] for a in grand["parent"]["ancestors"]] == [root.sha256]


def test_a_run_carries_on_from_a_network_of_an_older_encoding(tmp_path):
    """The shipped Base+MLP network as encoding 2 wrote it (the shipped networks were encoding 2
    before they were retrained on encoding 3): its weights, the clock features relearnt."""
    child = tmp_path / "child"
    lines: list[str] = []
    state = read_checkpoint(shipped.network("Base+MLP").checkpoint)
    state["encoding"]["version"] = 2
    old = tmp_path / "encoding2.pt"
    torch.save(state, old)
    width, layers = state["model_config"]["width"], state["model_config"]["layers"]
    train(compose_config([*TINY_RUN, f"run_dir={child}", "env=base_mlp", f"train.init_from={old}",
                          f"model.width={width}",
                          f"model.layers={layers}"]), log=lines.append)
    generations = state.get("lineage", {}).get("generations", 1)  # the network's place in its line
    assert any("started from" in line and f"network {generations + 1} of its line" in line for line in lines)
    assert any(f"encoding 2's, this run's {ENCODING_VERSION}'s" in line for line in lines)
    start = read_checkpoint(child / "checkpoints" / "ckpt_00000000.pt")
    assert start["encoding"]["version"] == ENCODING_VERSION  # the run's network is this code's
    assert all(torch.equal(start["model"][k], state["model"][k]) for k in state["model"])
    final = read_checkpoint(child / "checkpoints" / "final.pt")["lineage"]
    assert final["ply_cap"] == 60 and final["game_type"] == "Base+MLP"  # the smoke preset's cap
    assert final["parent"]["sha256"] == sha256_file(old)


def test_a_lineage_names_the_game_types_self_play_played(parent_run, tmp_path):
    from training.model_card import markdown, run_facts

    plain = read_checkpoint(parent_run / "checkpoints" / "final.pt")["lineage"]
    assert plain["game_types"] == [plain["game_type"]]
    mixed = tmp_path / "mixed"
    types = "selfplay.game_types=[Base+M,Base+LP]"
    train(compose_config([*TINY_RUN, f"run_dir={mixed}", "env=base_mlp", types]), log=lambda _: None)
    final = read_checkpoint(mixed / "checkpoints" / "final.pt")["lineage"]
    assert final["game_type"] == "Base+MLP" and final["game_types"] == ["Base+M", "Base+LP"]
    run = run_facts(mixed)
    assert run["game_types"] == ["Base+M", "Base+LP"]
    card = {"name": "n", "game_type": "Base+MLP", "file": "base_mlp.pt", "bytes": 1, "step": 4,
            "model": {"width": 8, "layers": 1}, "lineage": final, "machine": "m", "replaced": None,
            "run": run}
    assert "- Game type: Base+MLP (trained on Base+M and Base+LP games)" in markdown(card)
    card["run"] = {**run, "game_types": [], "game_type": "Base+MLP"}  # a run of its own type alone
    assert "(trained on" not in markdown(card)


def test_a_fine_tune_adopts_the_parents_size_unless_the_command_sets_one(tmp_path):
    theirs = read_checkpoint(shipped.CHECKPOINT)["model_config"]
    cfg = compose_config(["experiment=smoke", "train.init_from=shipped", f"run_dir={tmp_path / 'a'}"])
    assert (cfg.model.width, cfg.model.layers) == (theirs["width"], theirs["layers"])  # not smoke's 16 x 1
    assert prepare(cfg).rc.model.width == theirs["width"]  # the parent is taken as it is
    assert not (tmp_path / "a").exists()
    for size in (["model.layers=3"], ["model=small"]):
        cfg = compose_config(["experiment=smoke", "train.init_from=shipped", f"run_dir={tmp_path / 'b'}",
                              *size])
        with pytest.raises(ConfigError, match=r"another network: layers") as e:
            prepare(cfg)
        assert "\n" not in str(e.value)
    keys = set_on_command_line(["model=small", "model.aux_head=true", "seed=1"])
    assert keys == {"width", "layers", "aux_head"}
    assert compose_config(["experiment=smoke", f"run_dir={tmp_path / 'c'}"]).model.width == 16  # no parent


def test_a_resumed_fine_tune_keeps_the_size_it_started_with(tmp_path):
    (tmp_path / "config.yaml").write_text(  # as hive-train writes it: whole, with its last line
        OmegaConf.to_yaml({"model": {"size": "tiny", "width": 24, "layers": None, "aux_head": False}})
        + "# git: abc1234\n")
    cfg = compose_config(["experiment=smoke", "train.init_from=shipped", f"run_dir={tmp_path}"])
    assert (cfg.model.width, cfg.model.layers) == (24, 2)  # tiny's 2 layers
