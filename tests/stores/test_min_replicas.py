"""``--redis-min-replicas``: a write a client would be told about waits for WAIT; with
too few replicas confirming it is refused UNAVAILABLE, saying so, and never answered
"accepted", not even to a retry of the same request. (The suite's Redis has fewer
replicas than these tests ask for; tests/faults/test_failover.py runs real replicas.)"""

from __future__ import annotations

import grpc
import pytest
import redis

from gamehost import Client
from gamehost.client import GameError
from services.server import ServerConfig, ServerThread
from services.stores import CommitOutcome
from services.stores import redis_connect as rc
from services.stores.base import NotReplicated
from services.stores.redis_store import RedisStore
from tests.stores.helpers import new_game


@pytest.fixture
def unreachable_count(redis_url) -> int:
    """More replicas than the suite's Redis has."""
    with redis.Redis.from_url(redis_url) as client:
        return int(client.info("replication")["connected_slaves"]) + 1


@pytest.fixture
async def durable_store(redis_url, redis_prefix, unreachable_count):
    url = rc.with_durability(redis_url, rc.Durability(unreachable_count, 0.05))
    store = RedisStore.from_url(url, prefix=redis_prefix)
    yield store
    await store.close()


async def test_a_write_too_few_replicas_hold_is_refused_retry_included(durable_store):
    with pytest.raises(NotReplicated, match="replicas required"):
        await durable_store.create(new_game())
    # The primary holds the game (a failover might not): refused, not undone.
    assert (await durable_store.load("g1")).version == 0
    args = ("g1", 0, 1, b"s1", "in_progress", [{"n": 1}], "0:req-1", {"version": 1})
    with pytest.raises(NotReplicated) as refused:
        await durable_store.commit(*args)
    assert refused.value.code == "UNAVAILABLE"
    assert "--redis-min-replicas" in str(refused.value)
    # The retry finds its first try applied, and still may not call it accepted...
    with pytest.raises(NotReplicated):
        await durable_store.commit(*args)
    with pytest.raises(NotReplicated):
        await durable_store.load("g1", "0:req-1")
    # ...while an answer that acknowledges nothing is given as usual.
    stale = await durable_store.commit("g1", 0, 1, b"x", "in_progress", [{"n": 9}])
    assert stale.outcome is CommitOutcome.STALE
    assert (await durable_store.load("g1")).state == b"s1"


async def test_without_min_replicas_nothing_waits(redis_url, redis_prefix):
    store = RedisStore.from_url(redis_url, prefix=redis_prefix)
    try:
        await store.create(new_game())
        args = ("g1", 0, 1, b"s1", "in_progress", [{"n": 1}], "0:req-1", {"version": 1})
        assert (await store.commit(*args)).outcome is CommitOutcome.APPLIED
        assert (await store.commit(*args)).outcome is CommitOutcome.DUPLICATE
    finally:
        await store.close()


def test_the_service_answers_unavailable_with_the_reason(
    redis_url, redis_prefix, unreachable_count
):
    url = rc.with_durability(redis_url, rc.Durability(unreachable_count, 0.05))
    config = ServerConfig(port=0, redis_url=url, redis_prefix=redis_prefix, bot_workers=1)
    with (
        ServerThread(config) as server,
        Client(server.target, retries=0) as client,
        pytest.raises(GameError) as refused,
    ):
        client.create_game("cite", ["human", "human"], seed=1)
    assert refused.value.code == grpc.StatusCode.UNAVAILABLE
    assert "replicas required (--redis-min-replicas)" in refused.value.details
