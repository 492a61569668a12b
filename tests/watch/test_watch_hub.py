"""The watch hub on both stores: a slow subscriber holds a bounded queue yet misses
nothing, the reader stops with its last subscriber, and it outlives a Redis restart."""

from __future__ import annotations

import asyncio
import time

import pytest
import redis

from services.errors import Aborted, NotFound
from services.stores.redis_store import RedisStore
from services.watch import hub as watch_hub
from services.watch.hub import WatchHub
from tests.polling import eventually
from tests.procs import RedisServer
from tests.stores.helpers import new_game


async def append(store, version: int) -> None:
    """One event {"n": version} on game "g" (at ``version``)."""
    result = await store.commit("g", version, version + 1, b"s", "in_progress", [{"n": version}])
    assert result.event_ids


async def test_a_slow_subscriber_is_bounded_and_misses_nothing(store, monkeypatch):
    monkeypatch.setattr(watch_hub, "QUEUE_LIMIT", 5)
    monkeypatch.setattr(watch_hub, "PAGE", 4)
    hub = WatchHub(store)
    await store.create(new_game("g"))
    newest = (await store.load("g")).last_event_id
    try:
        async with (
            hub.subscribe("g", newest, newest) as slow,
            hub.subscribe("g", newest, newest) as fast,
        ):
            await append(store, 0)
            first = [await asyncio.wait_for(anext(s), 10) for s in (slow, fast)]
            assert [e.data["n"] for e in first] == [0, 0]
            seen_fast, overflowed = [], False
            for version in range(1, 30):  # the slow one reads nothing meanwhile
                await append(store, version)
                seen_fast.append(await asyncio.wait_for(anext(fast), 10))
                assert len(slow._pending) <= watch_hub.QUEUE_LIMIT
                overflowed = overflowed or slow._catch_up
            assert overflowed, "the slow subscriber should have been sent back to the store"
            seen_slow = [await asyncio.wait_for(anext(slow), 10) for _ in range(29)]
            assert [e.data["n"] for e in seen_fast] == list(range(1, 30))
            assert [e.event_id for e in seen_slow] == [e.event_id for e in seen_fast]
        assert hub.subscribers == 0 and hub.games == 0
        await eventually(lambda: not hub.reading, 10, "the reader to stop with its last subscriber")
    finally:
        await hub.close()


async def test_the_reader_outlives_a_redis_restart(tmp_path):
    server = RedisServer(tmp_path / "redis").start()
    store = RedisStore.from_url(server.url, "hub-test")
    hub = WatchHub(store, block_seconds=1.0)
    try:
        await store.create(new_game("g"))
        newest = (await store.load("g")).last_event_id
        async with hub.subscribe("g", newest, newest) as subscription:
            await append(store, 0)
            assert (await asyncio.wait_for(anext(subscription), 10)).data["n"] == 0
            server.restart()  # kill -9, then the AOF brings the game back
            deadline = time.monotonic() + 10
            while True:  # the first call after the restart may meet the dead connection
                try:
                    await append(store, 1)
                    break
                except redis.exceptions.ConnectionError:
                    assert time.monotonic() < deadline
            started = time.monotonic()
            event = await asyncio.wait_for(anext(subscription), 10)
            assert event.data["n"] == 1
            print(
                f"an event after a Redis restart reached the stream in "
                f"{time.monotonic() - started:.2f} s"
            )
            assert hub.reading
    finally:
        await hub.close()
        await store.close()
        server.stop()


async def test_a_log_rewound_by_a_failover_ends_the_streams_past_it_and_not_the_reader(
    redis_url, redis_prefix, monkeypatch
):
    # A failover with --redis-min-replicas 0 may lose the newest events: the game is
    # back at an older version, and new events take the lost ids again. Shown here by
    # putting the game's keys back as they were (DUMP, then RESTORE).
    monkeypatch.setattr(watch_hub, "EXISTS_CHECK_SECONDS", 0.2)
    store = RedisStore.from_url(redis_url, prefix=redis_prefix)
    hub = WatchHub(store)
    try:
        await store.create(new_game("g"))
        await append(store, 0)
        keys = [store._key("g", part) for part in ("game", "tokens", "events", "requests", "log")]
        saved = {k: await store._redis.dump(k) for k in keys}
        newest = (await store.load("g")).last_event_id
        async with hub.subscribe("g", newest, newest) as ahead:
            for version in (1, 2):
                await append(store, version)
                assert (await asyncio.wait_for(anext(ahead), 10)).data["n"] == version
            for key, blob in saved.items():  # the failover
                if blob is not None:
                    await store._redis.restore(key, 0, blob, replace=True)
            with pytest.raises(Aborted, match=f"after_event_id {newest}"):
                await asyncio.wait_for(anext(ahead), 10)
            # A stream from the state as it is now follows the new history at once:
            # the shared reader went back too.
            async with hub.subscribe("g", newest, newest) as fresh:
                await append(store, 1)
                event = await asyncio.wait_for(anext(fresh), 10)
                assert (event.event_id, event.data["n"]) == (newest + 1, 1)
    finally:
        await hub.close()
        await store.close()


async def test_a_quiet_stream_of_a_game_gone_from_the_store_ends_not_found(store, monkeypatch):
    # The hub looks at quiet games itself (a game lost whole in a failover, or
    # archived and forgotten), well before a stream's own existence check.
    monkeypatch.setattr(watch_hub, "QUIET_LOOK_SECONDS", 0.1)
    monkeypatch.setattr(watch_hub, "EXISTS_CHECK_SECONDS", 3600.0)
    hub = WatchHub(store)
    try:
        await store.create(new_game("g"))
        newest = (await store.load("g")).last_event_id
        async with hub.subscribe("g", newest, newest) as stream:
            done = await store.commit("g", 0, 1, b"s", "finished", [{"kind": "finished"}])
            assert (await asyncio.wait_for(anext(stream), 10)).event_id == done.event_ids[0]
            assert await store.forget_archived("g", done.event_ids[-1], "cite", 60)
            with pytest.raises(NotFound, match="game g has expired"):
                await asyncio.wait_for(anext(stream), 10)
    finally:
        await hub.close()
