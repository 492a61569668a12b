"""Fault tests run real processes: a Redis of the test's own (AOF, appendfsync
always) on a free port, ``gamehost serve`` replicas, and each test kills some."""

from __future__ import annotations

import pytest
from celery import Celery

from tests.procs import RedisServer, Replica


@pytest.fixture
def own_redis(tmp_path):
    server = RedisServer(tmp_path / "redis").start()
    yield server
    server.stop()


@pytest.fixture
def replicas(tmp_path, own_redis):
    """Start replicas on the test's Redis (``start(n, *extra)``); all are killed after."""
    started: list[Replica] = []

    def start(count: int = 1, *extra: str) -> list[Replica]:
        new = [
            Replica(
                tmp_path / f"replica-{len(started) + i}.log",
                ["--redis", own_redis.url, "--bot-workers", "1", *extra],
            ).start()
            for i in range(count)
        ]
        started.extend(new)
        return [replica.wait_serving() for replica in new]

    yield start
    for replica in started:
        replica.kill_group()


@pytest.fixture
def broker(own_redis):
    """A Celery broker on the test's own Redis (database 1)."""
    return f"redis://127.0.0.1:{own_redis.port}/1"


@pytest.fixture
def control(broker):
    """A Celery app on that broker, to ping the test's workers."""
    app = Celery("fault-control", broker=broker, backend=broker)
    yield app
    app.close()
