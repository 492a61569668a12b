"""The ``GameLog`` contract, both stores: create, load, the compare-and-set write, seats,
the game's events and its clients' request ids."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from services.stores import CommitOutcome, GameMoved
from services.stores.memory import MemoryStore
from services.stores.redis_store import RedisStore
from tests.polling import eventually
from tests.stores.helpers import new_game


async def test_create_then_load(store):
    ids = await store.create(new_game())
    assert len(ids) == 1
    snap = await store.load("g1")
    assert snap.meta == {"game_type": "cite", "players": 2, "seed": 42}
    assert (snap.state, snap.version, snap.status) == (b"state-0", 0, "in_progress")
    assert snap.tokens == {}
    assert snap.last_event_id == ids[0]
    assert await store.load("nope") is None


async def test_create_twice_is_refused(store):
    await store.create(new_game())
    with pytest.raises(ValueError):
        await store.create(new_game())


async def test_commit_applies_on_matching_version(store):
    await store.create(new_game())
    result = await store.commit(
        "g1",
        0,
        2,
        b"state-2",
        "in_progress",
        [{"kind": "action", "n": 1}, {"kind": "action", "n": 2}],
    )
    assert result.outcome is CommitOutcome.APPLIED
    assert result.version == 2 and len(result.event_ids) == 2
    snap = await store.load("g1")
    assert (snap.state, snap.version) == (b"state-2", 2)
    assert snap.last_event_id == result.event_ids[-1]


async def test_stale_commit_changes_nothing(store):
    await store.create(new_game())
    await store.commit("g1", 0, 1, b"state-1", "in_progress", [{"n": 1}])
    stale = await store.commit("g1", 0, 1, b"other", "in_progress", [{"n": 99}])
    assert stale.outcome is CommitOutcome.STALE and stale.version == 1
    snap = await store.load("g1")
    assert snap.state == b"state-1"
    assert [e.data.get("n") for e in await store.events("g1")] == [None, 1]


async def test_commit_to_unknown_game(store):
    result = await store.commit("missing", 0, 1, b"x", "in_progress", [])
    assert result.outcome is CommitOutcome.NOT_FOUND
    assert await store.load("missing") is None


async def test_request_id_applies_once(store):
    await store.create(new_game())
    first = await store.commit(
        "g1", 0, 1, b"s1", "in_progress", [{"n": 1}], "0:req-1", {"version": 1, "action": 7}
    )
    assert first.outcome is CommitOutcome.APPLIED
    await store.commit("g1", 1, 2, b"s2", "in_progress", [{"n": 2}])
    again = await store.commit(
        "g1", 1, 2, b"s1-again", "in_progress", [{"n": 3}], "0:req-1", {"version": 9}
    )
    assert again.outcome is CommitOutcome.DUPLICATE
    assert again.request_result == {"version": 1, "action": 7}
    snap = await store.load("g1", request_key="0:req-1")
    assert snap.request_result == {"version": 1, "action": 7}
    assert snap.state == b"s2" and snap.version == 2
    assert (await store.load("g1", request_key="0:other")).request_result is None


async def test_concurrent_commits_exactly_one_wins(store):
    await store.create(new_game())
    results = await asyncio.gather(
        *(store.commit("g1", 0, 1, f"s-{i}".encode(), "in_progress", [{"i": i}]) for i in range(20))
    )
    applied = [r for r in results if r.outcome is CommitOutcome.APPLIED]
    assert len(applied) == 1
    assert all(r.outcome is CommitOutcome.STALE for r in results if r not in applied)
    assert len(await store.events("g1")) == 2


async def test_claim_seat_once(store):
    await store.create(new_game())
    assert await store.claim_seat("g1", 1, "hash-a", {"kind": "joined", "seat": 1})
    assert not await store.claim_seat("g1", 1, "hash-b", {"kind": "joined", "seat": 1})
    assert not await store.claim_seat("nope", 0, "hash", {"kind": "joined"})
    snap = await store.load("g1")
    assert snap.tokens == {1: "hash-a"}
    assert [e.data["kind"] for e in await store.events("g1")] == ["created", "joined"]


async def test_claim_seat_at_a_version_the_game_has_moved_past_claims_nothing(store):
    """A join's event says whose turn it is: claimed at an older version (a bot moved
    since the join read the game), it is refused, and the seat stays free."""
    await store.create(new_game())
    await store.commit("g1", 0, 1, b"s1", "in_progress", [{"n": 1}])
    with pytest.raises(GameMoved):
        await store.claim_seat("g1", 1, "hash-a", {"kind": "joined", "seat": 1}, version=0)
    assert (await store.load("g1")).tokens == {}
    assert [e.data.get("kind") for e in await store.events("g1")] == ["created", None]
    assert await store.claim_seat("g1", 1, "hash-a", {"kind": "joined", "seat": 1}, version=1)
    assert (await store.load("g1")).tokens == {1: "hash-a"}


async def test_a_name_claimed_with_a_seat_outlives_writes_built_before_the_claim(store):
    """JoinGame's name names the seat in the metadata ``load`` reads, without moving the
    version: a seat change built on the game before the join (its metadata without the
    name) keeps it, as does another seat's named claim; a new token on the seat (a
    rejoin) takes the name the seat change wrote."""
    seats = [{"kind": "human", "level": "", "name": ""}] * 2
    await store.create(dataclasses.replace(new_game(), meta={**new_game().meta, "seats": seats}))
    before = await store.load("g1")
    assert await store.claim_seat("g1", 0, "hash-a", {"kind": "joined"}, version=0, name="Ann")
    assert await store.claim_seat("g1", 1, "hash-b", {"kind": "joined"}, version=0, name="Bo")
    joined = await store.load("g1")
    assert joined.version == 0 and [s.name for s in joined.info.seats] == ["Ann", "Bo"]
    stale_meta = {**before.meta, "clock": {"seat": 1}}
    written = await store.commit("g1", 0, 1, b"s1", "in_progress", [{"n": 1}], meta=stale_meta)
    assert written.outcome is CommitOutcome.APPLIED
    assert [s.name for s in (await store.load("g1")).info.seats] == ["Ann", "Bo"]
    renamed = {**stale_meta, "seats": [{**seats[0], "name": "Cy"}, seats[1]]}
    rejoined = await store.commit(
        "g1", 1, 2, b"s2", "in_progress", [], meta=renamed, tokens={0: ("hash-a", "hash-c")}
    )
    assert rejoined.outcome is CommitOutcome.APPLIED
    assert [s.name for s in (await store.load("g1")).info.seats] == ["Cy", "Bo"]


async def test_events_after_an_id(store):
    await store.create(new_game())
    r1 = await store.commit("g1", 0, 1, b"s1", "in_progress", [{"n": 1}])
    r2 = await store.commit("g1", 1, 3, b"s3", "in_progress", [{"n": 2}, {"n": 3}])
    everything = await store.events("g1")
    assert [e.data.get("n") for e in everything] == [None, 1, 2, 3]
    after = await store.events("g1", after=r1.event_ids[0])
    assert [e.event_id for e in after] == r2.event_ids
    assert await store.events("g1", after=r2.event_ids[-1]) == []
    assert len(await store.events("g1", limit=2)) == 2


async def test_event_ids_are_per_game_sequence_numbers(store):
    """Ids are integers 1, 2, 3... in each game's own sequence, whichever store: never
    Redis times, never strings (which sort "9-0" after "10-0")."""
    await store.create(new_game("g1"))
    await store.create(new_game("g2"))
    for version in range(11):
        result = await store.commit("g1", version, version + 1, b"s", "in_progress", [{"n": 1}])
        assert result.event_ids == [version + 2]
    assert await store.claim_seat("g1", 0, "hash", {"kind": "joined", "seat": 0})
    ids = [e.event_id for e in await store.events("g1")]
    assert ids == list(range(1, 14))
    assert all(type(i) is int for i in ids)
    assert (await store.load("g1")).last_event_id == 13
    assert [e.event_id for e in await store.events("g1", after=9)] == [10, 11, 12, 13]
    assert [e.event_id for e in await store.events("g2")] == [1]  # its own sequence
    assert await store.wait_events("g1", 9, timeout=0.05) != []
    assert [e.event_id for e in await store.wait_events("g1", 12, timeout=1)] == [13]


async def test_wait_events_wakes_on_commit(store):
    await store.create(new_game())
    last = (await store.load("g1")).last_event_id
    waiter = asyncio.create_task(store.wait_events("g1", last, timeout=10))
    await asyncio.sleep(0)  # let the waiter start before the commit lands
    await store.commit("g1", 0, 1, b"s1", "in_progress", [{"n": 1}])
    got = await asyncio.wait_for(waiter, 10)
    assert [e.data["n"] for e in got] == [1]


async def test_wait_events_times_out_empty(store):
    await store.create(new_game())
    last = (await store.load("g1")).last_event_id
    assert await store.wait_events("g1", last, timeout=0.05) == []


async def test_list_games_newest_first(store):
    await store.create(new_game("a"))
    await store.create(new_game("b"))
    games = await store.list_games()
    ids = [g.game_id for g in games]
    assert ids.index("b") < ids.index("a")
    assert len(await store.list_games(limit=1)) == 1


@pytest.fixture(params=["memory", "redis"])
async def short_ttl_store(request):
    """A store that remembers request ids for 0.3 s only."""
    if request.param == "memory":
        s = MemoryStore(request_ttl=0.3)
    else:
        url = request.getfixturevalue("redis_url")
        prefix = request.getfixturevalue("redis_prefix")
        s = RedisStore.from_url(url, prefix=prefix, request_ttl=0.3)
    yield s
    await s.close()


async def test_request_ids_expire(short_ttl_store):
    store = short_ttl_store
    await store.create(new_game())
    first = await store.commit("g1", 0, 1, b"s1", "in_progress", [], "seat0:r1", {"v": 1})
    assert first.outcome is CommitOutcome.APPLIED
    again = await store.commit("g1", 0, 1, b"s1", "in_progress", [], "seat0:r1", {"v": 1})
    assert again.outcome is CommitOutcome.DUPLICATE
    assert (await store.load("g1", "seat0:r1")).request_result == {"v": 1}

    async def forgotten():
        return (await store.load("g1", "seat0:r1")).request_result is None

    await eventually(forgotten, 10, "the request id to expire")
    later = await store.commit("g1", 1, 2, b"s2", "in_progress", [], "seat0:r1", {"v": 2})
    assert later.outcome is CommitOutcome.APPLIED


async def test_commit_writes_new_meta_and_token_changes_with_the_state(store):
    await store.create(new_game())
    assert await store.claim_seat("g1", 0, "hash-a", {"kind": "joined"})
    meta = {"game_type": "cite", "players": 2, "seed": 42, "seats": ["changed"]}
    result = await store.commit(
        "g1",
        0,
        1,
        b"state-0",
        "in_progress",
        [{"kind": "seat_changed"}],
        meta=meta,
        tokens={0: ("hash-a", "bot"), 1: ("", "hash-b")},
    )
    assert result.outcome is CommitOutcome.APPLIED
    snap = await store.load("g1")
    assert snap.meta == meta and snap.tokens == {0: "bot", 1: "hash-b"}
    assert snap.version == 1
    # "" as the new hash removes the seat's token.
    await store.commit("g1", 1, 2, b"s", "in_progress", [], tokens={1: ("hash-b", "")})
    assert (await store.load("g1")).tokens == {0: "bot"}


async def test_a_token_not_as_expected_refuses_the_whole_commit(store):
    await store.create(new_game())
    assert await store.claim_seat("g1", 1, "someone", {"kind": "joined"})
    before = await store.load("g1")
    result = await store.commit(
        "g1",
        0,
        1,
        b"state-1",
        "in_progress",
        [{"kind": "seat_changed"}],
        request_key="r1",
        request_result={"version": 1},
        bot_due_in=0.0,
        meta={"changed": True},
        tokens={0: ("", "bot"), 1: ("", "bot")},  # seat 1 is taken: not ""
    )
    assert result.outcome is CommitOutcome.SEAT_TAKEN and result.version == 0
    after = await store.load("g1", "r1")
    assert after.meta == before.meta and after.tokens == {1: "someone"}
    assert (after.state, after.version, after.last_event_id) == (b"state-0", 0, 2)
    assert after.request_result is None
    assert await store.bot_turn_due_in("g1") is None
