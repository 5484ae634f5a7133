"""Every case of nokamute's UHP test suite (../shared/reference/nokamute_uhp_tests.txt).

Each case is a ``# name`` line, a GameString, then the expected valid moves. We compare the
game state, the number of valid moves and the set of (tile, destination) pairs: reference
strings may name other reference tiles than ours, so destinations are compared, not text.
"""

from __future__ import annotations

import pytest

from hive_env import Game
from hive_env.uhp import parse_move

from helpers import REFERENCE

SUITE = REFERENCE / "nokamute_uhp_tests.txt"


def load_cases() -> list[tuple[str, str, list[str]]]:
    """(name, GameString, expected MoveStrings) per case; blank lines separate cases."""
    if not SUITE.is_file():
        return []
    cases = []
    for block in SUITE.read_text(encoding="utf-8-sig").split("\n\n"):
        lines = [ln.strip() for ln in block.strip().splitlines() if ln.strip()]
        if len(lines) < 2 or not lines[0].startswith("#"):
            continue  # a heading such as "# Weird stuff:"
        expected = lines[2].split(";") if len(lines) > 2 else []
        cases.append((lines[0].lstrip("# ").strip(), lines[1], [m for m in expected if m]))
    return cases


CASES = load_cases()


def test_suite_is_present_and_complete():
    if not SUITE.is_file():
        pytest.skip(f"{SUITE} not available")
    assert len(CASES) == 21


@pytest.mark.parametrize("name,game_string,expected", CASES, ids=[c[0] for c in CASES])
def test_nokamute_case(name, game_string, expected):
    game = Game.from_string(game_string)
    assert game.state == game_string.split(";")[1]
    got = set(int(m) for m in game.legal_moves())
    assert len(got) == len(game.legal_moves()), "duplicate moves listed"
    want = {parse_move(ms, game.board, game.expansions) for ms in expected}
    assert len(got) == len(expected)
    missing = [game.move_string(m) for m in want - got]
    extra = [game.move_string(m) for m in got - want]
    assert got == want, f"missing {missing}, extra {extra}"
