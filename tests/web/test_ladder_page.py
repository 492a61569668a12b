"""The Ladder page and a bot's page in real headless Chromium: a server with a ladder
(a real SQLite archive), the example bot connected with `gamehost bot run`; the
standings list it beside the house levels, its page draws its rating over time and
lists its games, each opening its replay."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from gamehost import Client
from services.ladder.model import LadderConfig, LadderSpec
from services.server import ServerConfig, ServerThread
from tests.api.test_docs_examples import doc_blocks
from tests.procs import ServiceProcess, wait_until

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "bots" / "random_bot.py"


@pytest.fixture(scope="module")
def laddered(tmp_path_factory) -> Iterator[str]:
    """A server whose ladder has rated the example bot 3 times: its web URL."""
    folder = tmp_path_factory.mktemp("ladder")
    ladder = LadderConfig(ladders=(LadderSpec("cite", 2),), house=("random", "greedy"), tables=2)
    config = ServerConfig(
        port=0,
        http_port=0,
        bot_workers=1,
        rate_limit=0,
        archive_url=f"sqlite:///{folder / 'archive.sqlite3'}",
        archive_create=True,
        ladder=ladder,
    )
    with ServerThread(config) as server, Client(server.target) as client:
        key = client.register_bot("webbot", "cite", 2).key
        args = ["bot", "run", "--target", server.target, "--cmd", f"{sys.executable} {EXAMPLE}"]
        runner = ServiceProcess(args, folder / "run.log", env={"GAMEHOST_BOT_KEY": key})
        runner.start()
        try:
            wait_until(
                lambda: any(b.bot == "webbot" and b.games >= 3 for b in client.list_bots()),
                180,
                "3 rated games of the example bot",
            )
        finally:
            runner.kill_group()
        yield server.running.http_url


def test_the_ladder_and_a_bots_page(page: Page, laddered: str) -> None:
    page.goto(f"{laddered}/#/")
    page.get_by_role("link", name="Ladder").click()
    expect(page.locator("#ladder")).to_have_attribute("data-ladder", "cite:2")
    rows = page.locator("#ladder table.standings tbody tr")
    expect(rows).to_have_count(3)
    for name in ("webbot", "greedy", "random"):
        expect(page.locator(f'#ladder tr[data-bot="{name}"]')).to_be_visible()
    expect(page.locator('#ladder tr[data-bot="greedy"]')).to_contain_text("greedy")
    page.locator('#ladder tr[data-bot="webbot"] a').click()
    expect(page).to_have_url(f"{laddered}/#/bot/webbot")
    expect(page.locator("#bot")).to_have_attribute("data-status", "active")
    expect(page.locator("#bot .reason")).to_contain_text("passed its validation game")
    expect(page.locator("svg.rating-chart path.mu")).to_have_count(1)
    games = page.locator("table.bot-games tbody tr")
    expect(games.first).to_be_visible()
    assert games.count() >= 4  # 3 rated and the validation game
    expect(page.locator("table.bot-games")).to_contain_text("validation")
    game_id = games.first.get_attribute("data-game-id")
    games.first.get_by_role("link", name="Replay").click()
    # The replay adds its step to the URL once the record is drawn (?step=0).
    expect(page).to_have_url(re.compile(rf"{re.escape(laddered)}/#/replay/{game_id}(\?step=0)?$"))
    expect(page.locator("#replay")).to_be_visible()


def test_the_ladder_page_fits_a_phone(page: Page, laddered: str) -> None:
    """On a 390 px wide phone the page scrolls no wider than the screen, and every
    column of the standings (its heading and each row's cell) lies whole within it."""
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{laddered}/#/ladder")
    expect(page.locator("#ladder table.standings tbody tr")).to_have_count(3)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    cut = page.evaluate(
        """() => [...document.querySelectorAll("#ladder table.standings td")]
            .filter((cell) => {
              const box = cell.getBoundingClientRect();
              return box.left < 0 || box.right > 390 || cell.scrollWidth > cell.clientWidth;
            })
            .map((cell) => cell.dataset.label + ": " + cell.textContent)"""
    )
    assert cut == []
    shown = page.evaluate(
        """() => [...document.querySelectorAll("#ladder table.standings tbody tr:first-child td")]
            .filter((cell) => getComputedStyle(cell).display !== "none")
            .map((cell) => cell.dataset.label)"""
    )
    # Every column is shown, each cell with its column's name beside it.
    headings = page.locator("#ladder table.standings thead th").all_text_contents()
    assert shown == headings and len(headings) == 9


@pytest.mark.refusals_expected  # GetLadder is refused: FAILED_PRECONDITION, HTTP 400
def test_a_server_without_a_ladder_says_so(page: Page, base_url: str) -> None:
    page.goto(f"{base_url}/#/ladder")
    expect(page.locator("p.error")).to_contain_text("runs no ladder")


def test_a_bot_in_a_browser_page_plays_over_fetch(page: Page, laddered: str) -> None:
    """docs/bot-protocol.md's browser bot, as written: registered from the page, it
    reads ConnectBot's events with fetch and an Authorization header, answers each act
    with BotReply, and passes its validation game."""
    blocks = [text for language, text in doc_blocks("docs/bot-protocol.md") if language == "js"]
    assert len(blocks) == 1
    page.goto(f"{laddered}/#/")
    key = page.evaluate(
        """async () => {
          const body = JSON.stringify({ name: "fetchbot", gameType: "cite", players: 2 });
          const headers = { "Content-Type": "application/json" };
          const made = await fetch("/v1/bots", { method: "POST", headers, body });
          return (await made.json()).key;
        }"""
    )
    assert key.startswith("ghb_")
    page.evaluate(f"(key) => {{\n{blocks[0]}\nwindow.playing = playFirstMoves(key);\n}}", key)

    def status() -> str:
        found = page.evaluate("async () => (await (await fetch('/v1/bots/fetchbot')).json())")
        return found["bot"]["status"]

    wait_until(lambda: status() == "BOT_ACTIVE", 120, "the browser's bot to pass validation")


def test_a_bot_accounts_player_page_draws_its_rating_over_time(page: Page, laddered: str) -> None:
    """A bot is an account: its player page shows its ladder rating, the chart of its
    bot page, and its ladder games (docs/accounts.md#the-web-client)."""
    page.goto(f"{laddered}/#/player/webbot")
    expect(page.locator("#player")).to_have_attribute("data-kind", "bot")
    expect(page.locator("#player table.ratings tbody tr")).to_have_count(1)
    expect(page.locator("#player table.ratings")).to_contain_text("cite")
    expect(page.locator("#player svg.rating-chart path.mu")).to_have_count(1)
    games = page.locator("table.player-games tbody tr")
    expect(games.first).to_be_visible()
    assert games.count() >= 4  # 3 rated and the validation game
    expect(page.locator("table.player-games")).to_contain_text("validation")
    page.get_by_role("link", name="its ladder page").click()
    expect(page).to_have_url(f"{laddered}/#/bot/webbot")
