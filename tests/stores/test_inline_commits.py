"""With ``inline_commits=1`` in the store URL, a move's commit on a single Redis runs
on a blocking connection of its own, inside its caller's turn of the event loop
(services/stores/inline_commit.py), so its reply never waits behind other work on a
busy loop; by default it is awaited like any call; a fault on the blocking connection
sets it aside, and the commit is made the awaited way."""

from __future__ import annotations

import asyncio

import redis.asyncio as aioredis

from services.stores import CommitOutcome
from services.stores.inline_commit import InlineCommits
from services.stores.redis_connect import with_inline_commits
from services.stores.redis_store import RedisStore
from tests.stores.helpers import new_game


async def commit_and_see_whether_the_loop_turned(store: RedisStore) -> bool:
    """Commit a move; True when the event loop ran another callback meanwhile."""
    await store.settle_layout()
    await store.create(new_game())
    await store.layout()  # the deployment's layout read now, not during the commit
    turned = asyncio.Event()
    asyncio.get_running_loop().call_soon(turned.set)
    result = await store.commit("g1", 0, 1, b"state-1", "in_progress", [{"n": 1}])
    loop_turned = turned.is_set()
    assert result.outcome is CommitOutcome.APPLIED
    snap = await store.load("g1")
    assert (snap.state, snap.version) == (b"state-1", 1)
    return loop_turned


async def test_inline_commits_1_in_the_url_takes_no_turn_of_the_event_loop(redis_url, redis_prefix):
    store = RedisStore.from_url(with_inline_commits(redis_url), prefix=redis_prefix)
    try:
        assert not await commit_and_see_whether_the_loop_turned(store)
    finally:
        await store.close()


async def test_by_default_or_with_inline_commits_0_the_commit_is_awaited(redis_url, redis_prefix):
    for n, url in enumerate((redis_url, with_inline_commits(redis_url, False))):
        # A prefix under the test's own for each store: both make game g1.
        store = RedisStore.from_url(url, prefix=f"{redis_prefix}:{n}")
        try:
            assert await commit_and_see_whether_the_loop_turned(store)
        finally:
            await store.close()


async def test_a_fault_sets_the_blocking_connection_aside_and_the_commit_is_still_made(
    redis_url, redis_prefix
):
    unreachable = InlineCommits("redis://127.0.0.1:1/0")  # nothing listens on port 1
    store = RedisStore(aioredis.Redis.from_url(redis_url), redis_prefix, inline=unreachable)
    try:
        assert await commit_and_see_whether_the_loop_turned(store)  # made awaited
        assert unreachable.set_aside
        again = await store.commit("g1", 1, 2, b"state-2", "in_progress", [{"n": 2}])
        assert again.outcome is CommitOutcome.APPLIED and again.version == 2
        stale = await store.commit("g1", 1, 2, b"other", "in_progress", [{"n": 3}])
        assert stale.outcome is CommitOutcome.STALE
    finally:
        await store.close()
