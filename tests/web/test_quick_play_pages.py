"""Quick play in the web client (issue 60), in real headless Chromium against a real
server (the in-memory store, a SQLite archive for accounts and ratings, the real
matchmaker): alice and bob press "Play now" for Cité from two browsers, are matched
with each other, play to the end by clicking, and see their ratings change and the
game under "My games"; a third player's Catan "Play now" is filled with house bots
once the wait is over, and the game plays on.

Two servers, because one wait cannot serve both: the Cité server's wait is long, so
alice is still queued when bob presses (a pair is matched as soon as both are queued,
whatever the wait); the Catan server's is short, so its bots come soon."""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from gamehost import Client
from gamehost.errors import GameError
from gamehost.v1 import gamehost_pb2 as pb
from services.matchmaking.config import QuickPlayConfig
from services.server import ServerConfig, ServerThread
from tests.polling import wait_until
from tests.web.conftest import ARTEFACTS

MAX_CLICKS = 400
# Cité's quick play: a wait no test run comes near (bob presses while alice is queued);
# a move timer as long, so every move is a click, none the fallback bot's.
PAIRED = QuickPlayConfig(wait=600.0, house=("random",), move_seconds=600.0)
# Catan's: the empty seats go to the random house level after a short wait.
FILLED = QuickPlayConfig(wait=0.5, house=("random",), move_seconds=600.0)

# The page can take the next click: the game is over, or the viewer has something to
# click at a version other than the one last acted at, nothing being submitted and no
# one else's move still playing out.
READY_JS = """([last]) => {
  const game = document.querySelector('#game');
  if (!game) return false;
  if (game.dataset.status === 'FINISHED') return true;
  if (game.dataset.playing === 'true' || game.classList.contains('busy')) return false;
  if (game.dataset.version === last) return false;
  return document.querySelector(
    '#actions button.action, #board [data-target].clickable, .city.deal-target') !== null;
}"""


def _server(tmp_path_factory, name: str, quick: QuickPlayConfig) -> Iterator[ServerThread]:
    archive = tmp_path_factory.mktemp(name) / "archive.sqlite3"
    config = ServerConfig(
        port=0,
        http_port=0,
        bot_workers=1,
        rate_limit=0,
        archive_url=f"sqlite:///{archive}",
        archive_create=True,
        quick_play=quick,
    )
    with ServerThread(config) as running:
        yield running


@pytest.fixture(scope="module")
def paired(tmp_path_factory) -> Iterator[ServerThread]:
    yield from _server(tmp_path_factory, "paired", PAIRED)


@pytest.fixture(scope="module")
def filled(tmp_path_factory) -> Iterator[ServerThread]:
    yield from _server(tmp_path_factory, "filled", FILLED)


def http_url(server: ServerThread) -> str:
    assert server.running is not None and server.running.http_url
    return server.running.http_url


def sign_up(page: Page, url: str, name: str) -> None:
    page.goto(f"{url}/#/account")
    page.fill("#account-name", name)
    page.locator("#create-account button[type=submit]").click()
    expect(page).to_have_url(f"{url}/#/me")
    expect(page.locator("#account-link")).to_have_text(name)


def choose(page: Page, game_type: str, players: int) -> None:
    """Picks the game and player count in "Play now" (the counts the game takes)."""
    expect(page.locator(f'#quick-type option[value="{game_type}"]')).to_have_count(1)
    page.select_option("#quick-type", game_type)
    page.select_option("#quick-players", str(players))


def matched_game(page: Page) -> tuple[str, int]:
    """The game "Play now" opened, and the seat it opened it as."""
    game = page.locator("#game[data-game-id][data-viewer]")
    game.wait_for()
    viewer = game.get_attribute("data-viewer") or ""
    assert viewer.isdigit(), f"the game opened as {viewer!r}, not as a seat"
    return game.get_attribute("data-game-id") or "", int(viewer)


def click_a_move(page: Page) -> None:
    """One move by clicking, as a player does (Cité's deal on the board)."""
    deal_targets = page.locator(".city.deal-target")
    drawn = page.locator(".cite-card.clickable")
    if deal_targets.count() == 0 and drawn.count() > 0:
        drawn.first.click()  # pick the card to deal, then the city
        deal_targets.first.wait_for()
    if deal_targets.count() > 0:
        deal_targets.first.click()
    elif page.locator("#board [data-target].clickable").count():
        page.locator("#board [data-target].clickable").first.click()
    else:
        page.locator("#actions button.action").first.click()


def test_alice_and_bob_are_matched_play_cite_out_and_see_their_ratings(
    browser: Browser, paired: ServerThread
) -> None:
    url = http_url(paired)
    contexts: list[BrowserContext] = []
    pages: dict[str, Page] = {}
    errors: list[str] = []
    try:
        for name in ("alice", "bob"):
            context = browser.new_context(viewport={"width": 1200, "height": 900})
            context.set_default_timeout(30_000)
            contexts.append(context)
            page = context.new_page()
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            sign_up(page, url, name)
            pages[name] = page
        alice, bob = pages["alice"], pages["bob"]
        # No rating before the game: the player page says so.
        alice.goto(f"{url}/#/player/alice")
        expect(alice.locator("#player .no-ratings")).to_be_visible()
        # Alice queues, and leaves: the server no longer holds her.
        alice.goto(f"{url}/#/me")
        choose(alice, "cite", 2)
        alice.click("#play-now-button")
        expect(alice.locator("#queue-wait")).to_contain_text("Waiting for players… 0:0")
        expect(alice.locator("#play-now-button")).to_be_disabled()
        alice.click("#leave-queue")
        expect(alice.locator("#queue-wait")).to_have_text("")
        expect(alice.locator("#play-now-button")).to_be_enabled()
        # Leaving is quiet: the aborted call may have taken her out before the DELETE
        # (which then answers 404: the browser logs it, the page shows nothing).
        expect(alice.locator("#play-now .error")).to_be_empty()
        key = alice.evaluate("JSON.parse(localStorage.getItem('gamehost.account')).key")
        with Client(paired.target, key=key) as as_alice, pytest.raises(GameError) as left:
            as_alice.leave_queue()
        assert left.value.code == grpc.StatusCode.NOT_FOUND
        # Both press Play now: matched with each other, each at their own seat.
        alice.click("#play-now-button")
        expect(alice.locator("#queue-wait")).to_contain_text("Waiting for players…")
        choose(bob, "cite", 2)
        bob.click("#play-now-button")
        game_id, alice_seat = matched_game(alice)
        bob_game, bob_seat = matched_game(bob)
        assert bob_game == game_id and {alice_seat, bob_seat} == {0, 1}
        with Client(paired.target) as anyone:
            seats = anyone.state(game_id).seats
        assert seats[alice_seat].account == "alice" and seats[bob_seat].account == "bob"
        # Play to the end by clicking, each in their own browser, whoever is to move.
        last = {name: "" for name in pages}

        def ready() -> str | None:
            for name, page in pages.items():
                if page.evaluate(READY_JS, [last[name]]):
                    return name
            return None

        clicks = 0
        while clicks < MAX_CLICKS:
            mover = wait_until(ready, 60, "a page ready for its next click")
            page = pages[mover]
            game = page.locator("#game")
            if game.get_attribute("data-status") == "FINISHED":
                break
            last[mover] = game.get_attribute("data-version") or ""
            click_a_move(page)
            clicks += 1
        for page in pages.values():
            expect(page.locator("#game")).to_have_attribute("data-status", "FINISHED")
            expect(page.locator("#status")).to_contain_text("Game over")
        assert clicks > 10, f"the game was over after {clicks} clicks"
        with Client(paired.target) as anyone:
            final = anyone.state(game_id)
            assert final.status == pb.FINISHED
            # Rated once archived: wait for it, then each sees it on the pages.
            for name in pages:
                wait_until(lambda name=name: anyone.account(name).ratings, 60, f"{name} rated")
            ratings = {name: anyone.account(name).ratings[0] for name in pages}
        for name, page in pages.items():
            rating = ratings[name]
            assert (rating.game_type, rating.players, rating.games) == ("cite", 2, 1)
            assert rating.mu != pytest.approx(25.0)
            # The game page said what the game did to the rating: the ordinal's change,
            # from nothing (a newcomer's ordinal is 0) to the one the archive holds.
            note = page.locator("#status #rating-change strong")
            expect(note).to_have_text(f"{rating.ordinal:+.2f}")
            if name == "bob":  # the note fits a 390 px phone
                page.set_viewport_size({"width": 390, "height": 844})
                width = page.evaluate("document.documentElement.scrollWidth")
                assert width <= 390, f"the finished game page is {width} px wide"
            ARTEFACTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(ARTEFACTS / f"quick_play_cite_{name}.png"), full_page=True)
            page.goto(f"{url}/#/player/{name}")
            row = page.locator('table.ratings tr[data-game-type="cite"][data-players="2"]')
            expect(row.locator("td.games")).to_have_text("1")
            expect(row.locator("td.mu")).to_have_text(f"{rating.mu:.2f}")
            expect(row.locator("td.ordinal")).to_have_text(f"{rating.ordinal:.2f}")
            page.goto(f"{url}/#/me")
            mine = page.locator(f'table.my-games tr[data-game-id="{game_id}"]')
            expect(mine).to_have_attribute("data-status", "FINISHED")
            expect(mine).to_contain_text("over · won by")
        # As the page fixture: an EventSource closed by navigation is no script error,
        # nor the DELETE's 404 the browser logs after Cancel (above).
        script_errors = [
            e
            for e in errors
            if "EventSource" not in e and "net::" not in e and "Failed to load resource" not in e
        ]
        assert not script_errors, f"errors in the pages: {script_errors}"
    finally:
        for context in contexts:
            context.close()


def test_catan_play_now_is_filled_with_bots_after_the_wait_and_plays_on(
    page: Page, filled: ServerThread
) -> None:
    url = http_url(filled)
    sign_up(page, url, "carol")
    choose(page, "catan", 3)
    page.click("#play-now-button")
    game_id, seat = matched_game(page)
    with Client(filled.target) as anyone:
        state = anyone.state(game_id)
    kinds = [(s.account, s.kind) for s in state.seats]
    assert kinds[seat] == ("carol", pb.HUMAN)
    assert [k for i, k in enumerate(kinds) if i != seat] == [("", pb.BOT)] * 2
    page.select_option("#bot-speed", "instant")
    game = page.locator("#game")
    # Carol's set-up moves, by clicking the map, whoever the seats put first; the bots
    # move in between.
    last = ""
    for _ in range(2):
        page.wait_for_function(READY_JS, arg=[last], timeout=60_000)
        last = game.get_attribute("data-version") or ""
        click_a_move(page)
    expect(page.locator(f'path.settlement[data-seat="{seat}"]')).to_have_count(1)
    expect(page.locator(f'line.road[data-seat="{seat}"]')).to_have_count(1)
    # The bots play on: each has placed its first settlement on the map.
    for bot in {0, 1, 2} - {seat}:
        expect(page.locator(f'path.settlement[data-seat="{bot}"]')).not_to_have_count(0)
