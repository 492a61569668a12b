"""The ``TournamentStore`` contract, both stores: every write is
set-if-absent (or one status change) with its events, ids count 1, 2, 3..., the
schedule leases a running tournament to one sweeper at a time, ended and idle
tournaments expire, and one event reader follows tournaments' logs with games'."""

from __future__ import annotations

import asyncio

from services.stores import NewGame, TournamentLog
from services.stores.leases import TOURNAMENTS
from tests.polling import eventually
from tests.stores.helpers import claim_jobs


async def test_tournament_writes_happen_once_with_their_events(store):
    record = {"definition": {"name": "t"}, "created": 1.0}
    assert await store.create_tournament("t", record, "running", [{"kind": "a"}])
    assert not await store.create_tournament("t", {"other": 1}, "running", [])
    assert await store.start_table("t", 0, {"game_id": "g0"}, [{"kind": "started"}])
    assert not await store.start_table("t", 0, {"game_id": "g9"}, [{"kind": "started"}])
    assert await store.finish_table("t", 0, {"returns": [1, 0]}, [{"kind": "f"}, {"kind": "s"}])
    assert not await store.finish_table("t", 0, {"returns": [0, 1]}, [{"kind": "f"}])
    assert await store.claim_entrant("t", "me", "hash")
    assert not await store.claim_entrant("t", "me", "other")
    assert not await store.start_table("missing", 0, {}, [])
    snap = await store.load_tournament("t")
    assert snap.record == record and snap.status == "running"
    assert snap.tables == {0: {"game_id": "g0"}} and snap.results == {0: {"returns": [1, 0]}}
    assert snap.entrants == {"me": "hash"}
    events = await store.tournament_events("t")
    assert [(e.event_id, e.data["kind"]) for e in events] == [
        (1, "a"),
        (2, "started"),
        (3, "f"),
        (4, "s"),
    ]
    assert snap.last_event_id == 4
    assert [e.event_id for e in await store.tournament_events("t", after=2)] == [3, 4]
    assert await store.set_tournament_status("t", "finished", [{"kind": "end"}])
    assert not await store.set_tournament_status("t", "cancelled", [{"kind": "end"}])
    assert (await store.load_tournament("t")).status == "finished"
    assert await store.list_tournaments() == ["t"]
    assert await store.load_tournament("nobody") is None


async def test_running_tournaments_are_leased_to_one_sweeper(store):
    await store.create_tournament("a", {}, "running", [])
    [lease] = await store.claim(TOURNAMENTS, 10, 30.0)
    assert lease.job == "a"
    assert await claim_jobs(store, TOURNAMENTS, 10, 30.0) == []  # leased
    assert await store.renew(lease, 0.0)  # handed back: due now
    [lease] = await store.claim(TOURNAMENTS, 10, 30.0)
    await store.set_tournament_status("a", "cancelled", [])
    assert await store.renew(lease, 0.0) is None  # out of the schedule: stays out
    assert await claim_jobs(store, TOURNAMENTS, 10, 30.0) == []


async def test_a_cancelled_tournament_can_stay_swept_until_unscheduled(store):
    """A cancel keeps the tournament in the schedule, due at once (its sweep ends the
    table games), until the sweep takes it out."""
    await store.create_tournament("c", {}, "running", [])
    assert await claim_jobs(store, TOURNAMENTS, 10, 30.0) == ["c"]  # leased: not due now
    assert await store.set_tournament_status("c", "cancelled", [{"kind": "x"}], keep_swept=True)
    [lease] = await store.claim(TOURNAMENTS, 10, 30.0)  # due at once
    assert lease.job == "c"
    assert await store.renew(lease, 0.0)
    await store.unschedule_tournament("c")
    assert await claim_jobs(store, TOURNAMENTS, 10, 30.0) == []
    assert (await store.load_tournament("c")).status == "cancelled"
    await store.unschedule_tournament("c")  # not in the schedule: nothing happens
    await store.unschedule_tournament("nobody")


async def test_ended_tournaments_expire_after_their_retention(store):
    for name in ("done", "cancelled", "live"):
        assert await store.create_tournament(name, {"created": 1.0}, "running", [{"kind": "a"}])
    await store.start_table("done", 0, {"game_id": "g"}, [{"kind": "started"}])
    await store.finish_table("done", 0, {"returns": [1, 0]}, [{"kind": "finished"}])
    await store.claim_entrant("done", "me", "hash")
    assert await store.set_tournament_status("done", "finished", [{"kind": "end"}])
    assert await store.set_tournament_status("cancelled", "cancelled", [])
    assert await store.expire_tournaments(finished_retention=3600, idle_expiry=3600) == []

    async def ended_gone():
        await store.expire_tournaments(finished_retention=0.2, idle_expiry=3600)
        return await store.list_tournaments() == ["live"]

    await eventually(ended_gone, 10, "the ended tournaments to expire")
    for name in ("done", "cancelled"):
        assert await store.load_tournament(name) is None
        assert await store.tournament_events(name) == []
    assert (await store.load_tournament("live")).last_event_id == 1
    # Out of the sweep schedule too: only the running one is ever claimed.
    assert await claim_jobs(store, TOURNAMENTS, 10, 30.0) == ["live"]
    # A name set free takes a new tournament, with a log of its own from event 1.
    assert await store.create_tournament("done", {"created": 2.0}, "running", [{"kind": "b"}])
    assert [e.event_id for e in await store.tournament_events("done")] == [1]


async def test_idle_running_tournaments_expire(store):
    await store.create_tournament("idle", {}, "running", [])
    assert await store.expire_tournaments(finished_retention=3600, idle_expiry=3600) == []

    async def idle_gone():
        return "idle" in await store.expire_tournaments(finished_retention=3600, idle_expiry=0.2)

    await eventually(idle_gone, 10, "the idle tournament to expire")
    assert await store.load_tournament("idle") is None
    assert await claim_jobs(store, TOURNAMENTS, 10, 30.0) == []
    assert not await store.start_table("idle", 0, {"game_id": "g"}, [{"kind": "started"}])


async def test_one_event_reader_follows_tournaments_and_games_alike(store):
    await store.create_tournament("w", {}, "running", [{"kind": "created"}])
    await store.create(NewGame("g", {"game_type": "cite"}, b"s0", 0, "in_progress", [{"n": 1}]))
    start = {TournamentLog("w"): 1, "g": 1}
    reader = store.event_reader()
    try:
        waiting = asyncio.create_task(reader.read(start, timeout=10))
        await asyncio.sleep(0)  # the read has begun
        await store.start_table("w", 0, {"game_id": "g"}, [{"kind": "started"}])
        got = await asyncio.wait_for(waiting, 10)
        assert {k: [e.data["kind"] for e in v] for k, v in got.items()} == {
            TournamentLog("w"): ["started"]
        }
        await store.commit("g", 0, 1, b"s1", "in_progress", [{"n": 2}])
        got = await reader.read(start, timeout=10)
        assert [e.event_id for e in got[TournamentLog("w")]] == [2]
        assert [e.data["n"] for e in got["g"]] == [2]
    finally:
        await reader.close()
    assert [e.event_id for e in await store.log_events(TournamentLog("w"), 1)] == [2]
    assert await store.log_exists(TournamentLog("w")) and await store.log_exists("g")
    assert not await store.log_exists(TournamentLog("nobody"))


async def test_luck_is_written_with_the_step_and_left_alone_otherwise(store):
    game = NewGame("g1", {"game_type": "cite"}, b"s0", 0, "in_progress", [], luck='{"k":1}')
    await store.create(game)
    assert (await store.load("g1")).luck == '{"k":1}'
    await store.commit("g1", 0, 1, b"s1", "in_progress", [{"kind": "action"}])
    assert (await store.load("g1")).luck == '{"k":1}'  # None: unchanged
    await store.commit("g1", 1, 2, b"s2", "in_progress", [{"kind": "action"}], luck='{"k":2}')
    assert (await store.load("g1")).luck == '{"k":2}'
