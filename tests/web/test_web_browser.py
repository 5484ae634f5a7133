"""``hive-web`` in a real headless Chromium (Debian's ``chromium``, driven by Playwright):
clicking pieces and destinations to the end of a game, illegal clicks, loading and stepping
through a game with the arrow keys, and the analysis panel.

Skipped when Chromium or Playwright is missing, except under CI (``CI=true``), where that is a
failure: ``make test`` installs both (``make browser``). Set ``HIVE_WEB_SCREENSHOT=path.png`` to
save a screenshot of the analysed mid-game position (how ``docs/web.png`` is made).
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time

import pytest

from hive_env import Game
from models.gnn import build_model
from search.checkpoint import save_checkpoint

from helpers import MIDGAME, WIN_IN_ONE, WIN_IN_ONE_MOVE

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
IN_CI = os.environ.get("CI", "").lower() == "true"


def _missing(what: str):
    if IN_CI:
        pytest.fail(f"{what} is missing under CI (make browser installs it)")
    pytest.skip(f"{what} is missing (make browser installs it)")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """hive-web on a free port, serving a tiny untrained checkpoint; yields its URL."""
    try:
        import uvicorn

        from web import create_app
    except ImportError as e:
        _missing(f"a server package ({e.name})")
    models = tmp_path_factory.mktemp("models")
    save_checkpoint(models / "tiny" / "ckpt_1.pt", build_model("tiny"))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(create_app(models, sims=16), host="127.0.0.1", port=port,
                                        log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert srv.started, "hive-web did not start"
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(10)


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
        page.locator(".movable").first.click()
        dest = page.locator(".dest").first
        assert dest.is_visible()
        dest.click()
        idle(page)
    assert page.is_visible("#result-banner")
    assert page.inner_text("#result-banner") == "Draw: the ply cap (16 plies) is reached"
    assert len(played(page)) == 16
    assert page.locator(".movable").count() == 0 and page.locator(".dest").count() == 0

    page.goto(server + "/")
    idle(page)
    load(page, WIN_IN_ONE)
    assert not page.is_visible("#result-banner")
    page.click(f".cell[data-piece='{WIN_IN_ONE_MOVE.split()[0]}']")
    page.click(f".dest[data-move='{WIN_IN_ONE_MOVE}']")
    idle(page)
    assert page.inner_text("#result-banner") == "White wins: the Black Queen is surrounded"
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
