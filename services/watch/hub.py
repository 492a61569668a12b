"""Live event feeds for WatchGame and WatchTournament: one shared reader per replica,
fanned out in process.

Every watched log of a replica (a game's, or a tournament's: ``stores.LogId``) is read
by ONE task through one ``EventReader`` (for Redis: one XREAD over all their streams
on a connection of its own), however many streams watch it. Each new batch is handed
to the log's subscribers, which are cheap in-process queues. A subscriber first
catches up from the store on its own (plain paged reads), and goes back to the store
whenever it fell too far behind, so a slow client costs a bounded queue, never the
others' progress. The reader runs while some log is watched, and backs off and
resumes (from each log's last event id) when the store fails.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import random
from collections.abc import AsyncIterator

from services import metrics
from services.errors import NotFound
from services.stores import EventReader, GameStore, LogId, StoredEvent, TournamentLog

log = logging.getLogger(__name__)

PAGE = 500  # events per catch-up read
QUEUE_LIMIT = 1000  # events a subscriber may hold before it must catch up from the store
BLOCK_SECONDS = 5.0  # one read waits at most this long (a ceiling, not a poll period)
# A stream with nothing to send checks this often that its game (or tournament) still
# exists, so a watcher of one deleted by expiry is told NOT_FOUND, not left waiting.
EXISTS_CHECK_SECONDS = 20.0


class Subscription:
    """One stream's view of a log: every event after ``after``, in order, once."""

    def __init__(self, hub: WatchHub, source: LogId, after: int) -> None:
        self._hub = hub
        self.source = source
        self._pending: collections.deque[StoredEvent] = collections.deque()
        self._last = after  # id of the newest event handed out or pending
        self._handed = after  # id of the newest event handed out
        self._catch_up = True  # read the store before trusting what the reader delivers
        self._reading = False
        self._wake = asyncio.Event()

    def deliver(self, events: list[StoredEvent]) -> None:
        """Called by the hub's reader with a log's next events."""
        if self._catch_up or self._reading:
            # A store read is due or under way: it (or the next one) returns these.
            self._catch_up = True
        elif (
            events
            and events[-1].event_id > self._last
            and not any(e.event_id == self._last + 1 for e in events)
        ):
            # Not the next events: the reader read from a position the store has moved
            # past (a log sealed meanwhile: ``stores.redis_store``). The store has them.
            self._catch_up = True
        else:
            last = self._last
            for event in events:
                if event.event_id > last:
                    self._pending.append(event)
            if self._pending:
                self._last = self._pending[-1].event_id
            if len(self._pending) > QUEUE_LIMIT:  # a slow client: drop, re-read later
                self._pending.clear()
                self._last = self._handed
                self._catch_up = True
        self._wake.set()

    @property
    def has_pending(self) -> bool:
        """Whether events after the last one handed out are already at hand."""
        return bool(self._pending)

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> StoredEvent:
        while True:
            if self._pending:
                event = self._pending.popleft()
                self._handed = event.event_id
                return event
            if self._catch_up:
                self._catch_up = False
                self._reading = True
                try:
                    batch = await self._hub.store.log_events(self.source, self._last, PAGE)
                finally:
                    self._reading = False
                self._pending.extend(batch)
                if batch:
                    self._last = batch[-1].event_id
                if len(batch) == PAGE:
                    self._catch_up = True
                continue
            self._wake.clear()  # nothing pending and no await since: no delivery is missed
            try:
                await asyncio.wait_for(self._wake.wait(), EXISTS_CHECK_SECONDS)
            except TimeoutError:
                if not await self._hub.store.log_exists(self.source):
                    raise NotFound(f"{_named(self.source)} has expired") from None


def _named(source: LogId) -> str:
    return f"tournament {source.name}" if isinstance(source, TournamentLog) else f"game {source}"


class _Feed:
    """What the reader knows of one watched log."""

    def __init__(self, position: int) -> None:
        self.position = position  # the newest event id the reader has seen
        self.subscribers: set[Subscription] = set()


class WatchHub:
    def __init__(self, store: GameStore, block_seconds: float = BLOCK_SECONDS) -> None:
        self.store = store
        self._block_seconds = block_seconds
        self._feeds: dict[LogId, _Feed] = {}
        self._reader: EventReader | None = None
        self._task: asyncio.Task | None = None

    @property
    def subscribers(self) -> int:
        return sum(len(feed.subscribers) for feed in self._feeds.values())

    @property
    def games(self) -> int:
        """Logs (games and tournaments) the reader follows."""
        return len(self._feeds)

    @property
    def reading(self) -> bool:
        return self._task is not None

    @contextlib.asynccontextmanager
    async def subscribe(
        self, source: LogId, after: int, newest: int
    ) -> AsyncIterator[Subscription]:
        """Follow ``source`` (a game id, or a ``TournamentLog``) from event id ``after``;
        ``newest`` is its newest event id as just read (where the shared reader starts
        if nobody watched it)."""
        subscription = Subscription(self, source, after)
        feed = self._feeds.get(source)
        added = feed is None
        if feed is None:
            feed = self._feeds[source] = _Feed(newest)
            metrics.WATCH_GAMES.inc()
        feed.subscribers.add(subscription)
        metrics.WATCH_STREAMS.inc()
        try:
            if self._task is None:
                self._task = asyncio.create_task(self._read_loop(), name="watch-hub reader")
            elif added:
                await self._wake_reader()
            yield subscription
        finally:
            feed.subscribers.discard(subscription)
            metrics.WATCH_STREAMS.dec()
            if not feed.subscribers and self._feeds.get(source) is feed:
                del self._feeds[source]
                metrics.WATCH_GAMES.dec()
                if not self._feeds:
                    await self._wake_reader()  # let it notice and stop now

    async def _wake_reader(self) -> None:
        if self._reader is None:
            return
        try:
            await self._reader.wake()
        except Exception as exc:  # the read then returns at its block timeout
            log.debug("could not wake the watch reader: %s", exc)

    async def _read_loop(self) -> None:
        self._reader = reader = self.store.event_reader()
        failures = 0
        try:
            while self._feeds:
                positions = {source: feed.position for source, feed in self._feeds.items()}
                try:
                    found = await reader.read(positions, self._block_seconds)
                except Exception as exc:
                    # A store fault must not end the feeds: back off, then resume each
                    # log from its last event id.
                    failures += 1
                    delay = min(5.0, 0.1 * 2**failures) * random.uniform(0.5, 1.0)
                    log.warning("watch reader: %s; retrying in %.1f s", exc, delay)
                    await asyncio.sleep(delay)
                    continue
                failures = 0
                for source, events in found.items():
                    feed = self._feeds.get(source)
                    if feed is None or not events:
                        continue
                    feed.position = events[-1].event_id
                    for subscription in list(feed.subscribers):
                        subscription.deliver(events)
        finally:
            self._reader = None
            self._task = None
            await reader.close()

    async def close(self) -> None:
        task = self._task
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
