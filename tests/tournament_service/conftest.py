"""A real server per store (memory, Redis with a prefix of its own) on a free port."""

from __future__ import annotations

import pytest

from gamehost import Client
from services.server import ServerConfig, ServerThread


@pytest.fixture(params=["memory", "redis"])
def served(request):
    """(server thread, client) on each store in turn."""
    redis_url = None
    prefix = "gamehost"
    if request.param == "redis":
        redis_url = request.getfixturevalue("redis_url")
        prefix = request.getfixturevalue("redis_prefix")
    config = ServerConfig(port=0, redis_url=redis_url, redis_prefix=prefix, bot_workers=1)
    with ServerThread(config) as server, Client(server.target) as client:
        yield server, client


@pytest.fixture
def memory_served():
    with ServerThread(ServerConfig(port=0, bot_workers=1)) as server, Client(server.target) as c:
        yield server, c
