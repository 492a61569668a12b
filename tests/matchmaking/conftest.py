"""Servers with an archive (accounts and ratings live there): the in-memory store with
SQLite, and Redis with PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from services.server import ServerConfig, ServerThread
from tests.fixtures.databases import scratch_postgres


@pytest.fixture(params=["memory+sqlite", "redis+postgres"])
def backing(request, tmp_path) -> Iterator[dict]:
    """The settings of a server on one of the two backings (the archive made for it)."""
    if request.param == "memory+sqlite":
        yield {"archive_url": f"sqlite:///{tmp_path / 'archive.sqlite3'}"}
        return
    postgres = scratch_postgres()
    try:
        yield {
            "archive_url": next(postgres),
            "redis_url": request.getfixturevalue("redis_url"),
            "redis_prefix": request.getfixturevalue("redis_prefix"),
        }
    finally:
        next(postgres, None)


def config(backing: dict, **settings) -> ServerConfig:
    return ServerConfig(
        port=0, http_port=0, bot_workers=1, archive_create=True, **backing, **settings
    )


@pytest.fixture
def server(backing) -> Iterator[ServerThread]:
    with ServerThread(config(backing)) as running:
        yield running
