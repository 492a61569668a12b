"""A finished game the archive holds leaves the store, on both stores: its state,
tokens, log, client request results (the archiver read them for the archive) and turn
key go, and a tombstone stays for the finished retention (the id is not given out
again meanwhile). A game that is not finished, or changed after it was read for the
archive, stays. Bot turns' request keys are one rolling field per game, never a key
each; clients' are one record per game, expiring after the newest."""

from __future__ import annotations

import json

import redis.asyncio as aioredis

from services.stores import Commit, CommitOutcome, GameExists
from services.stores.redis_store import RedisStore
from tests.polling import eventually
from tests.stores.helpers import new_game

WEEK = 7 * 86400.0
RESULT = {"version": 1, "action": 7, "notation": "take 7"}


async def _finish_with_request(store, game_id: str = "g1") -> int:
    """A game finished by a client's request; returns its newest event id."""
    await store.create(new_game(game_id))
    done = await store.commit(
        game_id, 0, 1, b"end", "finished", [{"kind": "finished"}], "c0ffee:req-1", RESULT
    )
    assert done.outcome is CommitOutcome.APPLIED
    return done.event_ids[-1]


async def test_a_forgotten_game_leaves_only_a_tombstone(store):
    last = await _finish_with_request(store)
    await store.create(new_game("live"))
    assert await store.request_results("g1") == {"c0ffee:req-1": RESULT}
    assert await store.forget_archived("g1", last, "cite", WEEK)
    assert await store.load("g1") is None
    assert await store.load("g1", "c0ffee:req-1") is None
    assert await store.events("g1") == []
    assert [s.game_id for s in await store.list_games()] == ["live"]
    assert await store.bot_turn_due_in("g1") is None
    remains = await store.tombstone("g1")
    assert (remains.status, remains.game_type) == ("finished", "cite")
    assert remains.finished_at > 0
    assert await store.request_results("g1") == {}  # in the archive now
    # The id stays taken while the tombstone is kept.
    try:
        await store.create(new_game("g1"))
    except GameExists:
        pass
    else:
        raise AssertionError("a forgotten game's id was given out again")
    assert await store.forget_archived("g1", last, "cite", WEEK) is False  # once is all
    assert await store.tombstone("live") is None


async def test_only_a_finished_game_as_archived_is_forgotten(store):
    await store.create(new_game())
    first = await store.commit("g1", 0, 1, b"s1", "in_progress", [{"kind": "action"}])
    assert await store.forget_archived("g1", first.event_ids[-1], "cite", WEEK) is False
    assert (await store.load("g1")).version == 1
    done = await store.commit("g1", 1, 2, b"end", "finished", [{"kind": "finished"}])
    # Read for the archive at this event; a later write (a late join) moved the log on.
    archived_at = done.event_ids[-1]
    late = await store.commit("g1", 2, 2, b"end", "finished", [{"kind": "joined"}])
    assert late.outcome is CommitOutcome.APPLIED
    assert await store.forget_archived("g1", archived_at, "cite", WEEK) is False
    assert (await store.load("g1")).last_event_id == late.event_ids[-1]
    assert await store.tombstone("g1") is None
    assert await store.forget_archived("g1", late.event_ids[-1], "cite", WEEK)


async def test_a_tombstone_expires_with_the_finished_retention(store):
    last = await _finish_with_request(store)
    assert await store.forget_archived("g1", last, "cite", 0.2)

    async def expired() -> bool:
        await store.expire_games(WEEK, WEEK)  # the memory store's sweep; Redis expires it
        return await store.tombstone("g1") is None

    await eventually(expired, 10, "the tombstone to expire")
    await store.create(new_game("g1"))  # the id is free again


async def _turn(store, expected: int, key: str):
    return await store.write(
        Commit(
            game_id="g1",
            expected_version=expected,
            new_version=expected + 1,
            state=b"s",
            status="in_progress",
            events=[{"kind": "action"}],
            request_key=key,
            request_result={"version": expected + 1},
            turn_request=True,
        )
    )


async def test_a_turns_request_key_is_kept_until_the_next_turn(store):
    await store.create(new_game())
    assert (await _turn(store, 0, "bot:0")).outcome is CommitOutcome.APPLIED
    assert (await store.load("g1", "bot:0")).request_result == {"version": 1}
    again = await _turn(store, 0, "bot:0")  # a redelivered decision
    assert again.outcome is CommitOutcome.DUPLICATE and again.request_result == {"version": 1}
    # A person moves, then the next turn: the older turn is refused by its version alone.
    await store.commit("g1", 1, 2, b"s", "in_progress", [{"kind": "action"}], "c0ffee:r", {})
    assert (await store.load("g1", "bot:0")).request_result == {"version": 1}
    assert (await _turn(store, 2, "timeout:2")).outcome is CommitOutcome.APPLIED
    assert (await store.load("g1", "bot:0")).request_result is None
    assert (await _turn(store, 0, "bot:0")).outcome is CommitOutcome.STALE
    assert (await store.load("g1", "timeout:2")).request_result == {"version": 3}
    assert (await store.load("g1", "c0ffee:r")).request_result == {}
    assert await store.request_results("g1") == {"c0ffee:r": {}}  # a client's only


async def test_redis_keeps_no_key_per_turn_and_a_small_tombstone(redis_url, redis_prefix):
    store = RedisStore.from_url(redis_url, redis_prefix)
    raw = aioredis.Redis.from_url(redis_url)
    try:
        await store.settle_layout()  # a new deployment: the newest layout
        await store.create(new_game())
        for version in range(5):
            assert (await _turn(store, version, f"bot:{version}")).outcome.value == "applied"
        keys = {k.decode() async for k in raw.scan_iter(match=f"{redis_prefix}:*")}
        assert not [k for k in keys if ":request" in k], keys
        done = await store.commit(
            "g1", 5, 6, b"end", "finished", [{"kind": "finished"}], "c0ffee:req-1", RESULT
        )
        assert await store.forget_archived("g1", done.event_ids[-1], "cite", WEEK)
        left = sorted(
            [
                k.decode().removeprefix(f"{redis_prefix}:")
                async for k in raw.scan_iter(match=f"{redis_prefix}:{{g1}}:*")
            ]
        )
        assert left == ["{g1}:gone"]
        assert await raw.memory_usage(f"{redis_prefix}:{{g1}}:gone", samples=0) <= 512
        assert 0 < await raw.pttl(f"{redis_prefix}:{{g1}}:gone") <= WEEK * 1000
    finally:
        await raw.aclose()
        await store.close()


async def test_redis_still_answers_request_ids_kept_one_key_each(redis_url, redis_prefix):
    """A request applied before the per-game record (a key of its own, expiring) is
    still answered as applied, by a read and by a commit, until it expires."""
    store = RedisStore.from_url(redis_url, redis_prefix)
    raw = aioredis.Redis.from_url(redis_url)
    try:
        await store.settle_layout()  # a new deployment: the newest layout
        await store.create(new_game())
        await raw.set(f"{redis_prefix}:{{g1}}:request:c0ffee:old", json.dumps(RESULT), px=60_000)
        assert (await store.load("g1", "c0ffee:old")).request_result == RESULT
        again = await store.commit(
            "g1", 0, 1, b"s", "in_progress", [{"kind": "action"}], "c0ffee:old", {"x": 1}
        )
        assert again.outcome is CommitOutcome.DUPLICATE and again.request_result == RESULT
        assert (await store.load("g1")).version == 0
    finally:
        await raw.aclose()
        await store.close()
