"""The ladder's real servers (tests/ladder/conftest.py): accounts live in the archive,
on SQLite and on PostgreSQL, beside the bots."""

from tests.ladder.conftest import archive_url, postgres_url, served, sqlite_url  # noqa: F401
