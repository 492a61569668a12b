"""The ladder's real servers (tests/ladder/conftest.py): accounts live in the archive,
on SQLite and on PostgreSQL, beside the bots."""

from tests.ladder.conftest import served  # noqa: F401
