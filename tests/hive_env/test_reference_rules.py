"""The compiled move generator against the slow pure-Python reference (hive_env/reference_rules.py).

The reference is written from docs/rules.md alone and shares no code with ``hive_env.movegen``,
``hive_env.rules`` or ``hive_env.pinned``, so agreement on many random positions of every
game type is an independent check of the engine. Random games are steered by a few
policies so that they reach the interesting parts of the rules: stacks and beetle gates,
pillbug throws, mosquito copies, ladybug walks, and finished games (queens surrounded).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from hive_env.board import PASS, POS, TOP
from hive_env.game import Game
from hive_env.grid import NEIGH
from hive_env.pieces import (
    BEETLE,
    GAME_TYPES,
    LADYBUG,
    MOSQUITO,
    PIECE_BUG,
    PIECE_COLOUR,
    PIECES_PER_COLOUR,
    PILLBUG,
)
from hive_env.reference_rules import reference_moves
from hive_env.uhp import parse_move

SUITE = Path(__file__).resolve().parents[3] / "shared" / "reference" / "nokamute_uhp_tests.txt"

Policy = Callable[[Game, list[int], np.random.Generator], int]


# ----- move-choosing policies ---------------------------------------------------------------------


def _pick(moves: list[int], rng: np.random.Generator) -> int:
    return moves[int(rng.integers(len(moves)))]


def _movements(game: Game, moves: list[int]) -> list[int]:
    """Moves of tiles already in play (movements and throws, not placements or pass)."""
    return [m for m in moves if m != PASS and game.board[POS + (m >> 10)] >= 0]


def uniform_policy(game: Game, moves: list[int], rng: np.random.Generator) -> int:
    """Any legal move, uniformly: mostly placements early, a wide spread of openings."""
    return _pick(moves, rng)


def mobile_policy(game: Game, moves: list[int], rng: np.random.Generator) -> int:
    """Prefer movements over placements (85%), so the hive stays small and tiles travel."""
    movements = _movements(game, moves)
    if movements and rng.random() < 0.85:
        return _pick(movements, rng)
    return _pick(moves, rng)


def stacky_policy(game: Game, moves: list[int], rng: np.random.Generator) -> int:
    """Prefer the rare kinds of moves: climbing onto stacks, throwing enemy tiles, and moves
    of beetles, mosquitoes, ladybugs and pillbugs."""
    board = game.board
    side = game.side_to_move
    movements = _movements(game, moves)
    special = [
        m
        for m in movements
        if board[TOP + (m & 1023)] >= 0
        or PIECE_COLOUR[m >> 10] != side
        or PIECE_BUG[m >> 10] in (BEETLE, MOSQUITO, LADYBUG, PILLBUG)
    ]
    r = rng.random()
    if special and r < 0.7:
        return _pick(special, rng)
    if movements and r < 0.9:
        return _pick(movements, rng)
    return _pick(moves, rng)


def aggressive_policy(game: Game, moves: list[int], rng: np.random.Generator) -> int:
    """Prefer moves that end next to the enemy Queen, so that games finish by surrounds."""
    enemy_queen = int(game.board[POS + (1 - game.side_to_move) * PIECES_PER_COLOUR])
    if enemy_queen >= 0 and rng.random() < 0.8:
        ring = {int(n) for n in NEIGH[enemy_queen]}
        attacks = [m for m in moves if m != PASS and (m & 1023) in ring]
        if attacks:
            return _pick(attacks, rng)
    return mobile_policy(game, moves, rng)


POLICIES: dict[str, Policy] = {
    "uniform": uniform_policy,
    "mobile": mobile_policy,
    "stacky": stacky_policy,
    "aggressive": aggressive_policy,
}


# ----- the comparison -----------------------------------------------------------------------------


def _describe(game: Game, move: int) -> str:
    try:
        return game.move_string(move)
    except Exception:  # a move the engine cannot even format
        return f"piece {move >> 10} -> hex {move & 1023}"


def assert_same_moves(game: Game) -> None:
    """The engine's legal moves equal the reference's at the current position."""
    listed = [int(m) for m in game.legal_moves()]
    engine = set(listed)
    assert len(engine) == len(listed), f"duplicate moves listed in {game.game_string()}"
    reference = reference_moves(game.board)
    if engine != reference:
        only_engine = sorted(_describe(game, m) for m in engine - reference)
        only_reference = sorted(_describe(game, m) for m in reference - engine)
        pytest.fail(
            f"move lists differ at {game.game_string()}\n"
            f"  engine only:    {only_engine}\n"
            f"  reference only: {only_reference}"
        )


def play_and_check(game_type: str, policy: str, seed: int, max_plies: int) -> int:
    """Play one seeded random game, checking every position; return how many were checked."""
    rng = np.random.default_rng(seed)
    game = Game(game_type)
    choose = POLICIES[policy]
    checked = 0
    while True:
        assert_same_moves(game)
        checked += 1
        if game.is_over or game.ply >= max_plies:
            return checked
        game.play(choose(game, [int(m) for m in game.legal_moves()], rng))


@pytest.mark.parametrize("policy", sorted(POLICIES))
@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_engine_matches_reference(game_type: str, policy: str):
    for i in range(3):
        play_and_check(game_type, policy, seed=1000 * GAME_TYPES.index(game_type) + i, max_plies=150)


@pytest.mark.slow
@pytest.mark.parametrize("policy", sorted(POLICIES))
@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_engine_matches_reference_many_games(game_type: str, policy: str):
    for i in range(25):
        seed = 100_000 + 1000 * GAME_TYPES.index(game_type) + i
        play_and_check(game_type, policy, seed=seed, max_plies=200)


def test_nokamute_positions_match_reference():
    """Every position along the games of nokamute's UHP suite (gates, pass, long hives...)."""
    if not SUITE.is_file():
        pytest.skip(f"{SUITE} not available")
    game_strings = [ln.strip() for ln in SUITE.read_text(encoding="utf-8-sig").splitlines()]
    game_strings = [ln for ln in game_strings if ln.startswith("Base") and ";" in ln]
    assert game_strings
    for text in game_strings:
        fields = text.split(";")
        game = Game(fields[0])
        for move_string in [f for f in fields[3:] if f]:
            assert_same_moves(game)
            game.play(move_string)
        assert_same_moves(game)


# Positions found by random search where a pillbug throw is blocked only by the gate at height:
# the lift (tile up onto the pillbug between two stacks of height 2) or the drop (off the
# pillbug between two such stacks). Random games above rarely reach either.
GATED_THROWS = [
    (
        "Base+P;InProgress;White[28];wB1;bS1 wB1-;wB2 -wB1;bG1 bS1-;wP \\wB2;bB1 /bG1;wQ wP/;bQ \\bG1"
        ";wQ /wP;bB1 bG1;wP \\wQ;bB1 /bG1;wP -wQ;bB1 bS1;wP \\wQ;bB1 /bG1;wP \\wB2;bB1 /bS1;wP \\wQ;bB1"
        " wB1;wP -wQ;bB1 \\wB1;wP \\wQ;bB1 -bQ;wP -wQ;bB1 bQ;wP \\wQ;bB1 bG1/;wP \\wB2;bB1 bQ/;wP \\wB1;"
        "bB1 \\bQ;wG1 \\wQ;bB1 bQ/;wP -bQ;bB2 \\bB1;bS1 /bB2;bB2 bS1;wG1 /wB2;bB1 bB2/;wQ \\wB2;bB1 bB2"
        ";wG1 -wP;bB1 \\bB2;wB2 wQ;bB2 /bB1;wB2 \\wQ;bB1 \\bB2;wB2 -wQ;bB1 bB2;wB1 wG1;bB1 \\bS1;wB2 wQ"
        ";bB1 bS1",
        ["bB2 /bQ", "bB2 /wP"],
    ),
    (
        "Base+LP;InProgress;Black[36];wB1;bA1 wB1/;wL wB1\\;bQ bA1-;wB2 -wB1;bS1 \\bA1;wQ /wB1;bQ bA1"
        "/;wB2 -wQ;bQ bA1-;wL /wQ;bP bQ\\;wB2 -wL;bP /bQ;wB2 -wQ;bP bQ\\;wB2 -wB1;bA2 bS1/;wA1 wQ-;bP"
        " bQ-;wL -wB2;bP bQ\\;wL /wA1;bP bQ-;wL /wB2;bA3 \\bA2;wL \\wB2;bA3 \\bP;wL /wA1;bA2 /wQ;wA1 /w"
        "L;bP bA3-;wL /bA2;bP bQ-;wA1 bP/;bP bQ\\;wB2 -wQ;bS1 \\wB2;wL -wB1;bA2 wA1\\;wL wQ\\;bP /wA1;w"
        "A2 wL-;bA3 \\wA2;wL -bA1;wA1 /bP;wL \\bA1;bA2 wA1-;wL /bQ;bP bQ/;wL \\bA2;bP \\bQ;wL bA2/;bP \\"
        "bA1;wL /bA2;bP -bA1;wA2 /wL;bP -wB1;wB2 /wQ;bA3 -bS1;wB2 wQ;bA3 wB2-;wB2 /wQ;bA2 wB2\\;wA2 "
        "\\bP;bA2 /bS1;wL bQ/;wA2 -bA1;wB1 wA2;bA2 /bP;wB2 wQ",
        ["bA2 /bA1", "bS1 /bA1"],
    ),
]


@pytest.mark.parametrize("game_string,gated", GATED_THROWS, ids=["lift", "drop"])
def test_pillbug_throw_gates(game_string: str, gated: list[str]):
    game = Game.from_string(game_string)
    assert_same_moves(game)
    legal = reference_moves(game.board)
    for move_string in gated:
        assert parse_move(move_string, game.board, game.expansions) not in legal, move_string


# ----- the reference is a real generator ----------------------------------------------------------


def reference_perft(game: Game, depth: int) -> int:
    """Leaf count ``depth`` plies below the current position, enumerating with the reference."""
    if depth == 0:
        return 1
    moves = reference_moves(game.board)
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        game.play(move)
        total += reference_perft(game, depth - 1)
        game.undo()
    return total


@pytest.mark.parametrize("game_type,count", [("Base", 1440), ("Base+MLP", 6678)])
def test_reference_perft_depth_3(game_type: str, count: int):
    assert reference_perft(Game(game_type), 3) == count


@pytest.mark.slow
@pytest.mark.parametrize(
    "game_type,count",
    [
        ("Base", 21600),
        ("Base+M", 45414),
        ("Base+L", 45414),
        ("Base+P", 45414),
        ("Base+ML", 86400),
        ("Base+MP", 86400),
        ("Base+LP", 86400),
        ("Base+MLP", 151686),
    ],
)
def test_reference_perft_depth_4(game_type: str, count: int):
    assert reference_perft(Game(game_type), 4) == count
