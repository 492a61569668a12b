"""Gathering a bot turn's search trees in Redis (Celery workers): the task that brings
the last tree gets them all, exactly once, and nothing is left behind."""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio as aioredis

from services.stores.redis_store import RedisStore
from tests.stores.helpers import new_game


@pytest.fixture
async def store(redis_url, redis_prefix):
    s = RedisStore.from_url(redis_url, prefix=redis_prefix)
    for game_id in ("g1", "g2"):
        await s.create(new_game(game_id))
    yield s
    await s.close()


async def _keys(redis_url: str, pattern: str) -> list[bytes]:
    client = aioredis.Redis.from_url(redis_url)
    try:
        return [k async for k in client.scan_iter(match=pattern)]
    finally:
        await client.aclose()


async def test_the_last_tree_gets_them_all_and_the_set_is_gone(store, redis_url, redis_prefix):
    assert await store.gather_tree("g1", "bot:4", 0, b"zero", 3, 60) is None
    assert await store.gather_tree("g1", "bot:4", 1, b"one", 3, 60) is None
    # A redelivered tree replaces its own entry: still two of three.
    assert await store.gather_tree("g1", "bot:4", 1, b"one again", 3, 60) is None
    assert await store.gather_tree("g1", "bot:4", 2, b"two", 3, 60) is not None
    assert not await _keys(redis_url, f"{redis_prefix}:*trees*")


async def test_what_the_last_tree_gets(store):
    await store.gather_tree("g1", "bot:4", 0, b"zero", 2, 60)
    await store.gather_tree("g1", "bot:4", 0, b"zero again", 2, 60)
    assert sorted(await store.gather_tree("g1", "bot:4", 1, b"one", 2, 60)) == [
        b"one",
        b"zero again",
    ]


async def test_turns_are_kept_apart(store):
    """Another version, a timeout turn or another game gathers on its own."""
    assert await store.gather_tree("g1", "bot:4", 0, b"a", 2, 60) is None
    assert await store.gather_tree("g1", "bot:5", 1, b"b", 2, 60) is None
    assert await store.gather_tree("g1", "timeout:4", 1, b"c", 2, 60) is None
    assert await store.gather_tree("g2", "bot:4", 1, b"d", 2, 60) is None
    assert sorted(await store.gather_tree("g1", "bot:4", 1, b"e", 2, 60)) == [b"a", b"e"]


async def test_racing_trees_complete_the_set_once(store):
    replies = await asyncio.gather(
        *(store.gather_tree("g1", "bot:9", tree, str(tree).encode(), 8, 60) for tree in range(8))
    )
    complete = [r for r in replies if r is not None]
    assert len(complete) == 1
    assert sorted(complete[0]) == sorted(str(t).encode() for t in range(8))


async def test_a_game_that_is_gone_gets_no_set(store, redis_url, redis_prefix):
    """A search that finishes after its game was deleted (expired) writes nothing."""
    assert await store.gather_tree("gone", "bot:4", 0, b"zero", 1, 60) is None
    assert not await _keys(redis_url, f"{redis_prefix}:*trees*")


async def test_an_unfinished_set_expires(store, redis_url, redis_prefix):
    await store.gather_tree("g1", "bot:4", 0, b"zero", 2, 30)
    [key] = await _keys(redis_url, f"{redis_prefix}:*trees*")
    client = aioredis.Redis.from_url(redis_url)
    try:
        assert 0 < await client.pttl(key) <= 30_000
    finally:
        await client.aclose()
