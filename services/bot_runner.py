"""Plays bot seats: whenever a game may have reached a bot's turn, the runner
prepares the bot's job (see ``bot_turns``) and hands it to an executor.

Two executors: the embedded local process pool (the runner commits the result)
and Celery (``workers``: the worker commits, then starts the next bot turn).
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import time
from collections import OrderedDict
from concurrent.futures import ProcessPoolExecutor

import bots
from bots.levels import get_level
from games import get_game
from services import bot_turns, metrics
from services.bot_turns import BotJob, BotTurn
from services.stores import CommitOutcome, GameStore

log = logging.getLogger(__name__)


def search_tree(job: BotJob, tree: int) -> dict:
    """One root-parallel search tree for ``job`` (runs in a pool process)."""
    return bots.search_tree(job.game_type, job.state, job.seat, job.level, job.seed, tree)


def decide_without_search(job: BotJob) -> int:
    state = get_game(job.game_type).state_class.from_bytes(job.state)
    return bots.choose_action(state, job.seat, job.level, job.seed)


def decide_inline(turn: BotTurn) -> int:
    """Levels without search trees are cheap: decided in-process on the bot's view."""
    return bots.choose_action(turn.view, turn.seat, turn.level, turn.seed)


def trees_of(level: str) -> int:
    """Root-parallel trees a level searches (0: it decides without search)."""
    return get_level(level).trees


class BotExecutor:
    """Where bot decisions are computed: implement ``decide`` (the runner commits the
    returned action) or set ``commits_itself`` and implement ``dispatch``."""

    # True when the executor commits the move itself (Celery) instead of returning it.
    commits_itself = False

    async def decide(self, turn: BotTurn) -> int:
        raise NotImplementedError

    async def dispatch(self, job: BotJob) -> None:
        raise NotImplementedError

    async def close(self) -> None:
        return None


class LocalPoolExecutor(BotExecutor):
    """The embedded default: a level's root-parallel trees run in a local process pool."""

    def __init__(self, workers: int | None = None) -> None:
        # forkserver: safe to start from a process that already runs threads (gRPC).
        context = multiprocessing.get_context("forkserver")
        self._pool = ProcessPoolExecutor(max_workers=workers or os.cpu_count(), mp_context=context)

    async def decide(self, turn: BotTurn) -> int:
        trees = trees_of(turn.level)
        if not trees:
            return decide_inline(turn)
        loop = asyncio.get_running_loop()
        job = turn.job()
        results = await asyncio.gather(
            *(loop.run_in_executor(self._pool, search_tree, job, t) for t in range(trees))
        )
        return bots.best_action(bots.merge_root_stats(list(results)))

    async def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


class BotRunner:
    # How long this replica leaves a dispatched turn alone before looking at it again.
    REDISPATCH_SECONDS = 60.0

    def __init__(self, store: GameStore, executor: BotExecutor) -> None:
        self._store = store
        self._executor = executor
        self._tasks: dict[str, asyncio.Task] = {}
        self._dirty: set[str] = set()
        self._dispatched: OrderedDict[tuple[str, int], float] = OrderedDict()

    def kick(self, game_id: str) -> None:
        """The game changed: make sure its bots (if any are to move) get to play."""
        self._dirty.add(game_id)
        task = self._tasks.get(game_id)
        if task is None or task.done():
            self._tasks[game_id] = asyncio.get_running_loop().create_task(self._run(game_id))

    async def _run(self, game_id: str) -> None:
        try:
            while game_id in self._dirty:
                self._dirty.discard(game_id)
                while await self._play_one(game_id):
                    pass
        except Exception:
            log.exception("bot runner for game %s stopped", game_id)
        finally:
            if self._tasks.get(game_id) is asyncio.current_task():
                del self._tasks[game_id]

    async def _play_one(self, game_id: str) -> bool:
        """Handle one bot turn if a bot is to move; False when there is nothing more to do."""
        snapshot = await self._store.load(game_id)
        turn = bot_turns.prepare(snapshot) if snapshot is not None else None
        if turn is None:
            return False
        if self._executor.commits_itself:
            self._dispatch_once(turn.job())
            return False
        started = time.perf_counter()
        action = await self._executor.decide(turn)
        metrics.BOT_SECONDS.labels(turn.level).observe(time.perf_counter() - started)
        result = await bot_turns.commit_turn(self._store, turn, action)
        if result.outcome is CommitOutcome.APPLIED:
            metrics.BOT_DECISIONS.labels(snapshot.meta["game_type"], turn.level).inc()
        # Stale or duplicate just means the game moved on: look again.
        return True

    def _dispatch_once(self, job: BotJob) -> None:
        key = (job.game_id, job.version)
        now = time.monotonic()
        sent = self._dispatched.get(key)
        if sent is not None and now - sent < self.REDISPATCH_SECONDS:
            return
        self._dispatched[key] = now
        while len(self._dispatched) > 10_000:
            self._dispatched.popitem(last=False)
        asyncio.get_running_loop().create_task(self._executor.dispatch(job))

    async def idle(self) -> None:
        """Wait until no bot task is running (tests, shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks.values()), return_exceptions=True)

    async def close(self) -> None:
        for task in self._tasks.values():
            task.cancel()
        await asyncio.gather(*self._tasks.values(), return_exceptions=True)
        self._tasks.clear()
        await self._executor.close()
