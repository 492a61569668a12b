"""The tournament half of the store contract, on both stores: every write is
set-if-absent (or one status change) with its events, ids count 1, 2, 3..., and the
schedule leases a running tournament to one sweeper at a time."""

from __future__ import annotations

import asyncio

from services.stores import NewGame


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
    assert await store.claim_tournaments(10, lease=30.0) == ["a"]
    assert await store.claim_tournaments(10, lease=30.0) == []  # leased
    await store.renew_tournament("a", 0.0)  # handed back: due now
    assert await store.claim_tournaments(10, lease=30.0) == ["a"]
    await store.set_tournament_status("a", "cancelled", [])
    await store.renew_tournament("a", 0.0)  # out of the schedule: stays out
    assert await store.claim_tournaments(10, lease=30.0) == []


async def test_a_waiting_watch_wakes_on_a_new_event(store):
    await store.create_tournament("w", {}, "running", [])
    waiting = asyncio.ensure_future(store.wait_tournament_events("w", 0, 5.0))
    await asyncio.sleep(0)  # the wait has begun
    await store.start_table("w", 0, {"game_id": "g"}, [{"kind": "started"}])
    events = await asyncio.wait_for(waiting, 5.0)
    assert [e.data["kind"] for e in events] == ["started"]


async def test_luck_is_written_with_the_step_and_left_alone_otherwise(store):
    game = NewGame("g1", {"game_type": "cite"}, b"s0", 0, "in_progress", [], luck='{"k":1}')
    await store.create(game)
    assert (await store.load("g1")).luck == '{"k":1}'
    await store.commit("g1", 0, 1, b"s1", "in_progress", [{"kind": "action"}])
    assert (await store.load("g1")).luck == '{"k":1}'  # None: unchanged
    await store.commit("g1", 1, 2, b"s2", "in_progress", [{"kind": "action"}], luck='{"k":2}')
    assert (await store.load("g1")).luck == '{"k":2}'
