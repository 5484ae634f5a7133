"""hive-web's Puzzles mode in a real headless Chromium (as ``test_web_browser``): a wrong answer
shown with its solution, ten puzzles solved by clicking with the streak counted, the streak kept
over a reload, the filters, and the way back to a game. Skipped like ``test_web_browser`` when
Chromium or Playwright is missing. ``HIVE_WEB_PUZZLE_SCREENSHOT=path.png`` saves a screenshot of a
solved puzzle (``docs/web-puzzles.png``)."""

from __future__ import annotations

import os

import pytest
from test_web_browser import browser, idle, page, server  # noqa: F401  (the fixtures)

from hive_env import Game
from web import puzzles


def solve(pg, move: str) -> None:
    """Click the move's piece (on the board or in its tray), then its destination."""
    pg.locator(f".movable[data-piece='{move.split()[0]}']").first.click()
    pg.click(f".dest[data-move='{move}']")
    idle(pg)


def shown(pg) -> dict:
    return pg.evaluate("ui.puzzle")


def test_solve_ten_puzzles_and_keep_the_streak(page, server):  # noqa: F811
    page.select_option("#mode", "puzzles")
    idle(page)
    assert page.is_visible("#puzzle-box") and page.inner_text("#new-game") == "Next puzzle"
    assert not page.is_visible("#analysis") and not page.is_visible("#opponent")
    assert "Streak 0" in page.inner_text("#puzzle-streak")
    first = shown(page)
    assert first["id"] == puzzles.book().select(game_type="Base")[0]["id"]
    assert page.inner_text("#puzzle-task").startswith(first["task"])

    # a wrong move: the page says so and shows the solution on the board
    p = puzzles.book().get(first["id"])
    game = Game.from_string(p["game_string"])
    wrong = next(m for m in game.legal_move_strings() if m not in p["solutions"])
    solve(page, wrong)
    verdict = page.inner_text("#puzzle-verdict")
    assert verdict.startswith(f"Wrong: {wrong} is not it.") and p["solutions"][0] in verdict
    assert "wrong" in page.get_attribute("#puzzle-verdict", "class")
    assert page.is_visible("#result-banner") or p["kind"] == "defend"  # the solution's line was played
    assert "Streak 0 (best 0) · solved 0 of 1" in page.inner_text("#puzzle-streak")

    # ten right ones in a row, each by clicking its first solution
    seen = {first["id"]}
    for n in range(1, 11):
        page.click("#puzzle-next")
        idle(page)
        pid = shown(page)["id"]
        assert pid not in seen
        seen.add(pid)
        p = puzzles.book().get(pid)
        solve(page, p["solutions"][-1])
        assert page.inner_text("#puzzle-verdict").startswith("Right!")
        assert f"Streak {n} (best {n})" in page.inner_text("#puzzle-streak")
        if n == 1 and os.environ.get("HIVE_WEB_PUZZLE_SCREENSHOT"):
            page.screenshot(path=os.environ["HIVE_WEB_PUZZLE_SCREENSHOT"])

    # the streak lives in the browser: a reload keeps it
    page.reload()
    idle(page)
    page.select_option("#mode", "puzzles")
    idle(page)
    assert "Streak 10 (best 10) · solved 10 of 11" in page.inner_text("#puzzle-streak")

    # the filters: a hard win in two of Base+MLP, given up
    page.select_option("#game-type", "Base+MLP")
    page.select_option("#puzzle-kind", "win2")
    page.select_option("#puzzle-difficulty", "hard")
    idle(page)
    p = puzzles.book().get(shown(page)["id"])
    assert (p["game_type"], p["kind"], p["difficulty"]) == ("Base+MLP", "win2", "hard")
    assert page.inner_text("#puzzle-task").startswith("Win in two")
    page.click("#puzzle-solution")
    idle(page)
    assert page.inner_text("#puzzle-verdict").startswith("Given up.")
    assert page.is_visible("#result-banner")  # the line was played to the win
    assert "Streak 0 (best 10)" in page.inner_text("#puzzle-streak")

    # back to a game
    page.select_option("#mode", "play")
    idle(page)
    assert not page.is_visible("#puzzle-box") and page.inner_text("#new-game") == "New game"
    assert page.evaluate("ui.puzzle") is None


@pytest.fixture(autouse=True)
def _fresh_storage(page):  # noqa: F811
    """Each test starts with no streak kept."""
    page.evaluate("localStorage.clear()")
