"""Real databases for the archive's tests: a PostgreSQL database of the test's own
(made on the server at $GAMEHOST_TEST_POSTGRES_URL, .ci/run starts one when none
answers, and dropped afterwards) and SQLite files in the test's temporary folder."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import psycopg
import pytest
import sqlalchemy as sa

from services.archive.archive import Archive

POSTGRES_URL = os.environ.get(
    "GAMEHOST_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
)


def _admin() -> psycopg.Connection:
    try:
        return psycopg.connect(POSTGRES_URL, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:
        pytest.fail(
            f"tests need PostgreSQL at {POSTGRES_URL} (start one or set "
            f"GAMEHOST_TEST_POSTGRES_URL): {exc}"
        )


def scratch_postgres() -> Iterator[str]:
    """A new, empty database; dropped (with its connections) afterwards."""
    name = f"gamehost_test_{uuid.uuid4().hex[:12]}"
    with _admin() as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield str(sa.make_url(POSTGRES_URL).set(database=name).render_as_string(False))
    finally:
        with _admin() as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def postgres_url() -> Iterator[str]:
    yield from scratch_postgres()


@pytest.fixture
def sqlite_url(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'archive.sqlite3'}"


@pytest.fixture(params=["sqlite", "postgres"])
def archive_url(request) -> str:
    """Each database in turn, empty (no schema)."""
    return request.getfixturevalue(f"{request.param}_url")


@pytest.fixture
def archive(archive_url) -> Iterator[Archive]:
    """An archive at the newest schema."""
    opened = Archive.open(archive_url, create=True)
    yield opened
    opened.close()
