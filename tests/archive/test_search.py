"""Searching the archive by a seat's name or bot level (ListGames' archived pages), on
SQLite and PostgreSQL: newest first, each game once even where the name or level holds
several of its seats, pages that neither skip nor repeat, and the finish order kept
when an archive made before the seats carried it is upgraded."""

from __future__ import annotations

import json

import pytest
import sqlalchemy as sa

from services.archive import codec, database
from services.archive.archive import Archive, GameQuery
from services.archive.synthetic import finished_game


def _game(names: list[str], levels: list[str] | None = None, game_type: str = "cite"):
    snapshot, events = finished_game(game_type, len(names), seed=len(names), names=names)
    for seat, level in zip(snapshot.meta["seats"], levels or [], strict=False):
        seat["level"] = level
    return snapshot, events


def _all_pages(archive: Archive, **query) -> list[str]:
    ids, token = [], ""
    while True:
        page, token = archive._find_games(GameQuery(page_size=2, page_token=token, **query))
        assert len(page) <= 2
        ids += [summary.game_id for summary in page]
        if not token:
            return ids


@pytest.fixture
def archive(archive_url):
    opened = Archive.open(archive_url, create=True)
    yield opened
    opened.close()


async def test_a_name_or_level_is_found_newest_first_once_per_game_over_pages(archive):
    seatings = [
        (["Ann", "Bob"], ["random", "greedy"]),
        (["Ann", "Ann", "Cy"], ["greedy", "greedy", "random"]),  # Ann twice, greedy twice
        (["Bob", "Cy"], ["random", "random"]),
        (["Cy", "Ann"], ["random", "greedy"]),
        (["Ann", "Dee"], ["random", "random"]),
        (["Dee", "Ann", "Ann", "Bob"], ["greedy", "random", "random", "greedy"]),
    ]
    archived = []  # in the order archived: the newest last
    for names, levels in seatings:
        snapshot, events = _game(names, levels)
        assert await archive.put_game(snapshot, events)
        archived.append((snapshot.game_id, names, levels))
    newest_first = archived[::-1]

    def expected(keep) -> list[str]:
        return [game_id for game_id, names, levels in newest_first if keep(names, levels)]

    assert _all_pages(archive, player="Ann") == expected(lambda n, _: "Ann" in n)
    assert _all_pages(archive, bot_level="greedy") == expected(lambda _, lv: "greedy" in lv)
    both = _all_pages(archive, player="Bob", bot_level="greedy")
    assert both == expected(lambda n, lv: "Bob" in n and "greedy" in lv)
    assert _all_pages(archive, player="Ann", game_type="catan") == []
    assert _all_pages(archive, player="Nobody") == []
    # A page by name carries every seat of its games, in seat order.
    page, _ = archive._find_games(GameQuery(player="Dee", page_size=1))
    assert [seat["name"] for seat in page[0].seats] == ["Dee", "Ann", "Ann", "Bob"]


async def test_an_archive_upgraded_from_its_first_schema_keeps_the_finish_order(archive_url):
    engine = database.make_engine(archive_url)
    try:
        database.upgrade(engine, "0001_archive")
        rows = [("g-old", "2025-01-01 10:00:00+00:00"), ("g-new", "2025-06-01 10:00:00+00:00")]
        record = codec.pack(codec.encode(*_game(["Ann", "Bob"])))  # later upgrades read it
        with engine.begin() as connection:
            for game_id, finished_at in rows:
                connection.execute(
                    sa.text(
                        "INSERT INTO archived_games (game_id, game_type, players, status,"
                        " private, created_at, finished_at, returns, codec, record) VALUES"
                        " (:id, 'cite', 2, 'finished', :private, :at, :at, :returns,"
                        " 'zstd', :record)"
                    ),
                    {
                        "id": game_id,
                        "private": False,
                        "at": finished_at,
                        "returns": json.dumps([1, 0]),
                        "record": record,
                    },
                )
                connection.execute(
                    sa.text(
                        "INSERT INTO archived_seats (game_id, seat, name, kind, level)"
                        " VALUES (:id, 0, 'Ann', 'human', ''), (:id, 1, 'Bob', 'human', '')"
                    ),
                    {"id": game_id},
                )
        database.upgrade(engine)
        archive = Archive(engine)
        assert _all_pages(archive, player="Ann") == ["g-new", "g-old"]
        with engine.connect() as connection:
            unset = connection.execute(
                sa.text("SELECT count(*) FROM archived_seats WHERE finished_at IS NULL")
            ).scalar_one()
        assert unset == 0
        database.downgrade(engine, "0001_archive")
        database.upgrade(engine)
        assert _all_pages(Archive(engine), player="Bob") == ["g-new", "g-old"]
    finally:
        engine.dispose()
