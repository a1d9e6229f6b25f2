"""`fishing2sim serve` in a real browser (Debian's chromium driven by Playwright, as the
report's page test): whole games played by clicking and by the keyboard, with a scripted
choice at each decision (the first legal option), end with the points of the engine's own
game with the same choices; an illegal card is refused with the rule; the page fits 800 px."""
from __future__ import annotations

import json
import threading

import pytest

if __import__("os").environ.get("CI", "").lower() != "true":  # CI: a missing extra fails
    pytest.importorskip("starlette")
    pytest.importorskip("uvicorn")

from test_html_report import ARGS, CHROMIUM, _browser_or_skip  # noqa: E402
from test_serve import engine_replay  # noqa: E402

TOKEN = "browser-test-token"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    import uvicorn

    from fishing2sim.serve.app import make_app
    from fishing2sim.serve.server import allowed_hosts, bind

    sock = bind("127.0.0.1", 0)
    port = sock.getsockname()[1]
    app = make_app(tmp_path_factory.mktemp("served"), TOKEN, allowed_hosts("127.0.0.1", port),
                   cookie=f"fishing2sim_{port}")
    srv = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    th = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    th.start()
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    th.join(timeout=30)
    sock.close()


def _start(page, base, ruleset, players, seat, bots, seed):
    page.goto(f"{base}/?token={TOKEN}")
    page.select_option("select[name=ruleset]", ruleset)
    page.select_option("select[name=players]", str(players))
    page.fill("input[name=seat]", str(seat))
    page.fill("input[name=seed]", str(seed))
    for p, b in enumerate(bots):
        page.select_option(f"select[name=bot{p}]", b)
    page.click("#new button[type=submit]")
    page.wait_for_url("**/game/*")
    page.goto(page.url + "?pace=0")


def _decision(page) -> int:
    page.wait_for_function("['waiting', 'over'].includes(document.getElementById('app')"
                           ".dataset.state)")
    if page.get_attribute("#app", "data-state") == "over":
        return -1
    return int(page.inner_text("#prompt").split(":")[0].split()[1])


def _play_out(page, keyboard: bool, try_illegal: bool = False) -> tuple[int, bool]:
    """Answer every decision with its first legal option (Enter on the focused first
    legal button, or a click); returns the decisions made and whether an illegal card was
    refused."""
    n = _decision(page)
    refused = False
    made = 0
    while n != -1:
        if try_illegal and not refused and page.locator("#options button.illegal").count():
            page.locator("#options button.illegal").first.click()
            page.wait_for_function("document.getElementById('message').textContent !== ''")
            assert "A5: once a suit is set" in page.inner_text("#message")
            assert _decision(page) == n  # refused: still the same decision
            refused = True
        if keyboard:
            assert page.evaluate("document.activeElement.classList.contains('legal')")
            page.keyboard.press("Enter")
        else:
            page.locator("#options button.legal").first.click()
        page.wait_for_function(
            f"document.getElementById('app').dataset.state === 'over' || "
            f"document.getElementById('prompt').textContent.startsWith('Decision {n + 1}:')")
        made += 1
        n = _decision(page)
    return made, refused


@pytest.mark.parametrize("ruleset,players,seat,bots,seed,keyboard", [
    ("fishing2", 4, 1, ["random", "greedy", "random", "greedy"], 28, True),
    ("fishing", 3, 0, ["random", "greedy", "random"], 12, False),
])
def test_a_whole_game_played_in_the_browser_is_the_engines_game(
        server, ruleset, players, seat, bots, seed, keyboard):
    sync_playwright = _browser_or_skip()
    errors = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 800, "height": 900})
            page.on("pageerror", lambda e: errors.append(str(e)))
            _start(page, server, ruleset, players, seat, bots, seed)
            assert _decision(page) == 1
            # the page fits 800 px: nothing wider than the window
            assert page.evaluate("document.documentElement.scrollWidth") <= 800
            page.reload()  # a game in progress survives a reload
            assert _decision(page) == 1
            page.keyboard.press("h")  # the hint, by keyboard
            page.wait_for_selector("#hint-table")
            assert page.locator("#hint-table tr").count() == \
                page.locator("#options button.legal").count() + 1
            assert page.locator("#options button.best").count() == 1
            made, refused = _play_out(page, keyboard, try_illegal=ruleset == "fishing2")
            points = json.loads(page.get_attribute("#final", "data-points"))
            if ruleset == "fishing2":
                assert refused
            else:  # the review after the game
                page.click("#review-button")
                page.wait_for_selector("#decisions tr:nth-child(2)")
                assert page.locator("#decisions tr").count() == made + 1
                assert page.locator("#rounds tr").count() >= 2
        finally:
            browser.close()
    assert errors == []
    assert made > 40
    assert points == engine_replay(ruleset, players, seat, bots, seed)
