"""Celery tasks: a bot turn fans out K root-parallel search trees, one task each.
Each tree puts its root statistics in the store (``RedisStore.gather_tree``); the task
that brings the last one merges them, commits the chosen action and dispatches the
next turn, all in the same task: no chord callback to wait for, no result backend.

Every task marks the turn started and renews its lease in the store's bot-turn
schedule while it runs (a heartbeat), so a turn whose worker dies is due again
within ``WORKER_LEASE_SECONDS`` and a replica dispatches it anew; the commit puts
the next bot turn in the schedule, where the replicas' sweepers pick it up.
Nothing here blocks on another task's result.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import threading
import time
from collections.abc import Iterator
from typing import Any

from celery import group

import bots
from services.bots import bot_turns
from services.bots.bot_turns import BotJob
from services.kinds import BotStatus
from services.stores.redis_store import RedisStore
from workers import task_metrics
from workers.app import MAX_SEARCH_SECONDS, app

log = logging.getLogger(__name__)

# A running task renews its turn's lease this often, for this long: a dead worker's
# turn is due again within the lease (and a replica's next sweep).
WORKER_HEARTBEAT_SECONDS = 2.0
WORKER_LEASE_SECONDS = 10.0
# A next turn this worker dispatched itself is left to the workers this long: as long as
# a replica holds a turn it dispatched and no worker started (BotRunner).
NEXT_TURN_HOLD_SECONDS = 15.0
# A turn's gathered trees are forgotten this long after the last one came (a turn some
# of whose trees never finish: the game moved on, or a worker died and its task was
# never redelivered).
TREES_KEPT_SECONDS = 10 * MAX_SEARCH_SECONDS


def dispatch(job: BotJob, store_url: str, prefix: str, max_iterations: int | None = None) -> None:
    """Start ``job`` on the workers (the replica holds its lease until one starts it)."""
    payload = {
        "job": job.to_json(),
        "store_url": store_url,
        "prefix": prefix,
        "max_iterations": max_iterations,
    }
    trees = job.plan(max_iterations).trees
    if not trees:
        decide_and_commit.delay(payload)
        return
    # One connection for the K publishes.
    with app.producer_or_acquire() as producer:
        for tree in range(trees):
            search.apply_async((payload, tree), producer=producer)


# One event loop and one store (its connection pool) per worker process, kept between
# tasks: a new loop and a new Redis connection for every task cost several
# milliseconds of each bot turn (the load test's bot-turn overhead). Made lazily, so in
# the prefork child that runs the tasks, never in the parent before it forks.
_loop: asyncio.Runner | None = None
_stores: dict[tuple[str, str], RedisStore] = {}


def _run(coro: Any) -> Any:
    """Run ``coro`` on this process's task loop."""
    global _loop
    if _loop is None:
        _loop = asyncio.Runner()
    return _loop.run(coro)


def _kept_store(payload: dict[str, Any]) -> RedisStore:
    """The game store the dispatching replica named, kept for this process's later
    tasks (only ever used on the task loop)."""
    key = (payload["store_url"], payload["prefix"])
    store = _stores.get(key)
    if store is None:
        store = _stores[key] = RedisStore.from_url(*key)
    return store


class _LeaseKeeper:
    """One thread per worker process marks the bot turns its tasks run as started and
    renews their leases every ``WORKER_HEARTBEAT_SECONDS`` (a thread, an event loop and
    a Redis connection per task cost each turn milliseconds to start and to join)."""

    def __init__(self) -> None:
        self._held: dict[int, dict[str, Any]] = {}  # hold id -> payload
        self._new: list[dict[str, Any]] = []  # held, not yet marked started
        self._ids = iter(range(1, 1 << 62))
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._owner: int | None = None  # the process whose thread runs (prefork children)
        self._thread: threading.Thread | None = None

    def hold(self, payload: dict[str, Any]) -> int:
        with self._lock:
            if self._owner != os.getpid():  # first use in this process (a forked child)
                self._owner, self._thread = os.getpid(), None
                self._held.clear()
                self._new.clear()
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._run, daemon=True, name="bot-turn-leases"
                )
                self._thread.start()
            hold = next(self._ids)
            self._held[hold] = payload
            self._new.append(payload)
        self._wake.set()
        return hold

    def release(self, hold: int) -> None:
        with self._lock:
            self._held.pop(hold, None)

    def _run(self) -> None:
        asyncio.run(self._keep())

    async def _keep(self) -> None:
        stores: dict[tuple[str, str], RedisStore] = {}
        while True:
            self._wake.clear()  # before taking the new turns: a later hold wakes us again
            with self._lock:
                new, self._new = self._new, []
                held = list(self._held.values())
            for payload in held:
                # The store is down: the lease runs out and a replica dispatches again.
                with contextlib.suppress(Exception):
                    key = (payload["store_url"], payload["prefix"])
                    store = stores.get(key) or stores.setdefault(key, RedisStore.from_url(*key))
                    job = BotJob.from_json(payload["job"])
                    if any(payload is fresh for fresh in new):
                        await store.set_bot_status(job.game_id, job.version, BotStatus.STARTED)
                    await store.renew_bot_turn(job.game_id, job.version, WORKER_LEASE_SECONDS)
            await asyncio.to_thread(self._wake.wait, WORKER_HEARTBEAT_SECONDS)


_leases = _LeaseKeeper()


@contextlib.contextmanager
def heartbeat(payload: dict[str, Any]) -> Iterator[None]:
    """Keep the turn's lease while the body runs (this process's lease keeper)."""
    hold = _leases.hold(payload)
    try:
        yield
    finally:
        _leases.release(hold)


def _moved_on(payload: dict[str, Any]) -> bool:
    """True when the game is past the job's version (a late duplicate: skip the search)."""

    async def check() -> bool:
        job = BotJob.from_json(payload["job"])
        snapshot = await _kept_store(payload).load(job.game_id)
        return snapshot is None or snapshot.version != job.version

    return _run(check())


@app.task(name="gamehost.search", ignore_result=True)
def search(payload: dict[str, Any], tree: int) -> str:
    """One tree of a turn; the task that completes the turn's trees commits it."""
    if _moved_on(payload):
        return "stale"  # the game moved on: the other trees' commit would be stale too
    job = BotJob.from_json(payload["job"])
    level = job.plan(payload.get("max_iterations"))
    with heartbeat(payload):
        started = time.perf_counter()
        stats = bots.search_tree(job.view(), job.seat, level, job.seed, tree)
        searched = time.perf_counter()  # from here on, overhead: the heartbeat's end too
    task_metrics.observe("search", job, searched - started)
    gathered = _run(
        _kept_store(payload).gather_tree(
            job.game_id,
            bot_turns.turn_request_key(job.version, job.timeout),
            tree,
            json.dumps(stats, separators=(",", ":")).encode(),
            level.trees,
            TREES_KEPT_SECONDS,
        )
    )
    if gathered is None:
        return "searched"  # another tree's task commits the turn
    results = [json.loads(raw) for raw in gathered]
    action = bots.best_action(bots.merge_root_stats(results))
    outcome = commit_after_search(payload, action)
    task_metrics.observe("commit", job, time.perf_counter() - searched, outcome)
    return outcome


@app.task(name="gamehost.decide_and_commit", ignore_result=True)
def decide_and_commit(payload: dict[str, Any]) -> str:
    """A level that decides without search: choose, commit, dispatch the next turn."""
    job = BotJob.from_json(payload["job"])
    started = time.perf_counter()
    with heartbeat(payload):
        action = bots.choose_action(job.view(), job.seat, job.level, job.seed)
    outcome = commit_after_search(payload, action)
    task_metrics.observe("commit", job, time.perf_counter() - started, outcome)
    return outcome


# ------------------------------------------------------------------ analysis (hints)
# A hint's job runs the same search as a bot turn but commits nothing, holds no
# bot-turn lease and is never skipped as stale: the replica that asked waits for it.


@app.task(name="gamehost.analyse_tree")
def analyse_tree(job_json: dict[str, Any], tree: int, max_iterations: int | None) -> dict:
    job = BotJob.from_json(job_json)
    return bots.search_tree(job.view(), job.seat, job.plan(max_iterations), job.seed, tree)


@app.task(name="gamehost.analyse_choice")
def analyse_choice(job_json: dict[str, Any]) -> int:
    job = BotJob.from_json(job_json)
    return bots.choose_action(job.view(), job.seat, job.level, job.seed)


def dispatch_analysis(job: BotJob, max_iterations: int | None) -> Any:
    """Start ``job``'s trees (or its search-free choice) on the workers; the result
    handle's ``get`` gives the trees' root statistics (or the action)."""
    trees = job.plan(max_iterations).trees
    if not trees:
        return analyse_choice.delay(job.to_json())
    return group(analyse_tree.s(job.to_json(), t, max_iterations) for t in range(trees))()


def commit_after_search(payload: dict[str, Any], action: int) -> str:
    """Commit a bot's chosen action (the next bot turn is scheduled with it)."""
    return _run(_commit_async(payload, action))


async def _commit_async(payload: dict[str, Any], action: int) -> str:
    job = BotJob.from_json(payload["job"])
    # The next bot turn is scheduled with the commit, leased to this worker, which
    # dispatches it at once (no sweep to wait for); if it dies first, or no worker
    # starts it, the lease runs out and a replica dispatches it.
    result, following = await bot_turns.commit_and_follow(
        _kept_store(payload), job, action, keep_bot_lease=NEXT_TURN_HOLD_SECONDS
    )
    if following is not None:
        dispatch(
            following.job(), payload["store_url"], payload["prefix"], payload.get("max_iterations")
        )
    return result.outcome.value
