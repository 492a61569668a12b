"""The fuzzed servers' archive: a SQLite file, then a PostgreSQL database of its own
(tests/archive/conftest.py), each with a ladder on it, so that every RPC reading the
archive or the ladder is fuzzed on both databases."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.archive.conftest import scratch_postgres
from tests.ladder.conftest import quick

# No house sets: the ladder starts no game of its own while a fuzzed call is compared
# with the store before it (a registered bot is never seated unless it connects).
FUZZ_LADDER = quick(house_tables=0)


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def module_archive_url(request, tmp_path_factory) -> Iterator[str]:
    """An empty archive for a module-wide server, on each database in turn."""
    if request.param == "postgres":
        yield from scratch_postgres()
    else:
        yield f"sqlite:///{tmp_path_factory.mktemp('archive') / 'archive.sqlite3'}"
