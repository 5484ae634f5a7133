"""``hive-web`` in a real headless Chromium (Debian's ``chromium``, driven by Playwright):
clicking pieces and destinations to the end of a game, illegal clicks, loading and stepping
through a game with the arrow keys, the analysis panel and its labels, the review mode, a game
with a clock, and the opponent's level.

Skipped when Chromium or Playwright is missing, except under CI (``CI=true``), where that is a
failure: ``make test`` installs both (``make browser``). Set ``HIVE_WEB_SCREENSHOT=path.png`` to
save a screenshot of the analysed mid-game position (how ``docs/web.png`` is made), and
``HIVE_WEB_REVIEW_SCREENSHOT=path.png`` one of a reviewed game (``docs/review.png``), and
``HIVE_WEB_CLOCK_SCREENSHOT=path.png`` one of a game with a clock (``docs/web-clock.png``).
"""

from __future__ import annotations

import os
import shutil

import pytest

from hive_env import Game

from helpers import MIDGAME, ROOT, WIN_IN_ONE, WIN_IN_ONE_MOVE, serving

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
IN_CI = os.environ.get("CI", "").lower() == "true"


def _missing(what: str):
    if IN_CI:
        pytest.fail(f"{what} is missing under CI (make browser installs it)")
    pytest.skip(f"{what} is missing (make browser installs it)")


@pytest.fixture(scope="module")
def server(tiny_models):
    """hive-web on a free port, serving a tiny untrained checkpoint; yields its URL."""
    try:
        import uvicorn  # noqa: F401  (hive-web's server)

        from web import create_app
    except ImportError as e:
        _missing(f"a server package ({e.name})")
    with serving(create_app(tiny_models, sims=16)) as port:
        yield f"http://127.0.0.1:{port}"


@pytest.fixture(scope="module")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright (pip)")
    if not os.path.exists(CHROMIUM):
        _missing(f"chromium ({CHROMIUM})")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture
def page(browser, server):
    """A fresh page on the server; fails the test on any script error of the page."""
    errors = []
    pg = browser.new_page(viewport={"width": 1400, "height": 1000})
    pg.set_default_timeout(15_000)
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.goto(server + "/")
    idle(pg)
    yield pg
    pg.close()
    assert not errors, errors


def idle(pg) -> None:
    """Wait until the page has no request in flight (``body[data-busy]``) and has drawn a game."""
    pg.wait_for_function("document.body.dataset.busy === '0' && !!document.querySelector('#move-list li')")


def new_game(pg, opponent: str = "random", colour: str = "white") -> None:
    pg.select_option("#mode", "play")
    pg.select_option("#colour", colour)
    pg.select_option("#opponent", opponent)
    pg.click("#new-game")
    idle(pg)


def load(pg, game_string: str) -> None:
    pg.fill("#load-text", game_string)
    pg.click("#load")
    idle(pg)


def played(pg) -> list[str]:
    return pg.eval_on_selector_all("#move-list .move", "els => els.slice(1).map(e => e.textContent)")


def test_the_opponent_list_offers_the_shipped_network_and_defaults_to_the_newest(page):
    options = page.eval_on_selector_all("#opponent option", "els => els.map(e => e.value)")
    assert options[:3] == ["human", "shipped", "newest"]
    assert page.input_value("#opponent") == "newest"  # the models directory holds a checkpoint
    assert "shipped network" in page.inner_text("#opponent option[value=shipped]")


def test_a_level_is_chosen_and_the_engine_answers_at_it(page):
    """The level selector (1 to 10, the top by default) sets the AlphaZero opponent's
    level; the engine answers, and the page shows the level beside the game."""
    assert page.eval_on_selector_all("#level option", "els => els.map(e => e.value)") == [
        str(n) for n in range(1, 11)]
    assert page.input_value("#level") == "10"
    page.select_option("#level", "3")
    new_game(page, "shipped", colour="black")  # the engine opens
    assert len(played(page)) == 1
    assert "White: AlphaZero, the shipped network, level 3, 1 simulation a move" in page.inner_text("#seats")


def test_the_trays_and_tiles_name_the_bugs_and_sides(page):
    """The names come from the server's bug table (GET /api/bugs): the same text as the table
    the page once held; a tile has a number when its kind has several copies."""
    load(page, "Base+MLP;InProgress;White[2];wS1;bM wS1-")
    assert page.eval_on_selector_all("#tray-bottom .reserve-tile", "els => els.map(e => e.title)") == [
        "Queen (1 left)", "Spider (1 left)", "Beetle (2 left)", "Grasshopper (3 left)", "Ant (3 left)",
        "Mosquito (1 left)", "Ladybug (1 left)", "Pillbug (1 left)"]
    assert page.inner_text("#tray-bottom .tray-label") == "White"
    assert page.inner_text("#tray-top .tray-label") == "Black"
    assert page.inner_text("#status").startswith("Base+MLP: White to move (a person)")
    assert page.text_content(".cell[data-piece='wS1'] text.num") == "1"
    assert page.locator(".cell[data-piece='bM'] text.num").count() == 0


def test_play_a_whole_game_by_clicking(page, server):
    """Click a movable piece (board or reserve), then a lit destination, until the game ends
    (a page opened with ``?ply_cap=16`` caps games at 16 plies); then win a game by clicking
    the surrounding move."""
    page.goto(server + "/?ply_cap=16")
    idle(page)
    new_game(page, "random")
    for _ in range(10):
        if page.is_visible("#result-banner"):
            break
        before = page.locator("#move-list .move").count()
        page.locator(".movable").first.click()
        dest = page.locator(".dest").first
        assert dest.is_visible()
        dest.click()
        # the move and the engine's reply are drawn (or the game is over) before the next click:
        # idle() alone may see the page before the click's request has started
        page.wait_for_function(f"document.querySelectorAll('#move-list .move').length >= {before + 2} "
                               "|| !document.getElementById('result-banner').hidden")
        idle(page)
    assert page.is_visible("#result-banner")
    assert page.inner_text("#result-text") == "Draw: the ply cap (16 plies) is reached"
    assert len(played(page)) == 16
    assert page.locator(".movable").count() == 0 and page.locator(".dest").count() == 0

    page.goto(server + "/")
    idle(page)
    load(page, WIN_IN_ONE)
    assert not page.is_visible("#result-banner")
    page.click(f".cell[data-piece='{WIN_IN_ONE_MOVE.split()[0]}']")
    page.click(f".dest[data-move='{WIN_IN_ONE_MOVE}']")
    idle(page)
    assert page.inner_text("#result-text") == "White wins: the Black Queen is surrounded"
    assert "White wins" in page.inner_text("#status")


def test_an_illegal_click_does_nothing(page):
    new_game(page, "random")
    page.locator(".reserve-tile.movable[data-bug='A']").click()
    page.locator(".dest").first.click()
    idle(page)
    before = played(page)
    assert len(before) == 2
    requests = []
    page.on("request", lambda r: requests.append(r.url) if "/play" in r.url else None)
    black = page.locator(".cell.black").first  # the opponent's tile: not selectable
    black.click()
    assert page.locator(".dest").count() == 0 and page.locator(".selected").count() == 0
    page.locator(".reserve-tile.black").first.click()  # the opponent's reserve
    assert page.locator(".dest").count() == 0
    page.locator(".reserve-tile.white[data-bug='Q']").click()  # pick the Queen, then click off the board
    box = page.locator("#board").bounding_box()
    page.mouse.click(box["x"] + 5, box["y"] + 5)
    assert page.locator(".dest").count() == 0
    page.fill("#move-input", "wA1 bS1")  # typed, but illegal
    page.press("#move-input", "Enter")
    idle(page)
    assert page.is_visible("#error") and "illegal move" in page.inner_text("#error")
    assert played(page) == before and not requests[1:]


def test_load_a_game_string_and_step_with_arrow_keys(page):
    load(page, MIDGAME)
    moves = MIDGAME.split(";")[3:]
    assert played(page) == moves
    game = Game.from_string(MIDGAME)

    def tiles_on_board() -> int:
        return page.locator("#layer-tiles .cell").count()

    def at(ply: int) -> None:
        page.wait_for_function(f"document.querySelector('#move-list .move.current').dataset.ply === '{ply}'")
        idle(page)
        view = Game.from_string(MIDGAME)
        view.undo(game.ply - ply)
        cells = {int(view.board[i]) for i in range(1024, 1024 + 28) if view.board[i] >= 0}
        assert tiles_on_board() == len(cells)

    page.locator("#board").click(position={"x": 5, "y": 5})  # focus the page, not a text box
    page.keyboard.press("ArrowLeft")
    at(len(moves) - 1)
    assert page.is_visible("#browse-note") and page.locator(".movable").count() == 0
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    at(len(moves) - 3)
    page.keyboard.press("ArrowRight")
    at(len(moves) - 2)
    page.keyboard.press("Home")
    at(0)
    assert tiles_on_board() == 0
    page.click("#move-list .move[data-ply='5']")
    at(5)
    page.keyboard.press("End")
    at(len(moves))
    assert not page.is_visible("#browse-note") and page.locator(".movable").count() > 0


def test_analysis_panel_sums_to_one(page):
    load(page, MIDGAME)
    page.fill("#sims", "32")
    page.click("#analyse")
    page.wait_for_selector("#analysis-out:not([hidden])")
    idle(page)
    wdl = [float(page.get_attribute(f"#wdl-{k}", "data-value")) for k in ("white", "draw", "black")]
    assert sum(wdl) == pytest.approx(1.0, abs=1e-4) and all(0 < x < 1 for x in wdl)
    column = "t => t.map(e => +e.dataset.value)"
    priors = page.eval_on_selector_all("#top-moves tbody tr td:nth-child(2)", column)
    shares = page.eval_on_selector_all("#top-moves tbody tr td:nth-child(3)", column)
    assert sum(priors) == pytest.approx(1.0, abs=1e-4)
    assert sum(shares) == pytest.approx(1.0, abs=1e-4)
    assert page.locator("#layer-analysis .analysis-mark").count() > 0
    assert "32 simulations" in page.inner_text("#analysis-note")
    page.locator(".movable").first.click()  # the analysed position stays on screen with a selection
    if os.environ.get("HIVE_WEB_SCREENSHOT"):
        page.screenshot(path=os.environ["HIVE_WEB_SCREENSHOT"])


def test_analysis_labels_never_overlap(page):
    """At ply 2 every White placement goes to the few cells around the two first tiles, so
    several of the top moves share a destination: their labels are merged, moved or left out."""
    load(page, "Base;InProgress;White[2];wS1;bS1 wS1-")
    page.fill("#sims", "0")
    page.click("#analyse")
    page.wait_for_selector("#analysis-out:not([hidden])")
    idle(page)
    boxes = page.eval_on_selector_all(
        "#layer-analysis text", "els => els.map(e => { const b = e.getBoundingClientRect();"
        " return [b.left, b.top, b.right, b.bottom, e.textContent]; })")
    assert boxes, "no label drawn"
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], (a, b)


def _missed_win_game() -> str:
    game = Game.from_string(WIN_IN_ONE)
    for move in game.legal_move_strings():
        after = game.copy()
        after.play(move)
        if not after.is_over and move != WIN_IN_ONE_MOVE:
            return after.game_string()
    raise AssertionError("no other move")


def test_review_a_game_step_by_the_chart_and_see_the_best_move(page):
    page.select_option("#mode", "review")
    page.fill("#review-sims", "16")
    load(page, _missed_win_game())
    page.wait_for_function("document.querySelector('#review-status').textContent.startsWith('done')",
                           timeout=120_000)
    idle(page)
    n = len(played(page))
    # the move that missed the win in one is marked a blunder, in the list and on the chart
    last = page.locator(f"#move-list .mark[data-ply='{n}']")
    assert last.inner_text() == "??" and "missed win" in last.get_attribute("title")
    assert page.locator(f"#review-chart .chart-mark.blunder[data-ply='{n}']").count() == 1
    assert page.locator("#review-chart .chart-line").count() == 1
    # a click on the chart shows that ply's position
    box = page.locator("#review-chart").bounding_box()
    target = 5
    page.mouse.click(box["x"] + 6 + (box["width"] - 12) * target / n, box["y"] + box["height"] / 2)
    page.wait_for_function(f"document.querySelector('#move-list .move.current').dataset.ply === '{target}'")
    idle(page)
    view = Game.from_string(_missed_win_game())
    view.undo(n - target)
    cells = {int(view.board[i]) for i in range(1024, 1024 + 28) if view.board[i] >= 0}
    assert page.locator("#layer-tiles .cell").count() == len(cells)
    # at the position before the blunder the board shows the played move and the winning one
    page.keyboard.press("End")
    page.keyboard.press("ArrowLeft")
    page.wait_for_function(f"document.querySelector('#move-list .move.current').dataset.ply === '{n - 1}'")
    idle(page)
    best = page.get_attribute("#layer-review .review-move.best", "data-move")
    played_move = page.get_attribute("#layer-review .review-move.played", "data-move")
    assert played_move == played(page)[-1]
    assert best == WIN_IN_ONE_MOVE
    assert "missed win" in page.inner_text("#review-note")
    labels = page.eval_on_selector_all(
        "#layer-review text", "els => els.map(e => { const b = e.getBoundingClientRect();"
        " return [b.left, b.top, b.right, b.bottom]; })")
    assert len(labels) == 2
    a, b = labels
    assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], labels
    if os.environ.get("HIVE_WEB_REVIEW_SCREENSHOT"):
        page.screenshot(path=os.environ["HIVE_WEB_REVIEW_SCREENSHOT"])


def test_a_finished_game_offers_its_review_and_a_review_can_be_cancelled(page):
    load(page, WIN_IN_ONE)
    page.click(f".cell[data-piece='{WIN_IN_ONE_MOVE.split()[0]}']")
    page.click(f".dest[data-move='{WIN_IN_ONE_MOVE}']")
    idle(page)
    page.fill("#review-sims", "800")
    page.click("#review-banner")
    page.wait_for_selector("#review-cancel:visible")
    page.click("#review-cancel")
    page.wait_for_function("document.querySelector('#review-status').textContent === 'cancelled'",
                           timeout=180_000)  # the position being searched ends first: slow on a loaded core
    assert page.is_visible("#review-start") and not page.is_disabled("#review-start")


def test_a_record_file_of_another_format_loads(page):
    text = (ROOT / "tests" / "data" / "records" / "mzinga.pgn").read_text()
    load(page, text)
    assert played(page)[:3] == ["wP", "bL wP/", "wQ /wP"]
    assert "Base+MLP" in page.inner_text("#status")


def test_the_page_says_what_it_waits_for_and_is_usable_meanwhile(browser, server):
    """While the server has not answered, the status line names what the page waits for (not
    a bare "Loading...") and the load box already takes text."""
    pg = browser.new_page()
    held = []
    pg.route("**/api/players", lambda route: held.append(route))  # held unanswered until released below
    pg.goto(server + "/", wait_until="domcontentloaded")
    pg.wait_for_function("document.querySelector('#status').textContent.includes('players')")
    assert "asking the server" in pg.inner_text("#status")
    pg.fill("#load-text", "Base;InProgress;White[2];wS1;bS1 wS1-")
    assert len(held) == 1
    held[0].continue_()
    pg.wait_for_function("document.querySelector('#status').textContent.includes('to move')")
    pg.close()


def clock_text(pg, colour: str) -> str:
    return pg.inner_text(f"#clock-{colour} .time")


def test_a_clock_game_counts_down_and_is_lost_on_time(page):
    """Both clocks beside the board, the running one highlighted and counting down, the engine's
    after its reply; then a 2-second clock left to run out: the server declares the loss."""
    page.select_option("#clock", "60+1")
    new_game(page, "greedy")
    assert page.is_visible("#clock-white") and page.is_visible("#clock-black")
    assert clock_text(page, "black") == "1:00" and page.is_disabled("#undo")
    assert page.locator("#clock-white.running").count() == 1
    assert page.locator("#clock-black.running").count() == 0
    page.wait_for_function("document.querySelector('#clock-white .time').textContent === '0:58'",
                           timeout=5_000)  # counting down between the server's answers
    page.locator(".reserve-tile.movable[data-bug='G']").click()
    page.locator(".dest").first.click()
    idle(page)
    page.wait_for_function("document.querySelectorAll('#move-list .move').length === 3")  # the engine replied
    idle(page)
    assert page.locator("#clock-white.running").count() == 1
    assert clock_text(page, "white").startswith("0:5") or clock_text(page, "white") == "1:00"  # 60 - ~2 + 1
    assert clock_text(page, "black") in ("1:00", "1:01")  # 60 - its move + 1
    if os.environ.get("HIVE_WEB_CLOCK_SCREENSHOT"):
        page.screenshot(path=os.environ["HIVE_WEB_CLOCK_SCREENSHOT"])

    page.select_option("#clock", "custom")
    page.fill("#clock-custom", "2+0")
    new_game(page, "greedy")
    assert clock_text(page, "white").startswith("0:0")  # tenths under 10 s: 0:01.9
    page.wait_for_selector("#result-text", timeout=10_000)
    assert page.inner_text("#result-text") == "White loses on time: Black wins"
    assert "White loses on time" in page.inner_text("#status")
    assert clock_text(page, "white") == "0:00.0" and page.locator("#clock-white.flagged").count() == 1
    assert page.locator(".movable").count() == 0 and page.locator("#clock-white.running").count() == 0
