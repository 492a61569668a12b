"""Plays bot seats, unattended: every replica sweeps the store's durable schedule
of due bot turns (and of human seats' turn clocks: a seat out of time gets one
fallback move, ``services.turns.clock``), claims some with a lease, and plays them; a running turn renews
its lease, so a turn whose replica (or worker) died is due again within seconds
and another replica takes it. ``kick`` only wakes the sweeper early (latency);
progress never depends on a client calling in.

Every turn goes through one executor protocol, ``BotExecutor.decide``: the embedded
local process pool returns the action, which the runner commits (and plays the
next bot turn); the Celery executor hands the turn to workers, which commit it
themselves and dispatch the next one, and returns None. ``BotExecutor.analyse``
decides a job the same way and commits nothing (move hints, ``services.bots.hints``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Protocol

import bots
from gamehost import retry
from services import metrics, times
from services.bots import bot_pool, bot_turns
from services.bots.bot_turns import BotTurn
from services.bots.jobs import BotJob
from services.errors import Unavailable, is_infrastructure_error
from services.kinds import BotStatus, GameStatus
from services.stores import CommitOutcome, GameLog, Leases, TurnSchedule
from services.stores.leases import BOT_TURNS, turn_lease
from services.sweeps import Wake

log = logging.getLogger(__name__)


class BotTurnStore(GameLog, TurnSchedule, Leases, Protocol):
    """What the bot runner uses: the games it moves, the schedule of their turns and
    its leases on them."""


class TurnLease:
    """The runner's hold on one claimed bot turn, lent to the executor deciding it:
    it may hold the turn longer (``renew``), say what the bot is doing
    (``set_status``) and look at the game (``load``)."""

    def __init__(self, store: BotTurnStore, game_id: str, version: int, seconds: float) -> None:
        self.store = store
        self.game_id = game_id
        self.version = version
        self.seconds = seconds
        self._status_writes: list[asyncio.Task] = []

    async def renew(self) -> None:
        """The turn stays claimed ``seconds`` from now."""
        await self.store.renew(turn_lease(self.game_id, self.version), self.seconds)

    def set_status(self, status: BotStatus) -> None:
        """Record what the bot is doing (GetState shows it); written in the background,
        so a slow store never holds up the search."""
        write = self.store.set_bot_status(self.game_id, self.version, status)
        self._status_writes.append(asyncio.get_running_loop().create_task(write))

    async def settle(self) -> None:
        """Wait for the status writes (they are advisory: a failed one is dropped)."""
        if self._status_writes:
            await asyncio.gather(*self._status_writes, return_exceptions=True)
            self._status_writes.clear()


@dataclass(frozen=True)
class Analysis:
    """A decision made but not committed (a hint): the action the level plays, and the
    merged root statistics of its ``trees`` (None and 0 for a level that does not search)."""

    action: int
    stats: dict[str, Any] | None = None
    trees: int = 0


class BotExecutor(ABC):
    """Where bot decisions are computed."""

    @abstractmethod
    async def decide(self, turn: BotTurn, lease: TurnLease) -> int | None:
        """The bot's action, for the runner to commit; or None when the executor handed
        the turn to others who commit it and schedule what follows (Celery workers).
        Raising puts the turn off with backoff; ``bot_pool.PoolRestarted`` retries it
        at once the first time."""

    async def analyse(self, job: BotJob) -> Analysis:
        """Decide ``job`` exactly as its bot turn would be decided (the same trees, the
        same cap), on the same capacity, and commit nothing (hints)."""
        raise Unavailable("this server's bot executor does not analyse positions (hints)")

    def store_recovered(self) -> None:
        """The store answers again after a fault (maybe a failover): turns handed to
        others and not yet taken up may have been lost with it. Nothing by default."""
        return None

    async def close(self) -> None:
        return None


class LocalPoolExecutor(BotExecutor):
    """The embedded default: a level's root-parallel trees run in a local process pool,
    shared fairly across games (``bot_pool``); levels without trees are cheap and
    decided in this process, on the bot's view."""

    def __init__(self, workers: int | None = None, max_iterations: int | None = None) -> None:
        self.pool = bot_pool.FairPool(workers, max_iterations)

    async def decide(self, turn: BotTurn, lease: TurnLease) -> int:
        job = turn.job()
        trees = job.plan(self.pool.max_iterations).trees
        if not trees:
            return bots.choose_action(turn.view, turn.seat, turn.level, turn.seed)
        search = asyncio.ensure_future(self.pool.search(job, trees))
        try:
            await asyncio.sleep(0)  # let the pool start what it can
            if self.pool.queued(job.game_id):
                lease.set_status(BotStatus.WAITING)
                while self.pool.queued(job.game_id) and not search.done():
                    await asyncio.wait({search}, timeout=times.BOT_SEARCH_QUEUED_LOOK_SECONDS)
                lease.set_status(BotStatus.THINKING)
            results = await search
        finally:
            search.cancel()  # cancelled here: its trees that never started are not run
        return bots.best_action(bots.merge_root_stats(results))

    async def analyse(self, job: BotJob) -> Analysis:
        trees = job.plan(self.pool.max_iterations).trees
        if not trees:
            return Analysis(bots.choose_action(job.view(), job.seat, job.level, job.seed), None)
        # Queued with the game's own bot turns: a game's hints share its fair slot.
        try:
            results = await self.pool.search(job, trees, bot_turn=False)
        except bot_pool.PoolRestarted:
            try:  # the pool was replaced under this search (a child died): once more
                results = await self.pool.search(job, trees, bot_turn=False)
            except bot_pool.PoolRestarted:
                raise Unavailable(
                    "the search pool keeps restarting (its processes die); retry shortly"
                ) from None
        stats = bots.merge_root_stats(results)
        return Analysis(bots.best_action(stats), stats, trees)

    async def close(self) -> None:
        self.pool.close()


class _Failures:
    """Backoff of failing turns, logged once per doubling of the count, no tracebacks."""

    FIRST = times.BOT_FAILURE_FIRST_BACKOFF_SECONDS
    CAP = times.BOT_FAILURE_MAX_BACKOFF_SECONDS
    BACKOFF = retry.doubling(FIRST, CAP)

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
        return retry.nth_wait(self.BACKOFF, count)

    def succeeded(self, game_id: str) -> None:
        self._count.pop(game_id, None)


class _TurnDropped(Exception):
    """The turn being decided was dropped: no decision at its version can apply."""


class BotRunner:
    LEASE = 1.5  # a claimed turn is due again this long after its last heartbeat
    HEARTBEAT = 0.3
    SWEEP = times.BOT_TURN_SWEEP_SECONDS
    STORE_RETRY = times.BOT_TURN_STORE_RETRY_SECONDS  # Redis down or loading

    def __init__(self, store: BotTurnStore, executor: BotExecutor, max_games: int = 64) -> None:
        self._store = store
        self._executor = executor
        self._max_games = max_games
        self._games: dict[str, asyncio.Task] = {}
        self._wake = Wake()
        self._sweeper: asyncio.Task | None = None
        self._failures = _Failures()
        self._store_down_since: float | None = None
        self._again: set[str] = set()
        self._closing = False
        # game id -> (version, task) of the decision being made for it (drop_turn)
        self._deciding: dict[str, tuple[int, asyncio.Future]] = {}

    def start(self) -> None:
        """Start the sweeper (on the running loop); ``kick`` starts it too."""
        if not self._closing and (self._sweeper is None or self._sweeper.done()):
            self._sweeper = asyncio.get_running_loop().create_task(self._sweep())

    def kick(self, game_id: str) -> None:
        """A bot may be due (the commit scheduled it): look now rather than at the next sweep."""
        self.start()
        self._wake.set()

    async def _sweep(self) -> None:
        # ``close`` sets the flag as well as cancelling: on Python 3.11 a cancellation that
        # races a store call's own timeout can be swallowed, and the sweep must stop anyway.
        while not self._closing:
            try:
                await self._claim_and_start()
                if self._store_down_since is not None:
                    # A turn handed to a worker, or searched here, when the store went
                    # away may be lost with it (a failover: the broker's queue too):
                    # every held turn is due again now, not when its lease runs out.
                    lapsed = await self._store.lapse(BOT_TURNS)
                    self._executor.store_recovered()
                    log.warning(
                        "the store answers again after %.1f s: bot turns resume (%d "
                        "held turns due again)",
                        time.monotonic() - self._store_down_since,
                        lapsed,
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
            await self._wake.clear_and_wait(timeout)

    async def _claim_and_start(self) -> None:
        for game_id, task in list(self._games.items()):
            if task.done():
                del self._games[game_id]
        room = self._max_games - len(self._games)
        if room <= 0:
            return
        for claimed in await self._store.claim(BOT_TURNS, room, self.LEASE):
            game_id = claimed.job  # its token from now on: the version it loads
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
                wait = bot_turns.clock_wait(snapshot)
                if wait is not None:
                    # A human seat's clock, looked at early: due again when it runs out.
                    await self._store.renew(turn_lease(game_id, snapshot.version), max(wait, 0.0))
                else:
                    # The commit that got here took the game out of the schedule (on a
                    # Redis Cluster, whose schedule is on a slot of its own, this does).
                    await self._store.release_bot_turn(game_id)
                return
            current["version"] = snapshot.version
            if not await self._play_turn(turn):
                return

    async def _heartbeat(self, game_id: str, current: dict[str, int]) -> None:
        while True:
            await asyncio.sleep(self.HEARTBEAT)
            if "version" in current:
                version = current["version"]
                # The store is down: the sweeper reports it.
                with contextlib.suppress(Exception):
                    renewed = await self._store.renew(turn_lease(game_id, version), self.LEASE)
                    if not renewed and await self._moved_on(game_id, version):
                        self.drop_turn(game_id, version)

    async def _moved_on(self, game_id: str, version: int) -> bool:
        """True when no decision at ``version`` can apply: the game is gone, over or past
        it. A lease that could not be renewed alone is not that: a Redis restarted from
        its AOF may have lost the schedule's last second, and the turn must still be
        played (dropping it there would drop it again at every try)."""
        snapshot = await self._store.load(game_id)
        return (
            snapshot is None
            or snapshot.version != version
            or snapshot.status == GameStatus.FINISHED
        )

    def drop_turn(self, game_id: str, version: int | None = None) -> None:
        """Stop deciding the game's turn (at ``version``; None: whichever) when it went
        moot: the game ended (an abandoned table) or moved on, so no decision at that
        version can be applied. A local search still queued never runs; the turn's
        task looks at the game again and finds nothing due."""
        deciding = self._deciding.get(game_id)
        if deciding is not None and version in (None, deciding[0]):
            deciding[1].cancel()

    async def _play_turn(self, turn: BotTurn) -> bool:
        """Decide and commit one turn; True when the next turn is this runner's to play,
        False when it was handed off or failed and was put off (backoff)."""
        game_id, version = turn.snapshot.game_id, turn.snapshot.version
        lease = TurnLease(self._store, game_id, version, self.LEASE)
        started = time.perf_counter()
        try:
            action = await self._decide(turn, lease)
        except _TurnDropped:
            return True  # dropped (the game ended or moved on): look at it again
        except bot_pool.PoolRestarted as exc:
            if not self._failures.count(game_id):
                # The pool was replaced (and said so once): retry at once, quietly.
                self._failures.failed(game_id, exc, quiet=True)
                return True
            delay = self._failures.failed(game_id, exc)  # it breaks again: back off
            await self._store.renew(turn_lease(game_id, version), delay)
            return False
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if is_infrastructure_error(exc):
                # The store's fault, not the turn's: no backoff to outlive the outage;
                # the lease runs out and a sweep retries it (``_play``).
                raise
            delay = self._failures.failed(game_id, exc)
            await self._store.renew(turn_lease(game_id, version), delay)
            return False
        finally:
            await lease.settle()
        self._failures.succeeded(game_id)
        if action is None:
            return False  # handed off: whoever commits it schedules the next turn
        decided = time.perf_counter()
        metrics.BOT_SECONDS.labels(turn.level).observe(decided - started)
        result = await bot_turns.commit_turn(self._store, turn, action, keep_bot_lease=self.LEASE)
        metrics.observe_bot_turn_phase(
            "commit",
            turn.snapshot.info.game_type,
            turn.level,
            time.perf_counter() - decided,
            applied=result.outcome is CommitOutcome.APPLIED,
        )
        # Stale or duplicate just means the game moved on: look again.
        return True

    async def _decide(self, turn: BotTurn, lease: TurnLease) -> int | None:
        """``executor.decide`` as a task of its own, which ``drop_turn`` may cancel
        (``_TurnDropped`` then); cancelling this call cancels the decision too."""
        game_id, version = turn.snapshot.game_id, turn.snapshot.version
        decision = asyncio.ensure_future(self._executor.decide(turn, lease))
        self._deciding[game_id] = (version, decision)
        try:
            await asyncio.wait({decision})
        finally:
            if self._deciding.get(game_id, (None, None))[1] is decision:
                del self._deciding[game_id]
            if not decision.done():  # this call was cancelled: the decision goes with it
                decision.cancel()
                await asyncio.wait({decision})
        if decision.cancelled():
            raise _TurnDropped
        return decision.result()

    async def idle(self) -> None:
        """Wait until no bot turn is being played here (tests, shutdown)."""
        while any(not task.done() for task in self._games.values()):
            await asyncio.gather(*list(self._games.values()), return_exceptions=True)

    async def close(self) -> None:
        self._closing = True
        await cancel_all([*self._games.values(), self._sweeper])
        self._games.clear()
        await self._executor.close()


async def cancel_all(tasks: list[asyncio.Task | None]) -> None:
    """Cancel a runner's tasks (None: one never started) and wait until all have ended."""
    started = [task for task in tasks if task is not None]
    for task in started:
        task.cancel()
    await asyncio.gather(*started, return_exceptions=True)
