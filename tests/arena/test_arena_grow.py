"""A finished arena grows with more games per pairing, keeping the games played."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import arena.executor as executor_module
from arena.arena import run_arena
from arena.config import ArenaConfig, ArenaError


def records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]


def counting_play_game(monkeypatch) -> list[str]:
    played: list[str] = []
    real = executor_module.play_game

    def play_game(task):
        played.append(task.id)
        return real(task)

    monkeypatch.setattr(executor_module, "play_game", play_game)
    return played


def test_growing_a_finished_arena_keeps_its_games(tmp_path, monkeypatch):
    played = counting_play_game(monkeypatch)

    def config(games: int) -> ArenaConfig:
        return ArenaConfig("roundrobin", ("greedy", "random", "alphabeta:depth=1"), games, ply_cap=30)

    first = run_arena(config(2), tmp_path, progress=False)
    assert first.complete and len(played) == 6  # 3 pairings x 2 games
    before = records(tmp_path)
    played.clear()
    grown = run_arena(config(4), tmp_path, progress=False)
    assert len(played) == 6 and not set(played) & {r["id"] for r in before}  # only the new rounds
    assert all("-r1-" in game_id for game_id in played)
    after = records(tmp_path)
    assert after[:6] == before  # the first games are untouched, with the same ids
    assert grown.complete and grown.games_done == grown.games_total == 12
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["games_done"] == 12
    assert json.loads((tmp_path / "config.json").read_text())["settings"]["games_per_pairing"] == 4
    played.clear()
    run_arena(config(4), tmp_path, progress=False)  # a rerun of the grown arena plays nothing
    assert played == []
    with pytest.raises(ArenaError, match="can grow but not shrink to 2") as refused:
        run_arena(config(2), tmp_path, progress=False)
    assert "\n" not in str(refused.value)
    with pytest.raises(ArenaError, match="other settings"):  # growing with another change is refused
        run_arena(ArenaConfig("roundrobin", ("greedy", "random", "alphabeta:depth=1"), 6, ply_cap=31),
                  tmp_path, progress=False)
