"""A real Celery worker process on the real Redis, and a service that hands it bot turns.

One plugin for the whole suite (tests/conftest.py loads it), so the session's worker and
the Celery app's queue and key prefix are set up once: two copies of these session
fixtures would re-point the shared app while the first worker still listens."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid

import pytest
import redis

from gamehost import Client
from services.server import ServerConfig, ServerThread


@pytest.fixture(scope="session")
def celery_app(redis_url):
    """The workers' Celery app, pointed at the test Redis and a queue of this run's own;
    every broker and result key it writes carries the queue's name as a prefix and is
    removed afterwards."""
    from workers.app import app, key_prefix_options

    queue = f"gamehost-test-{uuid.uuid4().hex[:8]}"
    prefixed = key_prefix_options(f"{queue}:")
    app.conf.update(
        broker_url=redis_url,
        result_backend=redis_url,
        task_default_queue=queue,
        broker_transport_options={**app.conf.broker_transport_options, **prefixed},
        result_backend_transport_options=prefixed,
    )
    yield app
    client = redis.Redis.from_url(redis_url)
    for key in client.scan_iter(match=f"{queue}:*", count=500):
        client.delete(key)
    client.close()


@pytest.fixture(scope="session")
def celery_worker(celery_app, redis_url, tmp_path_factory):
    env = {
        **os.environ,
        "GAMEHOST_CELERY_BROKER": redis_url,
        "GAMEHOST_CELERY_BACKEND": redis_url,
        "GAMEHOST_CELERY_QUEUE": celery_app.conf.task_default_queue,
        "GAMEHOST_CELERY_KEY_PREFIX": f"{celery_app.conf.task_default_queue}:",
    }
    log = tmp_path_factory.mktemp("celery") / "worker.log"
    name = f"test-{uuid.uuid4().hex[:8]}@%h"
    with open(log, "w") as out:
        worker = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gamehost.cli",
                "worker",
                "--concurrency",
                "2",
                "--loglevel",
                "INFO",
                "--hostname",
                name,
            ],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        # Each ping waits up to a second for replies: readiness, not a fixed sleep.
        for _ in range(90):
            if celery_app.control.ping(timeout=1.0):
                break
            assert worker.poll() is None, log.read_text()
        else:
            pytest.fail(f"the Celery worker did not answer:\n{log.read_text()}")
        yield worker
    finally:
        worker.terminate()
        try:
            worker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            worker.kill()


@pytest.fixture(scope="module")
def celery_server(redis_url, module_prefix, celery_worker):
    from workers.executor import CeleryExecutor

    config = ServerConfig(port=0, redis_url=redis_url, redis_prefix=module_prefix)
    executor = CeleryExecutor(redis_url, module_prefix, config.max_search_iterations or None)
    with ServerThread(config, executor) as running:
        yield running


@pytest.fixture(scope="module")
def celery_client(celery_server):
    with Client(celery_server.target) as client:
        yield client
