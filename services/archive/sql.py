"""The archive database's one ``metadata``, on which every wing defines its own tables
(the archive's: ``schema``; the ladder's: ``services.ladder.schema``), and inserts that
meet an existing row, in its two dialects (PostgreSQL, SQLite): ``INSERT ... ON
CONFLICT``.

Whether such an insert added its row is read from ``RETURNING``, never from the
result's ``rowcount``: SQLAlchemy leaves an INSERT's rowcount undefined, and with
psycopg it is -1 whether the row went in or met a conflict, which reads as True
(tests/archive/test_sql.py)."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

metadata = sa.MetaData()  # Alembic's target (migrations/env.py)


def _insert(connection: sa.Connection, table: sa.Table):
    if connection.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert
    return insert(table)


def insert_or_ignore(connection: sa.Connection, table: sa.Table):
    """``INSERT ... ON CONFLICT DO NOTHING`` into ``table`` (values or rows given to
    ``execute``)."""
    return _insert(connection, table).on_conflict_do_nothing()


def insert_new(connection: sa.Connection, table: sa.Table, row: dict[str, Any]) -> bool:
    """Insert ``row`` unless one with its key is there: True when this call added it."""
    key = list(table.primary_key.columns)
    statement = insert_or_ignore(connection, table).values(row).returning(*key)
    return connection.execute(statement).first() is not None
