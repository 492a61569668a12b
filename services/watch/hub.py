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

A game's new events wait for the replica's own commits there to have their replies
(``CommitsInFlight``): on Redis the commit's event (the reader's blocked XREAD) and
the commit's reply come back at once, and either may be handled first.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import random
import time
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Protocol

from services import metrics
from services.errors import Aborted, NotFound
from services.stores import (
    EventLogs,
    EventReader,
    GameLog,
    LogId,
    StoredEvent,
    TournamentLog,
    TournamentStore,
)

log = logging.getLogger(__name__)

PAGE = 500  # events per catch-up read
QUEUE_LIMIT = 1000  # events a subscriber may hold before it must catch up from the store
BLOCK_SECONDS = 5.0  # one read waits at most this long (a ceiling, not a poll period)
# A stream with nothing to send checks this often that its game (or tournament) still
# exists, so a watcher of one deleted by expiry is told NOT_FOUND, not left waiting.
EXISTS_CHECK_SECONDS = 20.0
# A watched log that stays quiet is looked at in the store after this long, then at
# doubling intervals (at most EXISTS_CHECK_SECONDS): its newest event older than the
# reader's position means a failover lost events, and the reader must go back (new
# events take the lost ids, which a read from the old position never returns).
QUIET_LOOK_SECONDS = 2.0


class WatchedStore(GameLog, TournamentStore, EventLogs, Protocol):
    """What the hub reads: the logs, and whether their game or tournament is still stored."""


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
        # Set while __anext__ waits for a delivery: a bare future and one timer, not
        # asyncio.wait_for (a task and a timeout per event, which showed in profiles).
        self._waiter: asyncio.Future[bool] | None = None
        self._loop = asyncio.get_running_loop()  # once: each lookup costs a getpid()
        self._rewound_to: int | None = None  # the log lost events this stream handed out
        self._gone = False  # the hub found the game (or tournament) gone from the store

    def vanished(self) -> None:
        """The hub found the log's game or tournament gone (archived and forgotten,
        expired, or lost whole in a failover): ended once what is at hand is sent."""
        self._gone = True
        self._wake()

    def rewound(self, newest: int) -> None:
        """The log's newest event is ``newest`` again, older than events it held: a
        Redis failover lost them (``--redis-min-replicas 0``). Events not yet handed
        out are dropped and read again; a stream that handed out a lost event ends."""
        if self._handed > newest:
            self._rewound_to = newest
        else:
            self._read_again()
        self._wake()

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
                self._read_again()
        self._wake()

    def _read_again(self) -> None:
        """Drop what is at hand: the store is read again after the last event sent."""
        self._pending.clear()
        self._last = self._handed
        self._catch_up = True

    def _wake(self) -> None:
        """End ``__anext__``'s wait for a delivery, if it waits."""
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(True)

    @property
    def last(self) -> int:
        """The newest event id this stream handed out or holds."""
        return self._last

    @property
    def has_pending(self) -> bool:
        """Whether events after the last one handed out are already at hand."""
        return bool(self._pending)

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> StoredEvent:
        while True:
            if self._rewound_to is not None:
                raise Aborted(
                    f"{_named(self.source)} lost its events after {self._rewound_to} in a "
                    f"store failover, and this stream had sent up to {self._handed}: read "
                    f"the state again and watch with after_event_id {self._rewound_to}"
                )
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
            if self._gone:
                raise NotFound(f"{_named(self.source)} has expired")
            # Nothing pending and no await since the checks above: no delivery is missed.
            delivered = await self._delivered_within(EXISTS_CHECK_SECONDS)
            if not delivered:
                newest = await newest_event(self._hub.store, self.source)
                if newest is None:
                    raise NotFound(f"{_named(self.source)} has expired")
                if newest < self._last:
                    await self._hub.rewind(self.source, newest)

    async def _delivered_within(self, seconds: float) -> bool:
        """Wait for the next ``deliver``; False when ``seconds`` passed without one."""
        self._waiter = waiter = self._loop.create_future()
        timer = self._loop.call_later(seconds, _expire, waiter)
        try:
            return await waiter
        finally:
            timer.cancel()
            self._waiter = None


def _expire(waiter: asyncio.Future[bool]) -> None:
    if not waiter.done():
        waiter.set_result(False)


async def newest_event(store: WatchedStore, source: LogId) -> int | None:
    """The newest event id of a stored log; None when its game or tournament is gone."""
    if isinstance(source, TournamentLog):
        tournament = await store.load_tournament(source.name)
        return None if tournament is None else tournament.last_event_id
    snapshot = await store.load(source)
    return None if snapshot is None else snapshot.last_event_id


def _named(source: LogId) -> str:
    return f"tournament {source.name}" if isinstance(source, TournamentLog) else f"game {source}"


class CommitsInFlight:
    """This replica's commits waiting for their replies, by game. The hub hands a
    game's new events to its watches only once they have them: the committer is
    answered before the watches' work on its event runs, and the position its commit
    keeps (``GameHost.positions``) gives the next seat's legal actions with no store read
    (on a quiet event loop the event came first at nearly every move:
    benchmarks/studies/commit_watch.py, docs/ladder.md)."""

    def __init__(self) -> None:
        self._games: dict[LogId, asyncio.Future[None]] = {}

    @contextlib.contextmanager
    def committing(self, game_id: str) -> Iterator[None]:
        """Around a commit to ``game_id`` and the keeping of what it wrote."""
        replied = asyncio.get_running_loop().create_future()
        self._games[game_id] = replied
        try:
            yield
        finally:
            if self._games.get(game_id) is replied:
                del self._games[game_id]
            replied.set_result(None)

    async def replied(self, sources: Iterable[LogId]) -> None:
        """Once every commit in flight to these logs has its reply (never cancels one)."""
        waiting = [self._games[source] for source in sources if source in self._games]
        if waiting:
            await asyncio.wait(waiting)


class _Feed:
    """What the reader knows of one watched log."""

    def __init__(self, position: int) -> None:
        self.position = position  # the newest event id the reader has seen
        self.subscribers: set[Subscription] = set()
        self.heard(time.monotonic())

    def heard(self, now: float) -> None:
        """Events came (or the feed began): quiet from now, looked at after a while."""
        self.quiet_since = now
        self.look_at = now + QUIET_LOOK_SECONDS


class WatchHub:
    def __init__(self, store: WatchedStore, block_seconds: float = BLOCK_SECONDS) -> None:
        self.store = store
        self._block_seconds = block_seconds
        self._feeds: dict[LogId, _Feed] = {}
        self._reader: EventReader | None = None
        self._task: asyncio.Task | None = None
        self.commits = CommitsInFlight()  # their games' events wait for their replies

    @property
    def subscribers(self) -> int:
        return sum(len(feed.subscribers) for feed in self._feeds.values())

    @property
    def games(self) -> int:
        """Logs (games and tournaments) the reader follows."""
        return len(self._feeds)

    def newest(self, source: LogId) -> int | None:
        """The newest event id of ``source`` the reader has seen (None: not watched)."""
        feed = self._feeds.get(source)
        return None if feed is None else feed.position

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
                try:
                    if failures:  # back from a store fault, maybe a failover: rewound?
                        await self._find_rewinds()
                    wait = await self._look_at_quiet_feeds()
                    positions = {source: feed.position for source, feed in self._feeds.items()}
                    found = await reader.read(positions, wait)
                except Exception as exc:
                    # A store fault must not end the feeds: back off, then resume each
                    # log from its last event id.
                    failures += 1
                    delay = min(5.0, 0.1 * 2**failures) * random.uniform(0.5, 1.0)
                    log.warning("watch reader: %s; retrying in %.1f s", exc, delay)
                    await asyncio.sleep(delay)
                    continue
                failures = 0
                await self.commits.replied(found)
                now = time.monotonic()
                for source, events in found.items():
                    feed = self._feeds.get(source)
                    if feed is None or not events:
                        continue
                    feed.heard(now)
                    feed.position = events[-1].event_id
                    for subscription in list(feed.subscribers):
                        subscription.deliver(events)
        finally:
            self._reader = None
            self._task = None
            await reader.close()

    async def _look_at_quiet_feeds(self) -> float:
        """Look in the store at each log quiet for its while (a failover may have
        rewound it: ``rewind``); returns how long the next read may block."""
        now = time.monotonic()
        for source, feed in list(self._feeds.items()):
            if now < feed.look_at:
                continue
            quiet = now - feed.quiet_since
            feed.look_at = now + min(EXISTS_CHECK_SECONDS, max(QUIET_LOOK_SECONDS, quiet))
            await self._look_at(source)
        soonest = min((f.look_at for f in self._feeds.values()), default=now + self._block_seconds)
        return max(0.05, min(self._block_seconds, soonest - now))

    async def _find_rewinds(self) -> None:
        """After a store fault: a log whose newest event is older than the reader's
        position lost events (a failover); the reader goes back, and its streams are
        told (``Subscription.rewound``). Otherwise the reader would wait for ids past
        the lost ones, and its streams would stall until the game got that far."""
        for source in list(self._feeds):
            await self._look_at(source)

    async def _look_at(self, source: LogId) -> None:
        newest = await newest_event(self.store, source)
        if newest is not None:
            await self.rewind(source, newest, wake=False)
            return
        feed = self._feeds.get(source)
        for subscription in list(feed.subscribers if feed is not None else ()):
            subscription.vanished()

    async def rewind(self, source: LogId, newest: int, wake: bool = True) -> None:
        """``source``'s newest event is ``newest``: if the reader or a stream is past
        it, events were lost; the reader reads from ``newest`` and the streams are told."""
        feed = self._feeds.get(source)
        if feed is None:
            return
        if newest < feed.position:
            log.warning("watch: %s lost its events after %d (failover)", _named(source), newest)
            feed.position = newest
            if wake:
                await self._wake_reader()
        for subscription in list(feed.subscribers):
            if newest < subscription.last:
                subscription.rewound(newest)

    async def close(self) -> None:
        task = self._task
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
