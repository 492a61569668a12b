"""The rate limits' counters each store gives (``GameStore.limit_storage``): the
``limits`` library's moving window counts in it, per key. Run on both stores here
and on a Cluster in tests/faults/test_cluster.py; two replicas sharing the Redis
counters: tests/service/test_shared_limits.py."""

from __future__ import annotations

from limits import RateLimitItemPerHour
from limits.aio.strategies import MovingWindowRateLimiter


async def test_the_limit_storage_counts_a_moving_window_per_key(store):
    item = RateLimitItemPerHour(3, namespace="contract")
    counters = MovingWindowRateLimiter(store.limit_storage())
    assert [await counters.hit(item, "client-a") for _ in range(5)] == [True] * 3 + [False] * 2
    assert not await counters.test(item, "client-a")
    assert (await counters.get_window_stats(item, "client-a")).remaining == 0
    assert await counters.hit(item, "client-b")  # another key counts apart
