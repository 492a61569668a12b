"""The ``EventLogs`` contract, both stores: one reader follows many logs at once."""

from __future__ import annotations

import asyncio

from tests.stores.helpers import new_game


async def test_event_reader_orders_ids_as_numbers(store):
    await store.create(new_game("g1"))
    for version in range(10):
        await store.commit("g1", version, version + 1, b"s", "in_progress", [{"n": version}])
    reader = store.event_reader()
    try:
        found = await reader.read({"g1": 9}, timeout=1)
    finally:
        await reader.close()
    assert [e.event_id for e in found["g1"]] == [10, 11]


async def test_event_reader_follows_many_games_at_once(store):
    await store.create(new_game("a"))
    await store.create(new_game("b"))
    start = {g: (await store.load(g)).last_event_id for g in ("a", "b")}
    reader = store.event_reader()
    try:
        waiter = asyncio.create_task(reader.read(start, timeout=10))
        await store.commit("b", 0, 1, b"s1", "in_progress", [{"n": 1}])
        got = await asyncio.wait_for(waiter, 10)
        assert {g: [e.data["n"] for e in events] for g, events in got.items()} == {"b": [1]}
        await store.commit("a", 0, 1, b"s1", "in_progress", [{"n": 2}, {"n": 3}])
        got = await reader.read(start, timeout=10)  # already there: no wait
        assert {g: [e.data["n"] for e in events] for g, events in got.items()} == {
            "a": [2, 3],
            "b": [1],
        }
        moved = {g: events[-1].event_id for g, events in got.items()}
        assert await reader.read(moved, timeout=0.05) == {}
    finally:
        await reader.close()


async def test_event_reader_wake_ends_a_wait_early(store):
    await store.create(new_game("a"))
    reader = store.event_reader()
    try:
        waiter = asyncio.create_task(
            reader.read({"a": (await store.load("a")).last_event_id}, timeout=60)
        )
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 30  # a hang guard, below the read's 60 s
        while not waiter.done():  # a wake that lands before the read blocks is lost: repeat
            assert loop.time() < deadline, "wake did not end the read"
            await reader.wake()
            await asyncio.wait({waiter}, timeout=0.2)
        assert waiter.result() == {}
    finally:
        await reader.close()
