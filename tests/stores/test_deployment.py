"""The ``Deployment`` contract, both stores: the shared secret, and the ping."""

from __future__ import annotations

import pytest

from services.stores.redis_store import RedisStore


async def test_ping_answers_when_the_store_is_reachable(store):
    await store.ping()  # raises when it does not answer


async def test_ping_on_an_unreachable_redis_raises_an_infrastructure_error():
    from services.errors import infrastructure_errors

    unreachable = RedisStore.from_url("redis://127.0.0.1:1/0")
    with pytest.raises(infrastructure_errors()):
        await unreachable.ping()
    await unreachable.close()


async def test_secret_is_made_once(store):
    secret = await store.secret()
    assert len(secret) >= 32
    assert await store.secret() == secret


async def test_redis_replicas_share_one_secret(redis_url, redis_prefix):
    first = RedisStore.from_url(redis_url, prefix=redis_prefix)
    second = RedisStore.from_url(redis_url, prefix=redis_prefix)
    try:
        assert await first.secret() == await second.secret()
    finally:
        await first.close()
        await second.close()
