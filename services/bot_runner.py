"""Plays bot seats, unattended: every replica sweeps the store's durable schedule
of due bot turns, claims some with a lease, and plays them; a running turn renews
its lease, so a turn whose replica (or worker) died is due again within seconds
and another replica takes it. ``kick`` only wakes the sweeper early (latency);
progress never depends on a client calling in.

Two executors: the embedded local process pool (the runner commits the result)
and Celery (``workers``: the worker commits, heartbeats the lease while it
searches, and the next turn goes back in the schedule with the commit).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable

import bots
from bots.levels import get_level
from games import get_game
from services import bot_pool, bot_turns, metrics
from services.bot_turns import BotJob, BotTurn
from services.kinds import BotStatus
from services.stores import CommitOutcome, GameStore

log = logging.getLogger(__name__)

# What GetState reports about a bot's turn (Snapshot.bot_status "<version>:<status>").
# Set by a Celery worker when it starts a turn's search (it heartbeats from then on).
STARTED = "started"


def search_tree(job: BotJob, tree: int, cap: int | None = None) -> dict:
    """One root-parallel search tree for ``job`` (runs in a pool process or worker)."""
    return bot_pool.search_tree(job.game_type, job.state, job.seat, job.level, job.seed, tree, cap)


def decide_without_search(job: BotJob) -> int:
    state = get_game(job.game_type).state_class.from_bytes(job.state)
    return bots.choose_action(state, job.seat, job.level, job.seed)


def decide_inline(turn: BotTurn) -> int:
    """Levels without search trees are cheap: decided in-process on the bot's view."""
    return bots.choose_action(turn.view, turn.seat, turn.level, turn.seed)


def trees_of(level: str, cap: int | None = None) -> int:
    """Root-parallel trees a level searches (0: it decides without search)."""
    return bot_pool.capped_level(level, cap).trees if get_level(level).trees else 0


class BotExecutor:
    """Where bot decisions are computed: implement ``decide`` (the runner commits the
    returned action) or set ``commits_itself`` and implement ``dispatch``."""

    # True when the executor commits the move itself (Celery) instead of returning it.
    commits_itself = False

    async def decide(self, turn: BotTurn, waiting: Callable[[bool], None]) -> int:
        """The bot's action; calls ``waiting(True)`` if it must queue for capacity and
        ``waiting(False)`` when its search starts after all."""
        raise NotImplementedError

    async def dispatch(self, job: BotJob) -> None:
        raise NotImplementedError

    async def close(self) -> None:
        return None


class LocalPoolExecutor(BotExecutor):
    """The embedded default: a level's root-parallel trees run in a local process pool,
    shared fairly across games (``bot_pool``)."""

    def __init__(self, workers: int | None = None, max_iterations: int | None = None) -> None:
        self.pool = bot_pool.FairPool(workers, max_iterations)

    async def decide(self, turn: BotTurn, waiting: Callable[[bool], None]) -> int:
        trees = self.pool.trees(turn.level) if get_level(turn.level).trees else 0
        if not trees:
            return decide_inline(turn)
        job = turn.job()
        args = lambda tree: (job.game_type, job.state, job.seat, job.level, job.seed, tree)  # noqa: E731
        search = asyncio.ensure_future(self.pool.search(job.game_id, args, trees))
        await asyncio.sleep(0)  # let the pool start what it can
        if self.pool.queued(job.game_id):
            waiting(True)
            while self.pool.queued(job.game_id) and not search.done():
                await asyncio.wait({search}, timeout=0.2)
            waiting(False)
        results = await search
        return bots.best_action(bots.merge_root_stats(results))

    async def close(self) -> None:
        self.pool.close()


class _Failures:
    """Backoff of failing turns, logged once per doubling of the count, no tracebacks."""

    FIRST, CAP = 0.5, 60.0

    def __init__(self) -> None:
        self._count: dict[str, int] = {}

    def count(self, game_id: str) -> int:
        return self._count.get(game_id, 0)

    def failed(self, game_id: str, exc: BaseException, quiet: bool = False) -> float:
        count = self._count[game_id] = self._count.get(game_id, 0) + 1
        metrics.BOT_TURN_FAILURES.inc()
        if not quiet and count & (count - 1) == 0:  # 1, 2, 4, 8, ...
            log.warning(
                "bot turn of game %s failed (%d time%s so far; retrying with backoff): %s: %s",
                game_id,
                count,
                "" if count == 1 else "s",
                type(exc).__name__,
                str(exc)[:200],
            )
        return min(self.CAP, self.FIRST * 2 ** (count - 1))

    def succeeded(self, game_id: str) -> None:
        self._count.pop(game_id, None)


class BotRunner:
    LEASE = 1.5  # a claimed turn is due again this long after its last heartbeat
    HEARTBEAT = 0.3
    SWEEP = 0.25  # how often every replica looks for due turns
    STORE_RETRY = 0.5  # the sweeper's pause after a store fault (Redis down or loading)
    CELERY_WAITING_AFTER = 2.0  # a dispatched turn no worker started: waiting for capacity
    # A dispatched turn no worker has started is dispatched again after this (a worker may
    # have died between taking it and marking it started; a duplicate is harmless).
    CELERY_REDISPATCH_AFTER = 15.0

    def __init__(self, store: GameStore, executor: BotExecutor, max_games: int = 64) -> None:
        self._store = store
        self._executor = executor
        self._max_games = max_games
        self._games: dict[str, asyncio.Task] = {}
        self._wake = asyncio.Event()
        self._sweeper: asyncio.Task | None = None
        self._failures = _Failures()
        self._store_down_since: float | None = None
        self._again: set[str] = set()

    def start(self) -> None:
        """Start the sweeper (on the running loop); ``kick`` starts it too."""
        if self._sweeper is None or self._sweeper.done():
            self._sweeper = asyncio.get_running_loop().create_task(self._sweep())

    def kick(self, game_id: str) -> None:
        """A bot may be due (the commit scheduled it): look now rather than at the next sweep."""
        self.start()
        self._wake.set()

    async def _sweep(self) -> None:
        while True:
            try:
                await self._claim_and_start()
                if self._store_down_since is not None:
                    log.warning(
                        "the store answers again after %.1f s: bot turns resume",
                        time.monotonic() - self._store_down_since,
                    )
                    self._store_down_since = None
                timeout = self.SWEEP
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Redis down or loading: back off briefly, never stop
                if self._store_down_since is None:
                    self._store_down_since = time.monotonic()
                    log.warning(
                        "bot sweeper cannot reach the store (%s: %s); retrying",
                        type(exc).__name__,
                        str(exc)[:200],
                    )
                timeout = self.STORE_RETRY
            self._wake.clear()
            # asyncio.wait, not wait_for: on Python 3.11 wait_for can swallow a
            # cancellation that races its timeout, and the sweeper would never stop.
            woken = asyncio.ensure_future(self._wake.wait())
            try:
                await asyncio.wait({woken}, timeout=timeout)
            finally:
                woken.cancel()

    async def _claim_and_start(self) -> None:
        for game_id, task in list(self._games.items()):
            if task.done():
                del self._games[game_id]
        room = self._max_games - len(self._games)
        if room <= 0:
            return
        for game_id in await self._store.claim_bot_turns(room, self.LEASE):
            if game_id in self._games:
                self._again.add(game_id)  # claimed while its task winds down: look again
            else:
                self._games[game_id] = asyncio.get_running_loop().create_task(self._play(game_id))

    async def _play(self, game_id: str) -> None:
        """Play the game's bot turns while they keep coming, renewing the lease."""
        current: dict[str, int] = {}
        heartbeat = asyncio.get_running_loop().create_task(self._heartbeat(game_id, current))
        try:
            await self._play_turns(game_id, current)
            while game_id in self._again:
                self._again.discard(game_id)
                await self._play_turns(game_id, current)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a store fault: the lease runs out and a sweep retries
            log.warning(
                "bot turn of game %s interrupted: %s: %s",
                game_id,
                type(exc).__name__,
                str(exc)[:200],
            )
        finally:
            heartbeat.cancel()

    async def _play_turns(self, game_id: str, current: dict[str, int]) -> None:
        while True:
            snapshot = await self._store.load(game_id)
            if snapshot is None:
                await self._store.drop_bot_turn(game_id)
                return
            turn = bot_turns.prepare(snapshot)
            if turn is None:
                return  # the commit that got here took the game out of the schedule
            current["version"] = snapshot.version
            if self._executor.commits_itself:
                await self._dispatch(turn, snapshot.bot_status)
                return
            if not await self._play_turn(turn):
                return

    async def _heartbeat(self, game_id: str, current: dict[str, int]) -> None:
        while True:
            await asyncio.sleep(self.HEARTBEAT)
            if "version" in current:
                # The store is down: the sweeper reports it.
                with contextlib.suppress(Exception):
                    await self._store.renew_bot_turn(game_id, current["version"], self.LEASE)

    async def _play_turn(self, turn: BotTurn) -> bool:
        """Decide and commit one turn; False when it failed and was put off (backoff)."""
        game_id, version = turn.snapshot.game_id, turn.snapshot.version
        status_writes: list[asyncio.Task] = []

        def waiting(on: bool) -> None:
            status = BotStatus.WAITING if on else BotStatus.THINKING
            status_writes.append(
                asyncio.get_running_loop().create_task(
                    self._store.set_bot_status(game_id, version, status)
                )
            )

        started = time.perf_counter()
        try:
            action = await self._executor.decide(turn, waiting)
        except bot_pool.PoolRestarted as exc:
            if not self._failures.count(game_id):
                # The pool was replaced (and said so once): retry at once, quietly.
                self._failures.failed(game_id, exc, quiet=True)
                return True
            delay = self._failures.failed(game_id, exc)  # it breaks again: back off
            await self._store.renew_bot_turn(game_id, version, delay)
            return False
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            delay = self._failures.failed(game_id, exc)
            await self._store.renew_bot_turn(game_id, version, delay)
            return False
        finally:
            if status_writes:
                await asyncio.gather(*status_writes, return_exceptions=True)
        self._failures.succeeded(game_id)
        metrics.BOT_SECONDS.labels(turn.level).observe(time.perf_counter() - started)
        result = await bot_turns.commit_turn(self._store, turn, action, keep_bot_lease=self.LEASE)
        if result.outcome is CommitOutcome.APPLIED:
            metrics.BOT_DECISIONS.labels(turn.snapshot.meta["game_type"], turn.level).inc()
        # Stale or duplicate just means the game moved on: look again.
        return True

    async def _dispatch(self, turn: BotTurn, bot_status: str) -> None:
        """Celery: hand the turn to the workers and hold its lease until one starts it
        (from then on the worker heartbeats it). A turn claimed again after its worker
        fell silent is dispatched again: a duplicate commit changes nothing."""
        game_id, version = turn.snapshot.game_id, turn.snapshot.version
        await self._executor.dispatch(turn.job())
        since = time.monotonic()
        marked = False
        while True:
            await asyncio.sleep(self.HEARTBEAT / 2)
            snapshot = await self._store.load(game_id)
            if snapshot is None or snapshot.version != version:
                return
            if snapshot.bot_status == f"{version}:{STARTED}":
                return
            if time.monotonic() - since > self.CELERY_REDISPATCH_AFTER:
                return  # taken by a worker that died before it said so? Let the lease lapse.
            await self._store.renew_bot_turn(game_id, version, self.LEASE)
            if not marked and time.monotonic() - since > self.CELERY_WAITING_AFTER:
                await self._store.set_bot_status(game_id, version, BotStatus.WAITING)
                marked = True

    async def idle(self) -> None:
        """Wait until no bot turn is being played here (tests, shutdown)."""
        while any(not task.done() for task in self._games.values()):
            await asyncio.gather(*list(self._games.values()), return_exceptions=True)

    async def close(self) -> None:
        tasks = list(self._games.values())
        if self._sweeper is not None:
            tasks.append(self._sweeper)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._games.clear()
        await self._executor.close()
