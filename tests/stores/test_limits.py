"""The ``Limits`` contract, both stores: live games are capped per owner, and the rate
limits' counters each store gives (``limit_storage``): the
``limits`` library's moving window counts in it, per key. Run on both stores here
and on a Cluster in tests/faults/test_cluster.py; two replicas sharing the Redis
counters: tests/limits/test_shared_limits.py."""

from __future__ import annotations

from limits import RateLimitItemPerHour
from limits.aio.strategies import MovingWindowRateLimiter

from tests.stores.helpers import finish, new_game


async def test_the_limit_storage_counts_a_moving_window_per_key(store):
    item = RateLimitItemPerHour(3, namespace="contract")
    counters = MovingWindowRateLimiter(store.limit_storage())
    assert [await counters.hit(item, "client-a") for _ in range(5)] == [True] * 3 + [False] * 2
    assert not await counters.test(item, "client-a")
    assert (await counters.get_window_stats(item, "client-a")).remaining == 0
    assert await counters.hit(item, "client-b")  # another key counts apart


async def test_live_games_are_capped_per_owner(store):
    for game_id in ("a", "b", "c"):
        await store.create(new_game(game_id))
    assert await store.reserve_live_game("key:x", "a", 2)
    assert await store.reserve_live_game("key:x", "b", 2)
    assert await store.reserve_live_game("key:x", "b", 2)  # the same game again: no change
    assert not await store.reserve_live_game("key:x", "c", 2)
    assert await store.reserve_live_game("key:y", "c", 2)  # another owner
    await finish(store, "a")
    assert await store.reserve_live_game("key:x", "c", 2)  # a finished game frees its slot
