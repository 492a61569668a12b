"""The archive's tests: archives on the real databases of tests/fixtures/databases.py."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from services.archive.archive import Archive


@pytest.fixture
def archive(archive_url) -> Iterator[Archive]:
    """An archive at the newest schema."""
    opened = Archive.open(archive_url, create=True)
    yield opened
    opened.close()
