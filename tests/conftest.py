"""Shared fixtures: real Redis (from GAMEHOST_TEST_REDIS_URL, default the local one)."""

from __future__ import annotations

import os
import uuid

import pytest
import redis

from gamehost import Client
from services.server import ServerConfig, ServerThread
from services.stores.memory import MemoryStore
from services.stores.redis_store import RedisStore
from tests.fixtures.databases import archive_url, postgres_url, sqlite_url  # noqa: F401 (fixtures)

# The real Celery worker and the service that hands it bot turns (tests/workers,
# tests/tournament_service): one plugin, so the session's worker is started once.
# The fuzzed servers' archives (tests/api and tests/gateway fuzz the API).
pytest_plugins = ["tests.celery_fixtures", "tests.fixtures.fuzz_archive"]

REDIS_URL = os.environ.get("GAMEHOST_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


@pytest.fixture(scope="session", autouse=True)
def _data_dir(tmp_path_factory) -> None:
    """Servers the tests start keep their embedded archive (docs/archive.md) in the
    session's temporary folder, never in the home directory."""
    os.environ["GAMEHOST_DATA_DIR"] = str(tmp_path_factory.mktemp("gamehost-data"))


@pytest.fixture(scope="session")
def redis_url() -> str:
    """A Redis that answers; .ci/run starts one when none does. No skipping: fail loudly."""
    client = redis.Redis.from_url(REDIS_URL)
    try:
        client.ping()
    except redis.exceptions.ConnectionError as exc:
        pytest.fail(
            f"tests need Redis at {REDIS_URL} (start one or set GAMEHOST_TEST_REDIS_URL): {exc}"
        )
    finally:
        client.close()
    return REDIS_URL


def _scratch_prefix(redis_url: str):
    """A fresh key prefix; every key under it is removed afterwards."""
    prefix = f"gamehost-test-{uuid.uuid4().hex[:10]}"
    yield prefix
    client = redis.Redis.from_url(redis_url)
    try:
        # Game hashes first: every write checks that its game exists, so a bot still
        # finishing in another process (a Celery worker) adds nothing once they are
        # gone; then the rest, again until no key is left.
        for key in client.scan_iter(match=f"{prefix}:*:game", count=500):
            client.delete(key)
        for _ in range(5):
            keys = list(client.scan_iter(match=f"{prefix}:*", count=500))
            if not keys:
                break
            client.delete(*keys)
    finally:
        client.close()


@pytest.fixture
def redis_prefix(redis_url):
    """A key prefix of this test's own."""
    yield from _scratch_prefix(redis_url)


@pytest.fixture(scope="module")
def module_prefix(redis_url):
    """A key prefix of this test module's own (for module-wide servers)."""
    yield from _scratch_prefix(redis_url)


@pytest.fixture(params=["memory", "redis"])
async def store(request):
    """Each store in turn: the embedded in-memory one and the Redis one (own prefix, a
    new deployment: the newest layout, as a server's start settles it)."""
    if request.param == "memory":
        s = MemoryStore()
    else:
        url = request.getfixturevalue("redis_url")
        s = RedisStore.from_url(url, prefix=request.getfixturevalue("redis_prefix"))
    await s.settle_layout()
    yield s
    await s.close()


def serve_module(redis_url: str, prefix: str, **settings):
    """The suite's module-wide server on Redis (``settings``: ServerConfig fields)."""
    config = ServerConfig(
        port=0, redis_url=redis_url, redis_prefix=prefix, bot_workers=2, **settings
    )
    with ServerThread(config) as running:
        yield running


@pytest.fixture(scope="module")
def server(redis_url, module_prefix):
    yield from serve_module(redis_url, module_prefix)


@pytest.fixture(scope="module")
def client(server):
    with Client(server.target) as c:
        yield c


# ------------------------------------------------------------------ markers
# `make test-fast` runs -m "not procs and not slow" (pyproject.toml registers both).
# A test is marked ``procs`` here when it starts processes of its own: through one of
# these fixtures (a Celery worker, the deploy stack, a browser, a Redis or replicas to
# kill, ``gamehost play`` in a terminal), or in a module that uses tests/procs.py's
# process classes. Anything else long marks itself ``slow``.
PROCS_FIXTURES = frozenset({"celery_worker", "stack", "browser", "own_redis", "replicas", "play"})


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    from tests import procs

    starters = (procs.Replica, procs.RedisServer, procs.ServiceProcess, procs.Worker)
    for item in items:
        module = getattr(item, "module", None)
        in_module = module is not None and any(
            getattr(module, starter.__name__, None) is starter for starter in starters
        )
        if in_module or PROCS_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.procs)
    # Slow tests first: spread over the cores (``make test`` hands pytest-xdist workers
    # whole files in this order), the longest start at once instead of ending the run
    # alone. The order is otherwise kept.
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
