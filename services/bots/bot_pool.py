"""The local search pool: a process pool shared fairly across games, rebuilt when
it breaks, whose children never outlive their replica.

Fairness: a bot turn's root-parallel trees wait in a queue per game, and free pool
slots take the next tree from the games in turn (round robin), so one game's big
budget delays another game's bot by at most one tree per slot. A per-server cap on
trees x iterations bounds how long a tree can hold its slot.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import threading
import time
from collections import OrderedDict, deque
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

import bots
from services import metrics
from services.bots.jobs import BotJob

log = logging.getLogger(__name__)

# A replica's default cap on one decision's search: trees x iterations (mcts-strong: 6,000).
DEFAULT_MAX_SEARCH_ITERATIONS = 100_000


def search_job_tree(
    job: BotJob, tree: int, max_iterations: int | None
) -> tuple[dict, float, float]:
    """Pool process: tree ``tree`` of the job's (capped) search, with the wall-clock time
    it started (the queue wait ends there) and the seconds it searched."""
    started, clock = time.time(), time.perf_counter()
    stats = bots.search_tree(job.view(), job.seat, job.plan(max_iterations), job.seed, tree)
    return stats, started, time.perf_counter() - clock


def _exit_with(replica_pid: int) -> None:
    """Pool child: exit as soon as the replica that started us is gone (even by kill -9)."""

    def watch() -> None:
        while True:
            try:
                os.kill(replica_pid, 0)
            except ProcessLookupError:
                os._exit(0)
            except PermissionError:
                pass
            time.sleep(0.5)

    threading.Thread(target=watch, daemon=True, name="replica-watch").start()


class PoolRestarted(Exception):
    """The pool broke under this turn (a child died) and was replaced: retry the turn."""


@dataclass
class _Tree:
    job: BotJob
    tree: int
    future: asyncio.Future
    queued_at: float  # wall clock, comparable with the pool child's start
    bot_turn: bool  # a bot turn's tree (timed in the bot-turn metrics), not a hint's


class FairPool:
    def __init__(self, workers: int | None = None, max_iterations: int | None = None) -> None:
        self.slots = workers or os.cpu_count() or 1
        self.max_iterations = max_iterations
        self._queues: OrderedDict[str, deque[_Tree]] = OrderedDict()
        self._busy = 0
        self._running: dict[str, int] = {}  # game id -> its trees running now
        self._pool = self._new_pool()
        self.restarts = 0
        self._closed = False

    def _new_pool(self) -> ProcessPoolExecutor:
        # forkserver: safe to start from a process that already runs threads (gRPC).
        context = multiprocessing.get_context("forkserver")
        return ProcessPoolExecutor(
            max_workers=self.slots,
            mp_context=context,
            initializer=_exit_with,
            initargs=(os.getpid(),),
        )

    def queued(self, game_id: str) -> bool:
        """True while none of the game's trees could start for want of a free slot."""
        return game_id in self._queues and not self._running.get(game_id)

    async def search(self, job: BotJob, trees: int, bot_turn: bool = True) -> list[dict]:
        """Run the job's ``trees`` root-parallel trees, fairly among games; their root
        statistics in tree order. A bot turn's trees observe the queue and search phases
        of ``gamehost_bot_turn_phase_seconds`` (a hint's do not)."""
        loop = asyncio.get_running_loop()
        game_id = job.game_id
        queue = self._queues.setdefault(game_id, deque())
        futures = []
        for tree in range(trees):
            item = _Tree(job, tree, loop.create_future(), time.time(), bot_turn)
            queue.append(item)
            futures.append(item.future)
        self._pump()
        try:
            return list(await asyncio.gather(*futures))
        finally:
            # Cancelled or failed: its trees that never started are not run.
            left = self._queues.get(game_id)
            if left is not None:
                for item in list(left):
                    if item.future in futures:
                        left.remove(item)
                if not left:
                    del self._queues[game_id]

    def _pump(self) -> None:
        while not self._closed and self._busy < self.slots and self._queues:
            game_id, queue = self._queues.popitem(last=False)
            item = queue.popleft()
            if queue:
                self._queues[game_id] = queue  # to the back: the next game goes first
            if item.future.done():
                continue
            self._busy += 1
            self._running[game_id] = self._running.get(game_id, 0) + 1
            pool = self._pool
            try:
                submitted = pool.submit(search_job_tree, item.job, item.tree, self.max_iterations)
                running = asyncio.wrap_future(submitted)
            except BrokenProcessPool:
                running = asyncio.get_running_loop().create_future()
                running.set_exception(BrokenProcessPool("the pool is broken"))
            running.add_done_callback(
                lambda done, g=game_id, item=item, pool=pool: self._done(done, g, item, pool)
            )

    def _done(
        self, done: asyncio.Future, game_id: str, item: _Tree, pool: ProcessPoolExecutor
    ) -> None:
        self._busy -= 1
        self._running[game_id] -= 1
        if not self._running[game_id]:
            del self._running[game_id]
        if not item.future.done():
            if done.cancelled():
                item.future.cancel()
            elif isinstance(done.exception(), BrokenProcessPool):
                self._replace(pool)
                item.future.set_exception(PoolRestarted())
            elif done.exception() is not None:
                item.future.set_exception(done.exception())
            else:
                stats, started, searched = done.result()
                if item.bot_turn:
                    game, level = item.job.game_type, item.job.level
                    waited = max(0.0, started - item.queued_at)
                    metrics.observe_bot_turn_phase("queue", game, level, waited)
                    metrics.observe_bot_turn_phase("search", game, level, searched)
                item.future.set_result(stats)
        self._pump()

    def _replace(self, broken: ProcessPoolExecutor) -> None:
        """Replace a broken pool once (every tree it ran fails with it)."""
        if broken is not self._pool or self._closed:
            return
        self.restarts += 1
        metrics.BOT_POOL_RESTARTS.inc()
        log.warning(
            "bot search pool broken (a child process died): replaced it, restart #%d; "
            "the turns it ran are retried",
            self.restarts,
        )
        broken.shutdown(wait=False, cancel_futures=True)
        self._pool = self._new_pool()

    def close(self) -> None:
        """Stop at once: queued trees are dropped and the children are killed, searching
        or not (a stopped turn stays scheduled in the store and is searched again by
        whichever replica runs next). Left running, a search would hold up the
        interpreter's exit, which joins the pool, for as long as it takes: minutes for
        a big custom level."""
        self._closed = True
        for queue in self._queues.values():
            for item in queue:
                item.future.cancel()
        self._queues.clear()
        if self._busy:
            log.info("shutdown: stopping %d bot search tree(s) in progress", self._busy)
        # A private attribute, but the only handle on the children before Python 3.14's
        # ProcessPoolExecutor.kill_workers.
        children = list((self._pool._processes or {}).values())
        self._pool.shutdown(wait=False, cancel_futures=True)
        for child in children:
            if child.is_alive():
                child.kill()
