"""Inserts that meet an existing row (services/archive/sql.py), on SQLite and
PostgreSQL: whether a row went in is read from the database itself (on PostgreSQL
through psycopg an INSERT's rowcount is -1 either way)."""

from __future__ import annotations

import sqlalchemy as sa

from services.archive import database
from services.archive.sql import insert_new, insert_or_ignore
from services.ladder.schema import ladder_leases


def test_insert_new_says_whether_it_added_the_row(archive_url):
    engine = database.make_engine(archive_url)
    try:
        database.upgrade(engine)
        first = {"name": "ladder:x", "holder": "first", "expires_at": 1.0}
        with engine.begin() as connection:
            assert insert_new(connection, ladder_leases, first)
        with engine.begin() as connection:
            assert not insert_new(connection, ladder_leases, {**first, "holder": "second"})
            connection.execute(
                insert_or_ignore(connection, ladder_leases),
                [{**first, "holder": "third"}, {**first, "name": "ladder:y"}],
            )
        with engine.connect() as connection:
            rows = connection.execute(sa.select(ladder_leases.c.name, ladder_leases.c.holder))
            assert sorted(rows) == [("ladder:x", "first"), ("ladder:y", "first")]
    finally:
        engine.dispose()
