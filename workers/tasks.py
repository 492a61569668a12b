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
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import tenacity
from celery import group
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

import bots
from gamehost import retry
from services import times
from services.bots import bot_turns
from services.bots.jobs import BotJob
from services.errors import Unavailable
from services.kinds import BotStatus
from services.stores.leases import turn_lease
from services.stores.redis_store import RedisStore
from workers import task_metrics
from workers.app import MAX_SEARCH_SECONDS, app
from workers.turn_task import TurnTask

log = logging.getLogger(__name__)

# A running task renews its turn's lease this often, for this long: a dead worker's
# turn is due again within the lease (and a replica's next sweep).
WORKER_HEARTBEAT_SECONDS = 2.0
WORKER_LEASE_SECONDS = 10.0
# A next turn this worker dispatched itself is left to the workers this long: as long as
# a replica holds a turn it dispatched and no worker started (BotRunner).
NEXT_TURN_HOLD_SECONDS = times.CELERY_TURN_REDISPATCH_SECONDS
# A turn's gathered trees are forgotten this long after the last one came (a turn some
# of whose trees never finish: the game moved on, or a worker died and its task was
# never redelivered).
TREES_KEPT_SECONDS = 10 * MAX_SEARCH_SECONDS


def dispatch(job: BotJob, store_url: str, prefix: str, max_iterations: int | None = None) -> None:
    """Start ``job`` on the workers (the replica holds its lease until one starts it)."""
    payload = TurnTask(job, store_url, prefix, max_iterations).to_dict()
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


STORE_RETRY_PAUSES = times.WORKER_STORE_RETRY_PAUSES_SECONDS


def _run_retrying(call: Callable[[], Awaitable[Any]]) -> Any:
    """``_run(call())``, tried again after a store fault. Only for calls safe to
    repeat: reads, and writes under a request key (a commit applies once)."""
    retrying = tenacity.Retrying(
        stop=tenacity.stop_after_attempt(len(STORE_RETRY_PAUSES) + 1),
        wait=retry.pauses(*STORE_RETRY_PAUSES),
        retry=tenacity.retry_if_exception_type(
            (RedisConnectionError, RedisTimeoutError, Unavailable)
        ),
        before_sleep=_log_store_fault,
        sleep=time.sleep,
        reraise=True,
    )
    return retrying(lambda: _run(call()))


def _log_store_fault(state: tenacity.RetryCallState) -> None:
    exc = state.outcome.exception() if state.outcome else None
    log.info("store fault in a bot task (%s); trying again", type(exc).__name__)


def _kept_store(task: TurnTask) -> RedisStore:
    """The game store the dispatching replica named, kept for this process's later
    tasks (only ever used on the task loop)."""
    key = (task.store_url, task.prefix)
    store = _stores.get(key)
    if store is None:
        store = _stores[key] = RedisStore.from_url(*key)
    return store


class _LeaseKeeper:
    """One thread per worker process marks the bot turns its tasks run as started and
    renews their leases every ``WORKER_HEARTBEAT_SECONDS`` (a thread, an event loop and
    a Redis connection per task cost each turn milliseconds to start and to join)."""

    def __init__(self) -> None:
        self._held: dict[int, TurnTask] = {}  # hold id -> task
        self._new: list[TurnTask] = []  # held, not yet marked started
        self._ids = iter(range(1, 1 << 62))
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._owner: int | None = None  # the process whose thread runs (prefork children)
        self._thread: threading.Thread | None = None

    def hold(self, task: TurnTask) -> int:
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
            self._held[hold] = task
            self._new.append(task)
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
            for task in held:
                # The store is down: the lease runs out and a replica dispatches again.
                with contextlib.suppress(Exception):
                    key = (task.store_url, task.prefix)
                    store = stores.get(key) or stores.setdefault(key, RedisStore.from_url(*key))
                    job = task.job
                    if any(task is fresh for fresh in new):
                        await store.set_bot_status(job.game_id, job.version, BotStatus.STARTED)
                    await store.renew(turn_lease(job.game_id, job.version), WORKER_LEASE_SECONDS)
            await asyncio.to_thread(self._wake.wait, WORKER_HEARTBEAT_SECONDS)


_leases = _LeaseKeeper()


@contextlib.contextmanager
def heartbeat(task: TurnTask) -> Iterator[None]:
    """Keep the turn's lease while the body runs (this process's lease keeper)."""
    hold = _leases.hold(task)
    try:
        yield
    finally:
        _leases.release(hold)


def _moved_on(task: TurnTask) -> bool:
    """True when the game is past the job's version (a late duplicate: skip the search)."""

    async def check() -> bool:
        snapshot = await _kept_store(task).load(task.job.game_id)
        return snapshot is None or snapshot.version != task.job.version

    return _run_retrying(check)


@app.task(name="gamehost.search", ignore_result=True)
def search(payload: dict[str, Any], tree: int) -> str:
    """One tree of a turn; the task that completes the turn's trees commits it."""
    task = TurnTask.from_dict(payload)
    if _moved_on(task):
        return "stale"  # the game moved on: the other trees' commit would be stale too
    job = task.job
    level = job.plan(task.max_iterations)
    with heartbeat(task):
        started = time.perf_counter()
        stats = bots.search_tree(job.view(), job.seat, level, job.seed, tree)
        searched = time.perf_counter()  # from here on, overhead: the heartbeat's end too
    task_metrics.observe("search", job, searched - started)
    gathered = _run_retrying(
        lambda: _kept_store(task).gather_tree(
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
    outcome = commit_after_search(task, action)
    task_metrics.observe("commit", job, time.perf_counter() - searched, outcome)
    return outcome


@app.task(name="gamehost.decide_and_commit", ignore_result=True)
def decide_and_commit(payload: dict[str, Any]) -> str:
    """A level that decides without search: choose, commit, dispatch the next turn."""
    task = TurnTask.from_dict(payload)
    job = task.job
    started = time.perf_counter()
    with heartbeat(task):
        action = bots.choose_action(job.view(), job.seat, job.level, job.seed)
    outcome = commit_after_search(task, action)
    task_metrics.observe("commit", job, time.perf_counter() - started, outcome)
    return outcome


# ------------------------------------------------------------------ analysis (hints)
# A hint's job runs the same search as a bot turn but commits nothing, holds no
# bot-turn lease and is never skipped as stale: the replica that asked waits for it.


@app.task(name="gamehost.analyse_tree")
def analyse_tree(job_json: dict[str, Any], tree: int, max_iterations: int | None) -> dict:
    job = BotJob.from_dict(job_json)
    return bots.search_tree(job.view(), job.seat, job.plan(max_iterations), job.seed, tree)


@app.task(name="gamehost.analyse_choice")
def analyse_choice(job_json: dict[str, Any]) -> int:
    job = BotJob.from_dict(job_json)
    return bots.choose_action(job.view(), job.seat, job.level, job.seed)


def dispatch_analysis(job: BotJob, max_iterations: int | None) -> Any:
    """Start ``job``'s trees (or its search-free choice) on the workers; the result
    handle's ``get`` gives the trees' root statistics (or the action)."""
    trees = job.plan(max_iterations).trees
    if not trees:
        return analyse_choice.delay(job.to_dict())
    return group(analyse_tree.s(job.to_dict(), t, max_iterations) for t in range(trees))()


def commit_after_search(task: TurnTask, action: int) -> str:
    """Commit a bot's chosen action (the next bot turn is scheduled with it)."""
    return _run_retrying(lambda: _commit_async(task, action))


async def _commit_async(task: TurnTask, action: int) -> str:
    job = task.job
    # The next bot turn is scheduled with the commit, leased to this worker, which
    # dispatches it at once (no sweep to wait for); if it dies first, or no worker
    # starts it, the lease runs out and a replica dispatches it.
    result, following = await bot_turns.commit_and_follow(
        _kept_store(task), job, action, keep_bot_lease=NEXT_TURN_HOLD_SECONDS
    )
    if following is not None:
        dispatch(following.job(), task.store_url, task.prefix, task.max_iterations)
    return result.outcome.value
