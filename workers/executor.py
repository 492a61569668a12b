"""The Celery executor: a replica hands bot turns to the workers, which commit the
moves themselves and dispatch the next turn (``workers.tasks``); a hint's search
runs on the same workers and the replica waits for its trees."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

import bots
from services import times
from services.bots.bot_runner import Analysis, BotExecutor, TurnLease
from services.bots.bot_turns import BotTurn
from services.bots.jobs import BotJob
from services.errors import Unavailable
from services.kinds import BotStatus
from workers.app import MAX_SEARCH_SECONDS
from workers.tasks import dispatch, dispatch_analysis

log = logging.getLogger(__name__)


class CeleryExecutor(BotExecutor):
    WAITING_AFTER = times.CELERY_TURN_WAITING_AFTER_SECONDS
    REDISPATCH_AFTER = times.CELERY_TURN_REDISPATCH_SECONDS
    POLL = times.CELERY_TURN_POLL_SECONDS
    # A hint whose trees have not all come back by then answers UNAVAILABLE.
    ANALYSIS_TIMEOUT = 2 * MAX_SEARCH_SECONDS

    def __init__(self, store_url: str, prefix: str, max_iterations: int | None = None) -> None:
        self._store_url = store_url
        self._prefix = prefix
        self._max_iterations = max_iterations
        self._recoveries = 0  # store faults got over: a turn dispatched before is sent again

    def store_recovered(self) -> None:
        """A turn dispatched before a store fault and not started yet is dispatched
        again at once, not after REDISPATCH_AFTER: a failover loses the old primary's
        queue, and a worker whose broker connection broke drops what it had taken but
        not started (kombu gives it back only after the visibility timeout)."""
        self._recoveries += 1

    async def decide(self, turn: BotTurn, lease: TurnLease) -> None:
        """Hand the turn to the workers and hold its lease until one starts it (from then
        on the worker heartbeats it). A turn claimed again after its worker fell silent
        is dispatched again: a duplicate commit changes nothing."""
        # Publishing to the broker is blocking I/O: keep it off the event loop.
        await asyncio.to_thread(
            dispatch, turn.job(), self._store_url, self._prefix, self._max_iterations
        )
        since = time.monotonic()
        recoveries = self._recoveries
        marked = False
        while True:
            await asyncio.sleep(self.POLL)
            if self._recoveries != recoveries:
                return None  # the lease, lapsed by the sweeper, sends it again
            snapshot = await lease.store.load(lease.game_id)
            if snapshot is None or snapshot.version != lease.version:
                return None
            if snapshot.current_bot_status() == BotStatus.STARTED:
                return None
            if time.monotonic() - since > self.REDISPATCH_AFTER:
                return None  # taken by a worker that died before it said so? Let the lease lapse.
            await lease.renew()
            if not marked and time.monotonic() - since > self.WAITING_AFTER:
                lease.set_status(BotStatus.WAITING)
                marked = True

    async def analyse(self, job: BotJob) -> Analysis:
        """Run the job's trees on the workers and wait for them (polling the result
        backend off the event loop; the replica's other calls go on meanwhile)."""
        handle = await asyncio.to_thread(dispatch_analysis, job, self._max_iterations)
        deadline = time.monotonic() + self.ANALYSIS_TIMEOUT
        done = False
        try:
            while not await asyncio.to_thread(handle.ready):
                if time.monotonic() > deadline:
                    raise Unavailable(
                        f"no search worker finished this hint within {self.ANALYSIS_TIMEOUT} s "
                        "(workers busy or down); retry later"
                    )
                await asyncio.sleep(self.POLL)
            done = True
            try:
                result = await asyncio.to_thread(handle.get, timeout=self.POLL)
            except Exception as exc:  # a worker's time limit or crash: not the caller's doing
                log.warning("a hint's search failed on a worker: %s: %s", type(exc).__name__, exc)
                raise Unavailable(
                    f"the hint's search failed on a worker ({type(exc).__name__}); retry later"
                ) from None
        finally:
            if not done:  # given up or cancelled: trees no worker started are not run
                with contextlib.suppress(Exception):
                    await asyncio.to_thread(handle.revoke)
            with contextlib.suppress(Exception):
                await asyncio.to_thread(handle.forget)
        if isinstance(result, int):
            return Analysis(result)
        stats = bots.merge_root_stats(result)
        return Analysis(bots.best_action(stats), stats, len(result))
