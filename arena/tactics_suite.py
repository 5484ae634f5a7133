"""The tactics suite: exact one- and two-move tactics taken from real game records, and a scorer.

:func:`make_suite` replays every game of some records (arena ``games.jsonl`` files, or files of
one UHP GameString a line: :func:`read_records`) and keeps each position in progress that holds a
win in one, a defence against one, or a win in two, found exactly (``hive_env.tactics``).
:func:`score` lets a player choose a move in every position and counts, per kind, how many it
solved. The command line is ``scripts/tactics_suite.py``.

See docs/search.md (exact tactics in the tree).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from hive_env import Game
from hive_env.records import record_lines
from hive_env.records.arena_record import ArenaRecord
from hive_env.tactics import classify_tactic
from players import make_player

KINDS = ("win1", "defend", "win2")
"""The kinds of tactic, in the order the suite and its scores list them."""


def read_records(path: str | Path) -> list[str]:
    """The GameStrings of a record file: ``games.jsonl`` lines (their ``game_string``) or plain
    lines of GameStrings (blank lines and ``#`` comments skipped)."""
    out = []
    for _, line in record_lines(Path(path).read_text()):
        out.append(ArenaRecord.from_json(json.loads(line)).game_string if line.startswith("{") else line)
    return out


def classify(game: Game) -> tuple[str, list[int]] | None:
    """The kind of tactic in ``game`` (a position in progress) and its solution moves, or None
    (``hive_env.tactics.classify_tactic``)."""
    return classify_tactic(game.board, game.hist)


def positions_of(game_string: str) -> list[Game]:
    """Every position in progress along a recorded game (the start of each move)."""
    record = Game.from_string(game_string)
    game = Game.from_string(record.game_type)
    out = []
    for move in record.moves:
        out.append(game.copy())
        game.play(int(move))
        if game.is_over:
            break
    return out


def make_suite(records: list[str], max_per_kind: int, seed: int) -> list[tuple[str, str, str]]:
    """(kind, GameString, solutions) of every tactic in ``records``, sampled per kind and game type.

    - ``win1``: the side to move can win at once; the solutions are the winning moves;
    - ``defend``: no win at once, and some moves but not all lose at once or let the opponent win
      at once; the solutions are the others (a move that draws at once is one of them);
    - ``win2``: no win at once, and some move wins in two (whatever the reply, a win in one
      follows); the solutions are those moves.

    Positions are deduplicated (the same position reached twice counts once); when a kind has
    more than ``max_per_kind`` positions in one game type, a seeded sample of that many is kept.
    Each line of the suite file is ``kind<TAB>GameString<TAB>solutions`` (UHP moves joined by
    ``;``; ``hive_env.suite_file`` reads and writes it)."""
    found: dict[str, list[tuple[str, str, str]]] = {k: [] for k in KINDS}
    seen = set()
    for text in records:
        for game in positions_of(text):
            key = (game.game_type, game.hash, game.ply & 1)
            if key in seen:
                continue
            seen.add(key)
            tactic = classify(game)
            if tactic is None:
                continue
            kind, solutions = tactic
            found[kind].append((kind, game.game_string(), ";".join(game.move_string(m) for m in solutions)))
    rng = np.random.default_rng(seed)
    suite = []
    for kind in KINDS:
        for game_type in dict.fromkeys(row[1].split(";", 1)[0] for row in found[kind]):
            rows = [row for row in found[kind] if row[1].split(";", 1)[0] == game_type]
            if len(rows) > max_per_kind:
                rows = [rows[i] for i in sorted(rng.choice(len(rows), max_per_kind, replace=False))]
            suite += rows
    return suite


def score(spec: str, suite: list[tuple[str, Game, set[int]]],
          seed: int = 0) -> dict[str, tuple[int, int, float]]:
    """Per kind: (solved, positions, seconds a move) of the player ``spec``."""
    player = make_player(spec, seed=seed)
    solved = {k: 0 for k in KINDS}
    total = {k: 0 for k in KINDS}
    seconds = {k: 0.0 for k in KINDS}
    try:
        for kind, game, solutions in suite:
            start = time.perf_counter()
            move = int(player.choose(game.copy()))
            seconds[kind] += time.perf_counter() - start
            total[kind] += 1
            solved[kind] += move in solutions
    finally:
        player.close()
    return {k: (solved[k], total[k], seconds[k] / max(total[k], 1)) for k in KINDS if total[k]}
