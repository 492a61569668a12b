"""The archive's migrations run up and down on an empty and on a filled database
(SQLite and PostgreSQL), the newest one makes exactly the tables the code uses, and
a server refuses a schema that is behind, saying what to run."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from services.archive import database
from services.archive.archive import Archive, GameQuery
from services.archive.export import ExportQuery, export_lines
from services.archive.schema import metadata
from services.archive.synthetic import finished_game
from services.ladder.schema import games_of

TABLES = {
    "accounts",
    "archived_games",
    "archived_seats",
    "archived_tournaments",
    "ladder_bots",
    "ratings",
    "rating_changes",
    "ladder_games",
    "ladder_seats",
    "ladder_leases",
}


def _tables(engine: sa.Engine) -> set[str]:
    return set(sa.inspect(engine).get_table_names()) & TABLES


def test_up_and_down_on_an_empty_database(archive_url):
    engine = database.make_engine(archive_url)
    try:
        assert database.current_revision(engine) is None and _tables(engine) == set()
        database.upgrade(engine)
        assert database.current_revision(engine) == database.head_revision()
        assert _tables(engine) == TABLES
        with engine.connect() as connection:  # the migrations make what schema.py says
            assert compare_metadata(MigrationContext.configure(connection), metadata) == []
        database.downgrade(engine, "base")
        assert database.current_revision(engine) is None and _tables(engine) == set()
        database.upgrade(engine)
        assert _tables(engine) == TABLES
    finally:
        engine.dispose()


async def test_up_and_down_on_a_filled_database(archive_url):
    archive = Archive.open(archive_url, create=True)
    try:
        snapshot, events = finished_game("cite", 2, seed=1, names=["Ann", "Bob"])
        assert await archive.put_game(snapshot, events)
        database.upgrade(archive.engine)  # at head already: nothing to do, nothing lost
        assert (await archive.game(snapshot.game_id)).events == events
        database.downgrade(archive.engine, "base")
        assert _tables(archive.engine) == set()
        database.upgrade(archive.engine)
        archive._cache.clear()
        assert await archive.game(snapshot.game_id) is None
        assert await archive.put_game(snapshot, events)
        assert (await archive.game(snapshot.game_id)).events == events
    finally:
        archive.close()


async def test_the_pacing_table_goes_and_comes_back_on_a_filled_archive(archive_url):
    """0008 drops ``ladder_paces`` (and its tail columns) with rows in it, and its
    downgrade makes the table again; the games archived meanwhile stay."""
    archive = Archive.open(archive_url, create=True)
    try:
        snapshot, events = finished_game("cite", 2, seed=2, names=["Ann", "Bob"])
        assert await archive.put_game(snapshot, events)
        database.downgrade(archive.engine, "0007_archived_spectators")
        assert "ladder_paces" in sa.inspect(archive.engine).get_table_names()
        row = "('cite:2', 'r1', 1.0, 0.5, NULL, '[]', 3, '[\"bot\"]')"
        with archive.engine.begin() as connection:
            connection.execute(sa.text(f"INSERT INTO ladder_paces VALUES {row}"))
        database.upgrade(archive.engine)
        assert database.current_revision(archive.engine) == database.head_revision()
        assert "ladder_paces" not in sa.inspect(archive.engine).get_table_names()
        archive._cache.clear()
        assert (await archive.game(snapshot.game_id)).events == events
        database.downgrade(archive.engine, "0007_archived_spectators")
        columns = {c["name"] for c in sa.inspect(archive.engine).get_columns("ladder_paces")}
        assert {"answers", "late", "round_trips"} <= columns
        archive._cache.clear()
        assert (await archive.game(snapshot.game_id)).events == events
        database.upgrade(archive.engine)
        assert _tables(archive.engine) == TABLES
    finally:
        archive.close()


def test_a_schema_that_is_behind_is_refused_with_what_to_run(archive_url):
    with pytest.raises(database.SchemaBehind, match=r"run `gamehost db upgrade --archive "):
        Archive.open(archive_url)
    # The same through `gamehost serve`: it exits before serving, saying what to run.
    serve = subprocess.run(
        [sys.executable, "-m", "gamehost.cli", "serve", "--port", "0", "--archive", archive_url],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert serve.returncode == 1
    assert "gamehost db upgrade --archive" in serve.stderr
    upgrade = subprocess.run(
        [sys.executable, "-m", "gamehost.cli", "db", "upgrade", "--archive", archive_url],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert upgrade.returncode == 0, upgrade.stderr
    assert f"empty -> {database.head_revision()}" in upgrade.stdout
    Archive.open(archive_url).close()  # now current


def test_replicas_upgrading_at_once_take_turns(archive_url):
    """docker-compose starts its replicas together, each running `gamehost db upgrade`."""
    upgrades = [
        subprocess.Popen(
            [sys.executable, "-m", "gamehost.cli", "db", "upgrade", "--archive", archive_url],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    outputs = [upgrade.communicate(timeout=120) for upgrade in upgrades]
    assert [u.returncode for u in upgrades] == [0, 0, 0], outputs
    head = database.head_revision()
    said = sorted(out.strip() for out, _ in outputs)
    assert said == [f"archive schema: {head} -> {head}"] * 2 + [f"archive schema: empty -> {head}"]


async def test_archived_games_keep_their_version_down_and_up_again(archive_url):
    """0006 gives archived games their final version (ListGames shows it): a filled
    archive downgraded past it and upgraded again takes it from each game's record."""
    archive = Archive.open(archive_url, create=True)
    try:
        snapshot, events = finished_game("catan", 3, seed=2, names=["Ann", "Bob", "Cy"])
        assert await archive.put_game(snapshot, events)
        database.downgrade(archive.engine, "0005_ladder_pace_tails")
        columns = {c["name"] for c in sa.inspect(archive.engine).get_columns("archived_games")}
        assert "version" not in columns
        database.upgrade(archive.engine)
        (summary,), _ = await archive.find_games(GameQuery(player="Bob"))
        assert summary.game_id == snapshot.game_id
        assert summary.version == snapshot.version > 0
        archive._cache.clear()
        assert (await archive.game(snapshot.game_id)).events == events
    finally:
        archive.close()


async def test_upgrading_fills_whether_archived_games_admitted_spectators(archive_url):
    """0007 reads each public game's stored meta: a game with spectators off is then
    neither listed nor exported (access.open_to_anyone), and stays whole down and up."""
    archive = Archive.open(archive_url, create=True)
    try:
        made = {}
        for name, meta in (("open", {}), ("closed", {"spectators": False})):
            snapshot, events = finished_game("cite", 2, seed=len(made), names=["Ann", "Bob"])
            snapshot = dataclasses.replace(snapshot, meta={**snapshot.meta, **meta})
            assert await archive.put_game(snapshot, events)
            made[name] = snapshot.game_id
        database.downgrade(archive.engine, "0005_ladder_pace_tails")
        database.upgrade(archive.engine)
        with archive.engine.connect() as connection:
            rows = connection.execute(sa.text("SELECT game_id, spectators FROM archived_games"))
            admitted = {game_id: bool(spectators) for game_id, spectators in rows}
        assert admitted == {made["open"]: True, made["closed"]: False}
        for query in (GameQuery(), GameQuery(player="Ann")):
            found, _ = await archive.find_games(query)
            assert [g.game_id for g in found] == [made["open"]]
        exported = [
            json.loads(line)["game_id"]
            async for line in export_lines(archive, ExportQuery(), games_of)
        ]
        assert exported == [made["open"]]
        assert (await archive.game(made["closed"], cache=False)).snapshot.game_id == made["closed"]
    finally:
        archive.close()
