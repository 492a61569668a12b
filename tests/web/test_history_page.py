"""The History page in real headless Chromium: finished games from the archive (a
real SQLite archive behind a real server), filtered by game and by a seat's name,
each opening its replay."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from gamehost import Client
from gamehost.v1 import gamehost_pb2 as pb
from services.server import ServerConfig, ServerThread
from tests.procs import wait_until


@pytest.fixture(scope="module")
def archived(tmp_path_factory) -> Iterator[tuple[str, str, str]]:
    """A server with an archive holding two finished games: (its URL, Hana's game, the other)."""
    archive = tmp_path_factory.mktemp("archive") / "archive.sqlite3"
    config = ServerConfig(
        port=0,
        http_port=0,
        bot_workers=1,
        rate_limit=0,
        archive_url=f"sqlite:///{archive}",
        archive_create=True,
    )
    with ServerThread(config) as server, Client(server.target) as client:
        hana = client.create_game(
            "cite", [pb.SeatSpec(kind=pb.BOT, bot_level="random", name="Hana"), "bot:random"]
        ).game_id
        other = client.create_game("endeavor", ["bot:random"] * 3).game_id
        # Seen finished is archived: the embedded store archives a finish before showing it.
        wait_until(
            lambda: sum(g.status == pb.FINISHED for g in client.list_games()) == 2,
            120,
            "both archived",
        )
        yield server.running.http_url, hana, other


def test_history_lists_filters_and_opens_replays(page: Page, archived) -> None:
    base_url, hana, other = archived
    page.goto(f"{base_url}/#/history")
    rows = page.locator("table.history tbody tr")
    expect(rows).to_have_count(2)
    page.locator('input[name="player"]').fill("Hana")
    page.locator('form.filters button[type="submit"]').click()
    expect(page).to_have_url(f"{base_url}/#/history?player=Hana")
    expect(rows).to_have_count(1)
    expect(rows.first).to_have_attribute("data-game-id", hana)
    expect(rows.first).to_contain_text("Hana")
    expect(rows.first.locator("td").first).not_to_have_text("-")  # when it finished
    page.goto(f"{base_url}/#/history?game=endeavor")
    expect(rows).to_have_count(1)
    expect(rows.first).to_have_attribute("data-game-id", other)
    expect(page.locator('select[name="game"]')).to_have_value("endeavor")
    rows.first.get_by_role("link", name="Replay").click()
    # The replay adds its step to the URL once the record is drawn (?step=0).
    expect(page).to_have_url(re.compile(rf"{re.escape(base_url)}/#/replay/{other}(\?step=0)?$"))
    expect(page.locator("#replay")).to_be_visible()
