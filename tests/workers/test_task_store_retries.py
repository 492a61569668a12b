"""A bot task's store calls after a failover: the first call of a worker process's kept
store may still reach the old primary and fail; the task tries again instead of giving
the turn up (a replica would dispatch it again only after 15 s)."""

from __future__ import annotations

import asyncio
import concurrent.futures
from types import SimpleNamespace

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from services.errors import InvalidArgument
from workers import executor as celery_executor
from workers import tasks


def on_a_thread(call):
    """``call()`` on a thread of its own, as a worker process runs its tasks: no event
    loop of the test's may be running there."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(call).result(timeout=60)


@pytest.fixture(autouse=True)
def no_pauses(monkeypatch):
    monkeypatch.setattr(tasks, "STORE_RETRY_PAUSES", (0.0, 0.0, 0.0))
    # The task loop of its own (``tasks._run``), made on that thread.
    monkeypatch.setattr(tasks, "_run", lambda coro: asyncio.run(coro))


def failing(times: int, error: Exception):
    calls = []

    async def call() -> str:
        calls.append(1)
        if len(calls) <= times:
            raise error
        return "applied"

    return calls, call


def test_a_store_fault_is_tried_again_until_the_store_answers():
    calls, call = failing(2, RedisConnectionError("Error 111 connecting to 127.0.0.1:43463"))
    assert on_a_thread(lambda: tasks._run_retrying(call)) == "applied"
    assert len(calls) == 3


def test_a_store_that_stays_down_fails_the_task_after_the_last_try():
    calls, call = failing(99, RedisConnectionError("No master found for 'gamehost'"))
    with pytest.raises(RedisConnectionError):
        on_a_thread(lambda: tasks._run_retrying(call))
    assert len(calls) == len(tasks.STORE_RETRY_PAUSES) + 1


def test_other_errors_are_not_tried_again():
    calls, call = failing(1, InvalidArgument("a bug, not a fault"))
    with pytest.raises(InvalidArgument):
        on_a_thread(lambda: tasks._run_retrying(call))
    assert len(calls) == 1


def test_a_turn_waiting_for_a_worker_is_sent_again_once_the_store_recovers(monkeypatch):
    # A failover may lose the dispatched turn (the old primary's queue, or a worker
    # that had taken it when its connection broke): once the store answers again the
    # executor stops waiting for a worker to start it (the lapsed lease sends it again).
    sent = []
    monkeypatch.setattr(celery_executor, "dispatch", lambda *args: sent.append(args))
    monkeypatch.setattr(celery_executor.CeleryExecutor, "POLL", 0.01)
    snapshot = SimpleNamespace(version=7, current_bot_status=lambda: "")

    async def load(game_id):
        return snapshot

    async def renew():
        return None

    store = SimpleNamespace(load=load)
    lease = SimpleNamespace(
        store=store, game_id="g", version=7, renew=renew, set_status=lambda status: None
    )
    turn = SimpleNamespace(job=lambda: "job")
    executor = celery_executor.CeleryExecutor("redis://unused", "p")

    async def scenario():
        waiting = asyncio.ensure_future(executor.decide(turn, lease))
        while not sent:  # dispatched (on a thread), then it waits for a worker
            await asyncio.sleep(0.01)
        assert not waiting.done()
        executor.store_recovered()
        return await asyncio.wait_for(waiting, 10)

    assert on_a_thread(lambda: asyncio.run(scenario())) is None
