"""Puzzles: positions with one exact tactic each, for hive-web's Puzzles mode.

A puzzle is a position in progress and a task for the side to move (``win1``, ``win2``,
``defend``), each found and checked by the exact solver (``hive_env.tactics``, :func:`solve`),
and rated by how often the network's prior misses it (:func:`bucket`). The shipped files are
``web/data/puzzles_*.json`` (``python -m scripts.puzzles build`` makes them, :func:`build`);
:func:`book` loads them all once.

See docs/web.md (puzzles).
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from hive_env import Game
from hive_env.board import move_dest, move_piece
from hive_env.records import read_games
from hive_env.suite_file import read_suite
from hive_env.tactics import PROVEN_WIN, classify_tactic, move_proofs

DATA = Path(__file__).resolve().parent / "data"
"""Where the shipped puzzle files are (``web/data/puzzles_*.json``)."""

KINDS = {"win1": "Win in one", "win2": "Win in two", "defend": "Find the only defence"}
"""The kinds of puzzle and the task the page states for each."""

DIFFICULTIES = ("easy", "medium", "hard")
EASY_PRIOR = 0.8
"""A puzzle is easy when the network's prior puts at least this much mass on its solutions."""
MEDIUM_PRIOR = 0.3
"""... medium when at least this much; hard below."""
MAX_ONE_PIECE = 4
"""Most moves of one piece that count as one defence (the piece that must move, anywhere safe)."""


def bucket(prior: float) -> str:
    """The difficulty of a puzzle whose solutions have ``prior`` share of the network's prior."""
    return "easy" if prior >= EASY_PRIOR else "medium" if prior >= MEDIUM_PRIOR else "hard"


def _equivalent(moves: list[int]) -> bool:
    """Whether defences ``moves`` count as one: one move, one cell filled, or a few moves of one piece."""
    return (len(moves) == 1 or len({move_dest(m) for m in moves}) == 1
            or (len({move_piece(m) for m in moves}) == 1 and len(moves) <= MAX_ONE_PIECE))


def win_line(game: Game, first: int) -> list[int]:
    """After the winning-in-two move ``first``: the reply that leaves the fewest wins at once
    (ties: the first by MoveString) and the first winning answer to it (by MoveString). A reply
    that loses at once itself (it completes its own queen's surround) is chosen only when every
    reply does, and its line ends there."""
    after = game.copy()
    after.play(first)
    best: tuple[float, list[int]] | None = None
    for reply in sorted(after.legal_moves().tolist(), key=after.move_string):
        then = after.copy()
        then.play(reply)
        if then.is_over:
            option = (float("inf"), [reply])
        else:
            moves, codes = move_proofs(then.board, then.hist)
            wins = sorted((int(m) for m in moves[codes == PROVEN_WIN]), key=then.move_string)
            if not wins:
                raise ValueError(f"{game.move_string(first)} does not win in two: "
                                 f"{after.move_string(reply)} holds")
            option = (float(len(wins)), [reply, wins[0]])
        if best is None or option[0] < best[0]:
            best = option
    assert best is not None, "a position in progress has a legal move"
    return best[1]


def solve(game: Game) -> tuple[str, list[int]] | None:
    """The puzzle in ``game`` (a position in progress): its kind and solution moves, or None.

    A win at once makes a ``win1`` (the solutions: every such move); else a position where only
    one defence (or one set of equivalent ones: every non-losing move fills one cell, or they are
    at most :data:`MAX_ONE_PIECE` moves of the one piece that must flee) avoids losing at once a
    ``defend``; else a win in two (a move after which every reply allows a win at once) a
    ``win2``, its solutions every such first move."""
    found = classify_tactic(game.board, game.hist)
    if found is not None and found[0] == "defend" and not _equivalent(found[1]):
        return None
    return found


def puzzle_id(game_string: str) -> str:
    """A puzzle's id: its position's digest (stable across builds)."""
    return hashlib.sha1(game_string.encode()).hexdigest()[:10]


def make_puzzle(game: Game, kind: str, solutions: list[int], priors: dict[int, float], source: str) -> dict:
    """The puzzle record of ``game`` (``solve``'s kind and solutions; ``priors``: the network's
    prior by encoded move): ``prior`` is the share of the prior on the solutions, ``rank`` the
    rank of the best solution in the prior (1: the prior's favourite)."""
    order = sorted(priors, key=lambda m: (-priors[m], game.move_string(m)))
    rank = min(order.index(m) for m in solutions) + 1
    prior = float(sum(priors.get(m, 0.0) for m in solutions))
    text = game.game_string()
    sols = sorted(solutions, key=game.move_string)
    return {"id": puzzle_id(text), "game_type": game.game_type, "kind": kind,
            "to_move": ("white", "black")[game.side_to_move], "game_string": text,
            "solutions": [game.move_string(m) for m in sols],
            "lines": {game.move_string(m): _line_strings(game, m, win_line(game, m)) for m in sols}
            if kind == "win2" else {},
            "prior": round(prior, 4), "rank": rank, "difficulty": bucket(prior),
            "legal_moves": len(priors), "source": source}


def _line_strings(game: Game, first: int, line: list[int]) -> list[str]:
    after = game.copy()
    after.play(first)
    out = []
    for m in line:
        out.append(after.move_string(m))
        after.play(m)
    return out


def check(puzzle: dict) -> list[str]:
    """What is wrong with ``puzzle`` by the exact solver (an empty list: nothing): its kind and
    solutions are recomputed from its position, and each win in two's line replayed."""
    game = Game.from_string(puzzle["game_string"])
    if game.is_over:
        return ["the game is over"]
    found = solve(game)
    if found is None:
        return [f"no {puzzle['kind']} in the position"]
    kind, solutions = found
    errors = []
    if kind != puzzle["kind"]:
        errors.append(f"a {kind}, not a {puzzle['kind']}")
    want = sorted(game.move_string(m) for m in solutions)
    if sorted(puzzle["solutions"]) != want:
        errors.append(f"solutions {want}, not {sorted(puzzle['solutions'])}")
    if ("white", "black")[game.side_to_move] != puzzle["to_move"]:
        errors.append("the wrong side to move")
    for first, rest in puzzle.get("lines", {}).items():
        after = game.copy()
        for move in (first, *rest):
            after.play(move)
        if after.state != ("WhiteWins", "BlackWins")[game.side_to_move]:
            errors.append(f"{first} {' '.join(rest)} does not win ({after.state})")
    if kind == "win2" and set(puzzle.get("lines", {})) != set(want):
        errors.append("a solution without its line")
    return errors


def record_positions(path: str | Path) -> list[Game]:
    """Every position in progress along the games of a record file (any format
    ``hive_env.records.read_games`` reads: GameStrings, games.jsonl, PGN, SGF)."""
    out = []
    for record in read_games(path):
        game = Game(record.game.game_type)
        for move in record.game.moves:
            if game.is_over:
                break
            out.append(game.copy())
            game.play(int(move))
    return out


def suite_positions(path: str | Path) -> list[Game]:
    """The positions of a tactics suite file (``hive_env.suite_file``; a line that is not one
    is a ``ValueError`` naming it)."""
    return [game for _, game, _ in read_suite(path)]


def build(sources: list[tuple[str, list[Game]]], game_type: str, network, max_per_kind: int,
          seed: int) -> list[dict]:
    """The puzzles of the positions of ``sources`` ((name, positions) each) of ``game_type``,
    each position once (the first source names it), at most ``max_per_kind`` of each kind (a
    sample seeded by ``seed``), easiest first. ``network``: a ``search.Network`` (its
    ``evaluate(game).move_priors`` rates them)."""
    found: dict[str, list[tuple[Game, list[int], str]]] = {k: [] for k in KINDS}
    seen = set()
    for name, games in sources:
        for game in games:
            if game.game_type != game_type or game.is_over:
                continue
            key = (game.hash, game.ply & 1)
            if key in seen:
                continue
            seen.add(key)
            tactic = solve(game)
            if tactic is not None:
                found[tactic[0]].append((game, tactic[1], name))
    rng = np.random.default_rng(seed)
    out = []
    for kind in KINDS:
        rows = found[kind]
        if len(rows) > max_per_kind:
            rows = [rows[i] for i in sorted(rng.choice(len(rows), max_per_kind, replace=False))]
        for game, solutions, name in rows:
            priors = {int(m): float(p) for m, p in network.evaluate(game).move_priors.items()}
            out.append(make_puzzle(game, kind, solutions, priors, name))
    out.sort(key=lambda p: (-p["prior"], p["rank"], p["id"]))
    return out


def summary(puzzles: list[dict]) -> str:
    """``N puzzles: a win1, b win2, c defend; d easy, e medium, f hard``."""
    kinds = ", ".join(f"{sum(p['kind'] == k for p in puzzles)} {k}" for k in KINDS)
    levels = ", ".join(f"{sum(p['difficulty'] == d for p in puzzles)} {d}" for d in DIFFICULTIES)
    return f"{len(puzzles)} puzzles: {kinds}; {levels}"


class Book:
    """Puzzles by id and in order (each file's order: easiest first), from puzzle files."""

    def __init__(self, files: Iterable[str | Path]):
        self.puzzles: list[dict] = []
        for path in sorted(Path(f) for f in files):
            self.puzzles += json.loads(Path(path).read_text())["puzzles"]
        self.by_id = {p["id"]: p for p in self.puzzles}

    def game_types(self) -> dict[str, int]:
        """Puzzles per game type."""
        out: dict[str, int] = {}
        for p in self.puzzles:
            out[p["game_type"]] = out.get(p["game_type"], 0) + 1
        return out

    def get(self, pid: str) -> dict | None:
        return self.by_id.get(pid)

    def select(self, game_type: str | None = None, kind: str | None = None,
               difficulty: str | None = None) -> list[dict]:
        """The puzzles that match, in order."""
        return [p for p in self.puzzles if (game_type is None or p["game_type"] == game_type)
                and (kind is None or p["kind"] == kind)
                and (difficulty is None or p["difficulty"] == difficulty)]

    def next(self, after: str | None = None, **filters) -> dict | None:
        """The first matching puzzle after the one ``after`` names (from the start when it is
        None, unknown or not among the matches; round again after the last), or None."""
        chosen = self.select(**filters)
        if not chosen:
            return None
        ids = [p["id"] for p in chosen]
        at = ids.index(after) + 1 if after in ids else 0
        return chosen[at % len(chosen)]


def public(puzzle: dict) -> dict:
    """What the page is told before it answers: no solutions."""
    return {"id": puzzle["id"], "game_type": puzzle["game_type"], "kind": puzzle["kind"],
            "task": KINDS[puzzle["kind"]], "to_move": puzzle["to_move"], "game_string": puzzle["game_string"],
            "difficulty": puzzle["difficulty"], "prior": puzzle["prior"], "rank": puzzle["rank"],
            "legal_moves": puzzle["legal_moves"]}


def answer(puzzle: dict, move: str) -> dict:
    """Whether ``move`` (a MoveString, checked legal: else ``HiveError``) solves ``puzzle``, with
    the solutions and the line to show: the move played and, for a win in two, the reply and the
    winning answer; after a wrong move, the first solution's line instead."""
    game = Game.from_string(puzzle["game_string"])
    played = game.parse_move(move)  # HiveError when illegal
    text = game.move_string(played)
    correct = text in puzzle["solutions"]
    return {"correct": correct, "move": text, **solution(puzzle, text if correct else None)}


def solution(puzzle: dict, first: str | None = None) -> dict:
    """The solutions of ``puzzle`` and the line to show: ``first`` (default: the first solution)
    and, for a win in two, the reply and the winning answer."""
    first = first or puzzle["solutions"][0]
    return {"id": puzzle["id"], "kind": puzzle["kind"], "solutions": puzzle["solutions"],
            "line": [first, *puzzle.get("lines", {}).get(first, [])]}


@functools.cache
def book(directory: str | None = None) -> Book:
    """The puzzles of every ``puzzles_*.json`` file in ``directory`` (default: the shipped ones),
    loaded once.

    A file is ``{"game_type", "network", "sources", "puzzles": [...]}``, its puzzles easiest
    first, each ``{"id", "game_type", "kind", "to_move", "game_string", "solutions", "lines",
    "prior", "rank", "difficulty", "legal_moves", "source"}`` (:func:`make_puzzle`; ``lines`` maps
    a win in two's solutions to their [reply, winning move], or [reply] when the reply loses at
    once itself; MoveStrings throughout)."""
    return Book(sorted(Path(directory or DATA).glob("puzzles_*.json")))
