"""Accounts in the web client (issue 60), in real headless Chromium against a real
server with a real SQLite archive (accounts live there): signing in by picking a name,
the key kept across a reload and carried to a second browser by "copy my key", joins
and creates that bind the seat to the account, "My games" with your turn marked and
"Continue", a player's page, the lobby and history showing names, guest marks, the
winner and the version, and all of it within a 390 px phone."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from gamehost import Client
from gamehost.v1 import gamehost_pb2 as pb
from services.server import ServerConfig, ServerThread
from tests.polling import wait_until


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[ServerThread]:
    archive = tmp_path_factory.mktemp("accounts") / "archive.sqlite3"
    config = ServerConfig(
        port=0,
        http_port=0,
        bot_workers=1,
        rate_limit=0,
        archive_url=f"sqlite:///{archive}",
        archive_create=True,
    )
    with ServerThread(config) as running:
        yield running


@pytest.fixture(scope="module")
def url(server: ServerThread) -> str:
    assert server.running is not None and server.running.http_url
    return server.running.http_url


def sign_up(page: Page, url: str, name: str) -> str:
    """Creates the account in the page; its key, as the browser keeps it."""
    page.goto(f"{url}/#/account")
    page.fill("#account-name", name)
    page.locator("#create-account button[type=submit]").click()
    expect(page).to_have_url(f"{url}/#/me")
    expect(page.locator("#account-link")).to_have_text(name)
    return page.evaluate("JSON.parse(localStorage.getItem('gamehost.account')).key")


def play_out(client: Client, game_id: str, tokens: list[str]) -> pb.GameState:
    """Seat 0 plays its first legal move, seat 1 its last, until the game is over."""

    def step() -> pb.GameState | None:
        for seat, token in enumerate(tokens):
            state = client.state(game_id, token)
            if state.status == pb.FINISHED:
                return state
            if state.legal_actions:
                client.submit(game_id, token, state.legal_actions[-seat].id)
        return None

    return wait_until(step, 120, f"game {game_id} to finish")


def test_sign_in_keeps_the_key_and_carries_it_to_another_browser(
    page: Page, browser: Browser, url: str, server: ServerThread
) -> None:
    key = sign_up(page, url, "alice")
    assert key.startswith("gha_")
    page.reload()
    expect(page.locator("#account-link")).to_have_text("alice")
    page.goto(f"{url}/#/account")
    expect(page.locator("#account")).to_have_attribute("data-account", "alice")
    page.click("#copy-key")
    copied = page.locator("#key-shown").input_value()
    assert copied == key
    # Another device: a fresh context signs in with the name and the copied key.
    other = browser.new_context(viewport={"width": 1000, "height": 800})
    try:
        second = other.new_page()
        second.goto(f"{url}/#/account")
        second.fill("#signin-name", "ALICE")  # found in any case, shown as created
        second.fill("#signin-key", "gha_not-a-key")
        second.locator("#key-sign-in button[type=submit]").click()
        expect(second.locator("#key-sign-in .error")).not_to_be_empty()
        expect(second.locator("#account-link")).to_have_text("Sign in")
        second.fill("#signin-key", copied)
        second.locator("#key-sign-in button[type=submit]").click()
        expect(second).to_have_url(f"{url}/#/me")
        expect(second.locator("#account-link")).to_have_text("alice")
        # A game created in the lobby there belongs to alice.
        second.goto(f"{url}/#/")
        second.click('label[for="type-cite"]')
        second.select_option("#players", "2")
        expect(second.locator('[data-seat-name="0"]')).to_have_value("alice")
        second.click("#create")
        game = second.locator('#game[data-viewer="0"]')
        game.wait_for()
        game_id = game.get_attribute("data-game-id") or ""
        with Client(server.target) as client:
            seat = client.state(game_id).seats[0]
            assert (seat.account, seat.account_kind) == ("alice", pb.ACCOUNT_HUMAN)
        second.goto(f"{url}/#/account")
        second.click("#sign-out")
        expect(second.locator("#account-link")).to_have_text("Sign in")
        assert second.evaluate("localStorage.getItem('gamehost.account')") is None
    finally:
        other.close()
    expect(page.locator("#account-link")).to_have_text("alice")  # signed in here still


def test_my_games_marks_your_turn_and_continue_opens_the_seat(
    page: Page, url: str, server: ServerThread
) -> None:
    key = sign_up(page, url, "bob")
    with Client(server.target) as anon, Client(server.target, key=key) as bob:
        waiting = anon.create_game("cite", ["human", "human"], seed=3).game_id
        anon.join(waiting, 0, "Gina")
        bob.join(waiting, 1)
        mine = anon.create_game("cite", ["human", "human"], seed=3).game_id
        bob.join(mine, 0)
        anon.join(mine, 1, "Hugo")
        turns = {g.game_id: g.your_turn for g in bob.my_games()}
    # Seed 3 opens with seat 0 to move in both: bob's turn in one, not in the other.
    assert turns == {mine: True, waiting: False}
    page.reload()  # at #/me already (sign_up): read the list again now
    rows = page.locator("table.my-games tbody tr")
    expect(rows).to_have_count(2)
    for game_id, yours in turns.items():
        row = page.locator(f'table.my-games tr[data-game-id="{game_id}"]')
        expect(row).to_have_attribute("data-your-turn", "true" if yours else "false")
        expect(row).to_contain_text("your turn" if yours else "waiting")
    expect(page.locator(f'tr[data-game-id="{waiting}"] .who.guest')).to_contain_text("Gina")
    # The seat's token is not in this browser yet: Continue gets it with the key.
    assert page.evaluate("localStorage.getItem('gamehost.seats')") is None
    page.locator(f'tr[data-game-id="{mine}"] button.continue').click()
    game = page.locator(f'#game[data-game-id="{mine}"][data-viewer="0"]')
    game.wait_for()
    expect(page.locator("#actions button.action").first).to_be_visible()


def test_lobby_history_and_player_page_show_names_and_the_winner(
    page: Page, url: str, server: ServerThread
) -> None:
    with Client(server.target) as anon:
        key = anon.create_account("carol").key
        with Client(server.target, key=key) as carol:
            game_id = anon.create_game(
                "cite", ["human", "human"], seed=2, options={"round_limit": 3}
            ).game_id
            tokens = [carol.join(game_id, 0).token, anon.join(game_id, 1, "Ivy").token]
        final = play_out(anon, game_id, tokens)
        returns = list(final.returns)
        wait_until(
            lambda: any(g.game_id == game_id for g in anon.list_games(status=pb.FINISHED)),
            60,
            "the game listed as finished",
        )
        listed = next(g for g in anon.list_games(status=pb.FINISHED) if g.game_id == game_id)
    assert list(listed.returns) == returns and len(returns) == 2
    # The highest return won (both, in a draw); a guest's name carries its mark.
    winner = ", ".join(
        n for n, r in zip(["carol", "Ivyguest"], returns, strict=True) if r == max(returns)
    )
    page.goto(f"{url}/#/")
    row = page.locator(f'#game-lists tr[data-game-id="{game_id}"]')
    names = row.locator("td.names")
    expect(names.locator('.who.account[data-account="carol"] a')).to_have_attribute(
        "href", "#/player/carol"
    )
    expect(names.locator(".who.guest")).to_contain_text("Ivy")
    expect(names.locator(".who.guest .badge")).to_have_text("guest")
    expect(row.locator(".winner")).to_have_text(winner)
    expect(row.locator("td.steps")).to_have_text(str(final.version))
    page.goto(f"{url}/#/history")
    row = page.locator(f'table.history tr[data-game-id="{game_id}"]')
    expect(row.locator(".names")).to_have_text("carol, Ivyguest")
    expect(row.locator(".winner")).to_have_text(winner)
    row.locator("td.names").get_by_role("link", name="carol").click()
    expect(page).to_have_url(f"{url}/#/player/carol")
    expect(page.locator("#player")).to_have_attribute("data-kind", "human")
    expect(page.locator("#player .no-ratings")).to_be_visible()
    expect(page.locator(f'table.player-games tr[data-game-id="{game_id}"] .winner')).to_have_text(
        winner
    )


def test_a_players_page_draws_its_rating_over_time(
    page: Page, url: str, server: ServerThread
) -> None:
    with Client(server.target) as anon:
        keys = {n: anon.create_account(n).key for n in ("erin", "frank")}
        games = []
        for seed in (3, 4):  # two rated games, one after the other
            game_id = anon.create_game(
                "cite", ["human", "human"], seed=seed, options={"round_limit": 3}, rated=True
            ).game_id
            tokens = []
            for key in keys.values():
                with Client(server.target, key=key) as player:
                    tokens.append(player.join(game_id).token)
            play_out(anon, game_id, tokens)
            games.append(game_id)

        def points() -> list[str]:
            return [p.game_id for r in anon.account("erin").ratings for p in r.history]

        wait_until(lambda: points() == games, 60, "both games rated")
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{url}/#/player/erin")
    history = page.locator('#player .rating-history .history[data-game-type="cite"]')
    expect(history).to_have_attribute("data-players", "2")
    expect(history).to_have_attribute("data-points", "2")
    chart = history.locator("svg.rating-chart")
    expect(chart.locator("path.mu")).to_have_count(1)
    expect(chart.locator("path.ordinal")).to_have_count(1)
    # One line through both games: a move, then one segment.
    assert chart.locator("path.mu").get_attribute("d").count("L") == 1
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the player page is {width} px wide"


@pytest.mark.refusals_expected  # the player page of a name nobody has: 404
def test_the_account_pages_fit_a_phone(page: Page, url: str) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    sign_up(page, url, "dora-on-a-phone")
    for route, ready in (
        ("#/me", "table.my-games, #my-games p.muted"),
        ("#/account", "#account"),
        ("#/", "#game-lists"),
        ("#/history", "section.card h1"),
        ("#/player/dora-on-a-phone", "#player"),
        ("#/player/nobody-here", "p.error"),
    ):
        page.goto(f"{url}/{route}")
        page.locator(ready).first.wait_for()
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"{route} is {width} px wide"
