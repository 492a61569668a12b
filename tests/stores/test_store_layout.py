"""Rolling upgrades of the Redis store's layout: a deployment that exists keeps writing
the previous release's layout (1), which that release reads (events as JSON objects,
all in the stream; each request id a key of its own; finished games kept), until
``gamehost store upgrade``; then every replica writes the newest (2) and reads both,
in one game's log too. A new deployment starts at the newest."""

from __future__ import annotations

import json
import subprocess
import sys

import redis.asyncio as aioredis

from services.stores import CommitOutcome, redis_store
from services.stores.redis_store import LAYOUT, LOG_BLOCK, RedisStore
from tests.stores.helpers import new_game
from tests.stores.test_sealed_log import _all, _event

B = LOG_BLOCK


async def _commit(store, version: int, size: int, request_key: str | None = None):
    events = [_event(version + i + 1) for i in range(size)]
    return await store.commit(
        "g1", version, version + size, b"s", "in_progress", events, request_key, {"v": 1}
    )


async def test_an_existing_deployment_writes_the_previous_layout_until_upgraded(
    redis_url, redis_prefix, monkeypatch
):
    raw = aioredis.Redis.from_url(redis_url)
    await raw.set(f"{redis_prefix}:secret", "made by the previous release")
    store = RedisStore.from_url(redis_url, redis_prefix)
    other = RedisStore.from_url(redis_url, redis_prefix)  # another replica, running on
    try:
        assert await store.settle_layout() == 1
        await store.create(new_game())
        await _commit(store, 0, 3 * B, "c0ffee:req-1")
        # What the previous release reads: every event a JSON object in the stream...
        stream = await raw.xrange(f"{redis_prefix}:{{g1}}:events")
        assert len(stream) == 3 * B + 1
        assert [json.loads(f[b"e"]) for _, f in stream[1:]] == [
            _event(n) for n in range(1, 3 * B + 1)
        ]
        assert not await raw.exists(f"{redis_prefix}:{{g1}}:log")
        # ...and a request id a key of its own, expiring.
        kept = f"{redis_prefix}:{{g1}}:request:c0ffee:req-1"
        assert json.loads(await raw.get(kept)) == {"v": 1}
        assert await raw.pttl(kept) > 0
        assert not await raw.exists(f"{redis_prefix}:{{g1}}:requests")
        await store.commit("g1", 3 * B, 3 * B + 1, b"e", "finished", [{"kind": "finished"}])
        assert await store.forget_archived("g1", 3 * B + 2, "cite", 60) is False
        assert (await store.load("g1")).status == "finished"

        await store.create(new_game("g2"))  # a game begun in the previous layout
        await store.commit("g2", 0, 5, b"s", "in_progress", [_event(n) for n in range(1, 6)])
        assert await other.layout() == 1
        done = subprocess.run(
            [
                *(sys.executable, "-m", "gamehost.cli", "store", "upgrade"),
                *("--redis", redis_url, "--redis-prefix", redis_prefix),
            ],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        assert done.stdout.strip() == f"store layout: 1 -> {LAYOUT}"
        monkeypatch.setattr(redis_store, "LAYOUT_CHECK_SECONDS", 0.0)  # its next look
        assert await other.layout() == LAYOUT
        version = 5
        for size in (2 * B, B + 3):  # the rest in the newest layout, by the other replica
            events = [_event(version + i + 1) for i in range(size)]
            await other.commit("g2", version, version + size, b"s", "in_progress", events)
            version += size
        stream = await raw.xrange(f"{redis_prefix}:{{g2}}:events")
        assert isinstance(json.loads(stream[-1][1][b"e"]), list)  # packed now
        assert await raw.exists(f"{redis_prefix}:{{g2}}:log")  # the old ones sealed with them
        found = []
        while batch := await other.events("g2", found[-1].event_id if found else 0, 50):
            found += batch
        assert [e.data for e in found[1:]] == [_event(n) for n in range(1, version + 1)]
        again = await store.commit("g1", 0, 1, b"x", "finished", [], "c0ffee:req-1", {})
        assert again.outcome is CommitOutcome.DUPLICATE and again.request_result == {"v": 1}
        last = (await other.load("g1")).last_event_id
        assert await other.forget_archived("g1", last, "cite", 60)
    finally:
        await raw.aclose()
        await store.close()
        await other.close()


async def test_a_new_deployment_starts_at_the_newest_layout(redis_url, redis_prefix):
    store = RedisStore.from_url(redis_url, redis_prefix)
    try:
        assert await store.layout() == 1  # nothing said yet
        assert await store.settle_layout() == LAYOUT
        await store.create(new_game())
        assert await store.settle_layout() == LAYOUT  # a second replica's start
        logged = await _all(store)
        assert logged[0].data == new_game().events[0]
    finally:
        await store.close()
