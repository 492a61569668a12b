"""The quick play queues' contract (``services.stores.match_queue``), on both stores:
bounds, one queue per account, matches taken all or none, answers handed over once."""

from __future__ import annotations

import json

from services.stores.match_queue import Polled, Queued, Ticket


def _ticket(account: str, queue: str = "cite:2", since: float = 100.0) -> Ticket:
    return Ticket(account, queue, f"t-{account}", 25.0, since, since)


async def test_bounds_and_one_queue_per_account(store):
    assert await store.enqueue(_ticket("a"), per_queue=2, total=3) == Queued.OK
    assert await store.enqueue(_ticket("a", "catan:4"), 2, 3) == Queued.ALREADY
    assert await store.enqueue(_ticket("b", since=101.0), 2, 3) == Queued.OK
    assert await store.enqueue(_ticket("c"), 2, 3) == Queued.QUEUE_FULL
    assert await store.enqueue(_ticket("c", "catan:4"), 2, 3) == Queued.OK
    assert await store.enqueue(_ticket("d", "catan:4"), 2, 3) == Queued.ALL_FULL
    assert await store.queue_names() == ["catan:4", "cite:2"]
    assert [t.account for t in await store.queue_tickets("cite:2")] == ["a", "b"]
    assert (await store.leave_queue("c"), await store.leave_queue("c")) == ("catan:4", "")
    assert await store.queue_names() == ["cite:2"]
    assert (await store.poll_queue("c", 200.0)).state == Polled.GONE
    polled = await store.poll_queue("a", 200.0)
    assert polled.state == Polled.WAITING
    assert [t.seen for t in await store.queue_tickets("cite:2")] == [200.0, 101.0]
    for name in ("a", "b"):
        await store.leave_queue(name)


async def test_a_match_is_taken_all_or_none_and_answered_once(store):
    for name, since in (("a", 1.0), ("b", 2.0)):
        assert await store.enqueue(_ticket(name, since=since), 10, 10) == Queued.OK
    a, b = await store.queue_tickets("cite:2")
    stale = Ticket("b", "cite:2", "another", 25.0, 2.0, 2.0)
    assert not await store.take_match("m0", "{}", [a, stale])  # b's ticket differs
    assert len(await store.queue_tickets("cite:2")) == 2
    assert await store.take_match("m1", '{"plan": 1}', [a, b])
    assert await store.queue_tickets("cite:2") == [] and await store.queue_names() == []
    assert await store.open_matches() == {"m1": '{"plan": 1}'}
    assert (await store.poll_queue("a", 3.0)).state == Polled.MATCHING
    assert not await store.leave_queue("a")  # taken: the match goes on
    assert await store.enqueue(_ticket("a"), 10, 10) == Queued.ALREADY
    await store.answer_match("m1", {"a": json.dumps({"seat": 0}), "b": "{}"}, 60.0)
    assert await store.open_matches() == {}
    polled = await store.poll_queue("a", 4.0)
    assert (polled.state, json.loads(polled.answer)) == (Polled.MATCHED, {"seat": 0})
    assert (await store.poll_queue("a", 5.0)).state == Polled.GONE  # handed over once
    assert (await store.poll_queue("b", 5.0)).state == Polled.MATCHED
