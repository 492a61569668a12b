"""A long game's log in Redis: whole blocks of events older than the newest whole
block leave the stream, compressed into the game's log hash, and every read (from
any event id, in pages of any size, waiting or not, through the watch hub from far
behind) still gives every event once, in order. Deleting the game deletes them."""

from __future__ import annotations

import redis.asyncio as aioredis

from services.stores import StoredEvent
from services.stores.memory import MemoryStore
from services.stores.redis_store import LOG_BLOCK, RedisStore
from services.watch.hub import Subscription, WatchHub
from tests.stores.helpers import new_game

B = LOG_BLOCK


def _event(n: int) -> dict:
    return {
        "kind": "action",
        "version": n,
        "seat": n % 3,
        "action": n,
        "text": f"take {n}",
        "audience": None,
        "redacted": None,
        "to_move": (n + 1) % 3,
    }


async def _play(store, commits: list[int]) -> list[StoredEvent]:
    """Commits of the given numbers of events; returns the whole log as written."""
    version = 0
    for size in commits:
        events = [_event(version + i + 1) for i in range(size)]
        await store.commit("g1", version, version + size, b"s", "in_progress", events)
        version += size
    return await _all(store)


async def _all(store) -> list[StoredEvent]:
    found: list[StoredEvent] = []
    while batch := await store.events("g1", found[-1].event_id if found else 0):
        found += batch
    return found


async def test_old_blocks_leave_the_stream_and_every_read_still_finds_them(redis_url, redis_prefix):
    store = RedisStore.from_url(redis_url, redis_prefix)
    raw = aioredis.Redis.from_url(redis_url)
    try:
        await store.settle_layout()  # a new deployment: the newest layout
        await store.create(new_game())
        # One event a commit, then big commits that cross several blocks at once.
        logged = await _play(store, [1] * (2 * B + 5) + [3 * B + 11, 7])
        newest = logged[-1].event_id
        assert [e.event_id for e in logged] == list(range(1, newest + 1))
        assert [e.data for e in logged[1:]] == [_event(n) for n in range(1, newest)]
        stream = await raw.xlen(f"{redis_prefix}:{{g1}}:events")
        sealed = await raw.hkeys(f"{redis_prefix}:{{g1}}:log")
        assert B <= stream < 2 * B  # the newest whole block and the rest
        assert sorted(int(k) for k in sealed) == list(range((newest - stream) // B))
        for after in (0, 1, B - 1, B, B + 1, 2 * B + 3, newest - stream, newest - 1, newest):
            for limit in (1, 5, B, 1000):
                got = await store.events("g1", after, limit)
                assert got == logged[after : after + limit], (after, limit)
        waited = await store.wait_events("g1", 3, 0.01)
        assert waited == logged[3 : 3 + len(waited)] and waited
        # The watch hub: a subscriber from the very start, far behind, catches up.
        hub = WatchHub(store)
        async with hub.subscribe("g1", 0, newest) as feed:
            seen = [await anext(feed) for _ in range(newest)]
        await hub.close()
        assert seen == logged
        # A finished game's every key goes, sealed blocks too (expiry here).
        await store.commit("g1", newest - 1, newest, b"end", "finished", [{"kind": "finished"}])
        assert await store.expire_games(0, 0) == ["g1"]
        assert [k async for k in raw.scan_iter(match=f"{redis_prefix}:{{g1}}:*")] == []
    finally:
        await raw.aclose()
        await store.close()


async def test_a_forgotten_game_takes_its_sealed_blocks_along(redis_url, redis_prefix):
    store = RedisStore.from_url(redis_url, redis_prefix)
    raw = aioredis.Redis.from_url(redis_url)
    try:
        await store.settle_layout()  # a new deployment: the newest layout
        await store.create(new_game())
        logged = await _play(store, [3 * B])
        assert await raw.exists(f"{redis_prefix}:{{g1}}:log")
        done = await store.commit("g1", 3 * B, 3 * B + 1, b"e", "finished", [{"kind": "finished"}])
        assert await store.forget_archived("g1", done.event_ids[-1], "cite", 60)
        left = [k.decode() async for k in raw.scan_iter(match=f"{redis_prefix}:{{g1}}:*")]
        assert left == [f"{redis_prefix}:{{g1}}:gone"]
        assert len(logged) == 3 * B + 1
    finally:
        await raw.aclose()
        await store.close()


async def test_a_subscriber_handed_events_past_a_gap_reads_the_store_instead():
    """The hub's reader may read from a position the store has sealed past: what it
    hands over then is not the next events, and the subscriber reads the store."""
    store = MemoryStore()
    await store.create(new_game())
    first = await _play(store, [10])
    hub = WatchHub(store)
    subscription = Subscription(hub, "g1", 0)
    assert [await anext(subscription) for _ in range(len(first))] == first
    await store.commit("g1", 10, 20, b"s", "in_progress", [_event(n) for n in range(11, 21)])
    logged = await _all(store)
    subscription.deliver(logged[len(first) + 3 :])  # not the next event: a gap of 3
    rest = [await anext(subscription) for _ in range(len(logged) - len(first))]
    assert rest == logged[len(first) :]
    await store.close()
