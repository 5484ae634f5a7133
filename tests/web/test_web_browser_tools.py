"""hive-web's tools in a real headless Chromium (the fixtures of
``test_web_browser``): Save as (GameString, Mzinga PGN, boardspace SGF, read back), a Hint drawn on
the board and counted, the client's list of games (resume, review, delete), the bug glyphs with
the Letters and Patterns options, and the page at a phone's viewport, played by taps.

Set ``HIVE_WEB_SHOTS=DIR`` to save a screenshot of each into DIR (hint.png, games.png,
glyphs.png, letters.png, patterns.png, phone.png).
"""

from __future__ import annotations

import os
from pathlib import Path

import test_web_browser as base

from hive_env.records import read_game

from helpers import MIDGAME, random_game

browser, server, page = base.browser, base.server, base.page  # the fixtures, shared
idle, load, new_game, played = base.idle, base.load, base.new_game, base.played

SHOTS = os.environ.get("HIVE_WEB_SHOTS")


def shot(pg, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        pg.screenshot(path=str(Path(SHOTS) / name))


def all_bugs_game() -> str:
    """A Base+MLP game with every kind of bug on the board, White to move."""
    return random_game("Base+MLP", 0, 26).game_string()


def test_save_as_writes_each_format_the_loader_reads_back(page, tmp_path):
    load(page, MIDGAME)
    moves = played(page)
    for fmt, suffix in (("gamestring", "txt"), ("pgn", "pgn"), ("sgf", "sgf")):
        page.select_option("#save-format", fmt)
        with page.expect_download() as info:
            page.click("#save")
        download = info.value
        assert download.suggested_filename == f"hive-Base-{len(moves)}.{suffix}"
        path = tmp_path / download.suggested_filename
        download.save_as(path)
        record = read_game(path)
        assert record.format == fmt
        assert record.game.ply == len(moves)
        assert record.game.move_strings == moves


def test_a_hint_is_drawn_counted_and_played_by_its_destination(page):
    load(page, MIDGAME)
    assert page.inner_text("#hint-count") == ""
    page.click("#hint")
    idle(page)
    mark = page.wait_for_selector("#layer-hint .hint-mark")
    move = mark.get_attribute("data-move")
    assert page.inner_text("#hint-count") == "Hints: 1"
    assert page.is_visible("#layer-hint .hint-mark polygon")
    assert page.text_content("#layer-hint text") == f"hint: {move.split()[0]}"
    shot(page, "hint.png")
    # the hinted piece is picked: its destination is a click away
    css = move.replace("\\", "\\\\")  # a backslash in a CSS string is escaped
    page.click(f'#layer-dests .dest[data-move="{css}"]', force=True)
    idle(page)
    assert played(page)[16] == move
    assert page.query_selector("#layer-hint .hint-mark") is None  # the hint was for the last position
    assert page.inner_text("#hint-count") == "Hints: 1"  # still counted
    page.select_option("#save-format", "pgn")
    with page.expect_download() as info:
        page.click("#save")
    assert '[Hints "1"]' in Path(info.value.path()).read_text()


def rows(pg) -> list[str]:
    return pg.eval_on_selector_all("#game-list tr", "els => els.map(e => e.dataset.id)")


def current_id(pg) -> str:
    return pg.eval_on_selector("#game-list tr.current", "e => e.dataset.id")


def test_the_game_list_resumes_reviews_and_deletes(page):
    first = current_id(page)  # the game the page started with
    load(page, MIDGAME)
    second = current_id(page)
    new_game(page, "random")
    third = current_id(page)
    assert rows(page)[:3] == [third, second, first]
    assert page.is_disabled(f'#game-list tr[data-id="{third}"] button[data-act=resume]')
    page.click(f'#game-list tr[data-id="{second}"] button[data-act=resume]')
    idle(page)
    assert current_id(page) == second and len(played(page)) == 16
    assert "Base: a person v " in page.inner_text(f'#game-list tr[data-id="{second}"]')
    shot(page, "games.png")
    page.click(f'#game-list tr[data-id="{third}"] button[data-act=delete]')
    idle(page)
    assert third not in rows(page) and current_id(page) == second
    page.click(f'#game-list tr[data-id="{second}"] button[data-act=review]')
    page.wait_for_function("document.querySelector('#review-status').textContent.startsWith('done')",
                           timeout=60_000)
    idle(page)
    assert page.is_visible("#review-chart")
    page.click(f'#game-list tr[data-id="{second}"] button[data-act=delete]')  # the game on screen:
    idle(page)  # a new game takes its place
    assert second not in rows(page) and current_id(page) not in (first, second, third)


def test_tiles_show_bug_glyphs_or_letters_and_patterns_per_side(page):
    load(page, all_bugs_game())
    glyphs = page.eval_on_selector_all("#layer-tiles use.glyph", "els => els.map(e => e.dataset.bug)")
    assert set(glyphs) == set("QSBGAMLP")
    assert page.query_selector("#layer-tiles text.letter") is None
    href = page.eval_on_selector("#tray-bottom .reserve-tile use", "e => e.getAttribute('href')")
    assert href.startswith("#bug-")
    shot(page, "glyphs.png")
    page.check("#letters")
    assert page.query_selector("#layer-tiles use.glyph") is None
    letters = page.eval_on_selector_all("#layer-tiles text.letter", "els => els.map(e => e.textContent)")
    assert set(letters) == set("QSBGAMLP")
    shot(page, "letters.png")
    page.reload()
    idle(page)
    assert page.is_checked("#letters")  # kept in localStorage
    load(page, all_bugs_game())
    assert page.query_selector("#layer-tiles text.letter") is not None
    page.uncheck("#letters")
    fill = "el => getComputedStyle(el).fill"
    assert page.eval_on_selector("#tray-top .cell.black polygon.hex", fill) == "rgb(43, 43, 43)"
    page.check("#patterns")
    assert "pat-black" in page.eval_on_selector("#tray-top .cell.black polygon.hex", fill)
    assert "pat-white" in page.eval_on_selector("#tray-bottom .cell.white polygon.hex", fill)
    load(page, all_bugs_game())
    shot(page, "patterns.png")
    page.uncheck("#patterns")
    page.evaluate("localStorage.clear()")


def test_a_phone_plays_a_move_by_taps(browser, server):
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True,
                                  device_scale_factor=2)
    pg = context.new_page()
    errors = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.set_default_timeout(15_000)
    try:
        pg.goto(server + "/")
        idle(pg)
        pg.select_option("#opponent", "human")
        pg.tap("#new-game")
        idle(pg)
        width = pg.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"the page is {width} px wide at a 390 px viewport"
        board = pg.eval_on_selector("#board-wrap", "e => e.getBoundingClientRect().toJSON()")
        aside = pg.eval_on_selector("aside", "e => e.getBoundingClientRect().toJSON()")
        assert board["width"] >= 360 and aside["top"] >= board["bottom"]  # the panels stack below
        pg.tap("#tray-bottom .reserve-tile.movable[data-bug=S]")
        assert pg.is_visible("#tray-bottom .reserve-tile.selected")
        pg.tap("#layer-dests .dest")
        idle(pg)
        assert played(pg) == ["wS1"]
        pg.tap("#tray-top .reserve-tile.movable[data-bug=A]")
        dest = pg.query_selector("#layer-dests .dest")
        move = dest.get_attribute("data-move")
        dest.tap()
        idle(pg)
        assert played(pg) == ["wS1", move]
        pg.evaluate("window.scrollTo(0, 0)")
        shot(pg, "phone.png")
        assert not errors, errors
    finally:
        context.close()
