"""A real gRPC server on a free port, on the real Redis, with real bot processes."""

from __future__ import annotations

import uuid

import pytest
import redis

from gamehost import Client
from services.server import ServerConfig, ServerThread


@pytest.fixture(scope="module")
def module_prefix(redis_url):
    prefix = f"gamehost-test-{uuid.uuid4().hex[:10]}"
    yield prefix
    client = redis.Redis.from_url(redis_url)
    for key in client.scan_iter(match=f"{prefix}:*", count=500):
        client.delete(key)
    client.close()


@pytest.fixture(scope="module")
def server(redis_url, module_prefix):
    config = ServerConfig(port=0, redis_url=redis_url, redis_prefix=module_prefix, bot_workers=2)
    with ServerThread(config) as running:
        yield running


@pytest.fixture(scope="module")
def client(server):
    with Client(server.target) as c:
        yield c
