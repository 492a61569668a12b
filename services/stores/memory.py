"""The embedded store: everything in this process's memory (``gamehost serve`` default).

Atomicity comes from running every operation on one asyncio event loop without
awaiting in the middle of a change. One change awaits: with ``archive_first``, the
commit that finishes a game waits for the archive; the game is marked meanwhile, and
every other change of it waits for that commit.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import logging
import secrets
import time
import weakref
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from services.errors import Unavailable
from services.kinds import GameStatus
from services.stores.base import (
    ARCHIVE_GAME,
    ARCHIVE_TOURNAMENT,
    Commit,
    CommitOutcome,
    CommitResult,
    EventReader,
    GameExists,
    GameMoved,
    LogId,
    NewGame,
    Snapshot,
    StoredEvent,
    Tombstone,
    TournamentLog,
    TournamentSnapshot,
    archive_entry,
)
from services.stores.game_store import GameStore
from services.stores.leases import ARCHIVE, BOT_TURNS, TOURNAMENTS, Lease
from services.stores.memory_match_queue import MemoryMatchQueue
from services.stores.records import ACCOUNT, with_joined_names

log = logging.getLogger(__name__)

# Puts a finished game in the archive (``Archive.put_game``'s signature): its snapshot,
# its whole log and its clients' request results; committed there when it returns.
PutGame = Callable[[Snapshot, list[StoredEvent], dict[str, dict[str, Any]]], Awaitable[object]]


def _copied(value: Any) -> Any:
    """A copy of JSON data (what a Redis store would have stored) that its caller can no
    longer change: ``copy.deepcopy`` for these types, without its memo, several times
    faster on the push path (an event, a request's result)."""
    if isinstance(value, dict):
        return {key: _copied(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copied(item) for item in value]
    return value


@dataclass
class _Game:
    meta: dict[str, Any]
    state: bytes
    version: int
    status: str
    tokens: dict[int, str] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)  # token hash -> name joined with
    requests: dict[str, dict[str, Any]] = field(default_factory=dict)
    events: list[StoredEvent] = field(default_factory=list)
    changed: asyncio.Event | None = None
    touched: float = field(default_factory=time.time)  # last activity (expiry)
    request_times: dict[str, float] = field(default_factory=dict)  # when each was applied
    bot_status: str = ""
    luck: str = ""
    turn: tuple[str, dict[str, Any]] | None = None  # the newest turn's request key and result
    # Set while the commit finishing the game puts it in the archive: other changes wait.
    finishing: asyncio.Event | None = None


@dataclass
class _Tournament:
    record: dict[str, Any]
    status: str
    tables: dict[int, dict[str, Any]] = field(default_factory=dict)
    results: dict[int, dict[str, Any]] = field(default_factory=dict)
    entrants: dict[str, str] = field(default_factory=dict)
    events: list[StoredEvent] = field(default_factory=list)
    touched: float = field(default_factory=time.time)  # the last event or status change


class MemoryStore(GameStore, MemoryMatchQueue):
    def __init__(self, request_ttl: float = 86400.0) -> None:
        self._archive_outbox = False  # finishing commits fill the outbox (set_archiving)
        self._put_first: PutGame | None = None  # archive_first
        self._games: dict[str, _Game] = {}
        self._readers: weakref.WeakSet[_MemoryEventReader] = weakref.WeakSet()
        self._request_ttl = request_ttl
        self._secret = secrets.token_bytes(32)  # one per store (process)
        self._live: dict[str, dict[str, float]] = {}  # owner -> game id -> reserved at
        self._bot_due: dict[str, float] = {}  # game id -> monotonic time its bot turn is due
        self._tournaments: dict[str, _Tournament] = {}
        self._tournament_due: dict[str, float] = {}  # running tournament -> next sweep
        self._outbox: dict[str, float] = {}  # archive entry -> monotonic time it is due
        # Games archived and forgotten: their tombstones, with the time each expires.
        self._tombstones: dict[str, tuple[Tombstone, float]] = {}

    def _request(self, game: _Game, request_key: str | None) -> dict[str, Any] | None:
        """The result of an applied request, unless it has expired (removed then)."""
        if request_key and game.turn is not None and game.turn[0] == request_key:
            return game.turn[1]
        if not request_key or request_key not in game.requests:
            return None
        if time.time() - game.request_times.get(request_key, 0.0) > self._request_ttl:
            del game.requests[request_key]
            game.request_times.pop(request_key, None)
            return None
        return game.requests[request_key]

    def _schedule(self, game_id: str, due_in: float | None) -> None:
        if due_in is None:
            self._bot_due.pop(game_id, None)
        else:
            self._bot_due[game_id] = time.monotonic() + due_in

    def _append(self, game_id: str, game: _Game, events: list[dict[str, Any]]) -> list[int]:
        ids = self._log(game, events)
        self._told(game_id, game, ids)
        return ids

    def _told(self, game_id: str, game: _Game, ids: list[int]) -> None:
        """Wake whoever waits on the game's log, once events ``ids`` are in it."""
        if ids and game.changed is not None:
            game.changed.set()
            game.changed = None
        if ids:
            for reader in self._readers:
                reader.changed(game_id)

    @staticmethod
    def _log(game: _Game, events: list[dict[str, Any]]) -> list[int]:
        """Append ``events`` to the game's log (nobody told yet); their ids."""
        ids = []
        for data in events:
            event_id = len(game.events) + 1  # the log is never trimmed: ids are 1, 2, 3...
            game.events.append(StoredEvent(event_id, _copied(data)))
            ids.append(event_id)
        game.touched = time.time()
        return ids

    async def create(self, game: NewGame) -> list[int]:
        if game.game_id in self._games or await self.tombstone(game.game_id) is not None:
            raise GameExists(f"game {game.game_id} exists")
        stored = _Game(copy.deepcopy(game.meta), game.state, game.version, game.status)
        stored.luck = game.luck
        self._games[game.game_id] = stored
        self._schedule(game.game_id, game.bot_due_in)
        return self._append(game.game_id, stored, game.events)

    def _snapshot(self, game_id: str, game: _Game, request_key: str | None) -> Snapshot:
        return Snapshot(
            game_id=game_id,
            # Read-only for callers; copied once when the game was stored.
            meta=with_joined_names(game.meta, game.tokens, game.names),
            state=game.state,
            version=game.version,
            status=game.status,
            tokens=dict(game.tokens),
            request_result=_copied(self._request(game, request_key)),
            last_event_id=game.events[-1].event_id if game.events else 0,
            bot_status=game.bot_status,
            luck=game.luck,
        )

    async def load(self, game_id: str, request_key: str | None = None) -> Snapshot | None:
        game = self._games.get(game_id)
        return None if game is None else self._snapshot(game_id, game, request_key)

    def archive_first(self, put: PutGame) -> None:
        """Nothing here outlives the process but the archive: from now on, the commit that
        finishes a game first ``put``s the game, as that commit leaves it, in the archive,
        and is written here (seen by readers and watchers) only once ``put`` returned. A
        game anyone was told is finished then survives a kill -9; the outbox's archiver
        finds it archived already and only forgets it here. ``put`` failing refuses the
        commit (``Unavailable``), which changes nothing."""
        self._put_first = put

    async def _settled(self, game_id: str) -> _Game | None:
        """The game once no finish of it is being archived (None: no such game)."""
        while (game := self._games.get(game_id)) is not None and game.finishing is not None:
            await game.finishing.wait()
        return game

    async def write(self, commit: Commit) -> CommitResult:
        game = await self._settled(commit.game_id)
        if game is None:
            return CommitResult(CommitOutcome.NOT_FOUND)
        previous = self._request(game, commit.request_key)
        if previous is not None:
            return CommitResult(CommitOutcome.DUPLICATE, game.version, [], _copied(previous))
        if game.version != commit.expected_version:
            return CommitResult(CommitOutcome.STALE, game.version)
        for seat, (expected, _) in (commit.tokens or {}).items():
            if game.tokens.get(seat, "") != expected:
                return CommitResult(CommitOutcome.SEAT_TAKEN, game.version)
        finishes = commit.status == GameStatus.FINISHED and game.status != GameStatus.FINISHED
        if finishes and self._put_first is not None:
            # Marked before any await: every other change of the game waits from now on.
            # Shielded: once the archive may hold the finish, the write goes through here
            # too, even if its caller is cancelled meanwhile.
            game.finishing = asyncio.Event()
            return await asyncio.shield(self._archive_then_write(game, commit))
        return self._write(game, commit, finishes)

    async def _archive_then_write(self, game: _Game, commit: Commit) -> CommitResult:
        assert self._put_first is not None and game.finishing is not None
        try:
            after = dataclasses.replace(
                game,
                tokens=dict(game.tokens),
                requests=dict(game.requests),
                request_times=dict(game.request_times),
                events=list(game.events),
                changed=None,
                finishing=None,
            )
            self._change(after, commit)
            snapshot = self._snapshot(commit.game_id, after, None)
            try:
                await self._put_first(snapshot, after.events, self._kept_requests(after))
            except Exception as exc:
                log.warning(
                    "game %s: the archive did not take its finish, refused: %s: %s",
                    commit.game_id,
                    type(exc).__name__,
                    str(exc)[:200],
                )
                raise Unavailable(
                    f"game {commit.game_id}: the archive did not take the game's finish "
                    f"({type(exc).__name__}), so nothing was changed; retry with the same "
                    "request_id"
                ) from exc
            if self._games.get(commit.game_id) is not game:  # expired meanwhile
                return CommitResult(CommitOutcome.NOT_FOUND)
            return self._write(game, commit, finishes=True)
        finally:
            game.finishing.set()
            game.finishing = None

    def _write(self, game: _Game, commit: Commit, finishes: bool) -> CommitResult:
        """Apply a commit whose checks passed, and tell readers and the schedules."""
        if self._archive_outbox and finishes:
            self._outbox.setdefault(archive_entry(ARCHIVE_GAME, commit.game_id), 0.0)
        ids = self._change(game, commit)
        self._schedule(commit.game_id, commit.bot_due_in)
        self._told(commit.game_id, game, ids)
        return CommitResult(CommitOutcome.APPLIED, commit.new_version, ids)

    def _change(self, game: _Game, commit: Commit) -> list[int]:
        """Write ``commit`` into the game's record alone (nobody told, nothing
        scheduled); the ids of its events."""
        game.state, game.version, game.status = commit.state, commit.new_version, commit.status
        if commit.luck is not None:
            game.luck = commit.luck
        if commit.meta is not None:
            # Snapshots hand out the old dict: never mutate it.
            game.meta = copy.deepcopy(commit.meta)
        for seat, (_, new) in (commit.tokens or {}).items():
            if new:
                game.tokens[seat] = new
            else:
                game.tokens.pop(seat, None)
        if commit.request_key and commit.turn_request:
            game.turn = (commit.request_key, _copied(commit.request_result or {}))
        elif commit.request_key:
            game.requests[commit.request_key] = _copied(commit.request_result or {})
            game.request_times[commit.request_key] = time.time()
        return self._log(game, commit.events)

    async def claim_seat(
        self,
        game_id: str,
        seat: int,
        token_hash: str,
        event: dict[str, Any],
        version: int | None = None,
        name: str = "",
        account: str = "",
    ) -> bool:
        game = await self._settled(game_id)  # a join is logged after the finish, if at all
        if game is None:
            return False
        if version is not None and game.version != version:
            raise GameMoved(f"game {game_id} is at version {game.version}, not {version}")
        if seat in game.tokens:
            return False
        game.tokens[seat] = token_hash
        if name:
            game.names[token_hash] = name
        if account:
            game.names[ACCOUNT + token_hash] = account
        self._append(game_id, game, [event])
        return True

    async def request_results(self, game_id: str) -> dict[str, dict[str, Any]]:
        game = self._games.get(game_id)
        return {} if game is None else self._kept_requests(game)

    def _kept_requests(self, game: _Game) -> dict[str, dict[str, Any]]:
        kept = {key: self._request(game, key) for key in list(game.requests)}
        return {key: copy.deepcopy(result) for key, result in kept.items() if result is not None}

    async def events(self, game_id: str, after: int = 0, limit: int = 1000) -> list[StoredEvent]:
        return self._events_after(game_id, after, limit)

    def _events_after(self, game_id: str, after: int, limit: int = 1000) -> list[StoredEvent]:
        game = self._games.get(game_id)
        if game is None:
            return []
        # Ids are consecutive (1, 2, 3...): the event after ``after`` is found by index.
        first = max(0, after - game.events[0].event_id + 1) if game.events else 0
        return game.events[first : first + limit]

    async def wait_events(self, game_id: str, after: int, timeout: float) -> list[StoredEvent]:
        found = await self.events(game_id, after)
        game = self._games.get(game_id)
        if found or game is None:
            return found
        if game.changed is None:
            game.changed = asyncio.Event()
        try:
            await asyncio.wait_for(game.changed.wait(), timeout)
        except TimeoutError:
            return []
        return await self.events(game_id, after)

    def event_reader(self) -> EventReader:
        reader = _MemoryEventReader(self)
        self._readers.add(reader)
        return reader

    async def list_games(self, limit: int = 100) -> list[Snapshot]:
        newest = list(self._games.items())[::-1][:limit]
        return [self._snapshot(gid, game, None) for gid, game in newest]

    async def ping(self) -> None:
        """The in-memory store is always reachable."""

    async def secret(self) -> bytes:
        return self._secret

    async def expire_games(self, finished_retention: float, idle_expiry: float) -> list[str]:
        now = time.time()
        gone = [
            game_id
            for game_id, game in self._games.items()
            if archive_entry(ARCHIVE_GAME, game_id) not in self._outbox
            and now - game.touched
            > (finished_retention if game.status == GameStatus.FINISHED else idle_expiry)
        ]
        for game_id in gone:
            game = self._games.pop(game_id)
            self._bot_due.pop(game_id, None)
            if game.changed is not None:
                game.changed.set()
        for game in self._games.values():
            for key in [k for k, t in game.request_times.items() if now - t > self._request_ttl]:
                game.requests.pop(key, None)
                del game.request_times[key]
        for game_id in [g for g, (_, until) in self._tombstones.items() if until <= now]:
            del self._tombstones[game_id]
        self._forget_owners()
        return gone

    def _prune_live(self, owner: str, now: float) -> dict[str, float]:
        """The owner's live games, without finished or gone ones (a reservation whose
        game never appeared is dropped after a minute)."""
        live = self._live.setdefault(owner, {})
        for other, reserved in list(live.items()):
            game = self._games.get(other)
            if (game.status == GameStatus.FINISHED) if game else now - reserved > 60:
                del live[other]
        return live

    async def reserve_live_game(self, owner: str, game_id: str, cap: int) -> bool:
        now = time.time()
        live = self._prune_live(owner, now)
        if game_id not in live and len(live) >= cap:
            return False
        live[game_id] = now
        return True

    def _forget_owners(self) -> None:
        """Drop owners with no live game left (the map grows with clients otherwise)."""
        now = time.time()
        for owner in [o for o in self._live if not self._prune_live(o, now)]:
            del self._live[owner]

    async def drop_bot_turn(self, game_id: str) -> None:
        self._bot_due.pop(game_id, None)

    async def bot_turn_due_in(self, game_id: str) -> float | None:
        at = self._bot_due.get(game_id)
        return None if at is None else at - time.monotonic()

    async def bot_turn_backlog(self) -> tuple[int, float]:
        now = time.monotonic()
        return len(self._bot_due), max(0.0, now - min(self._bot_due.values(), default=now))

    async def set_bot_status(self, game_id: str, version: int, status: str) -> None:
        game = self._games.get(game_id)
        if game is not None:
            game.bot_status = f"{version}:{status}"

    # ------------------------------------------------------------------ archive outbox
    async def set_archiving(self, on: bool) -> None:
        self._archive_outbox = on
        if not on:
            self._outbox.clear()

    async def ack_archive(self, entry: str) -> None:
        self._outbox.pop(entry, None)

    async def archive_backlog(self) -> int:
        return len(self._outbox)

    async def forget_archived(
        self, game_id: str, last_event_id: int, game_type: str, tombstone_ttl: float
    ) -> bool:
        game = self._games.get(game_id)
        if game is None or game.status != GameStatus.FINISHED:
            return False
        if (game.events[-1].event_id if game.events else 0) != last_event_id:
            return False
        now = time.time()
        del self._games[game_id]
        self._bot_due.pop(game_id, None)
        remains = Tombstone(game.status, game_type, game.touched)
        self._tombstones[game_id] = (remains, now + tombstone_ttl)
        if game.changed is not None:
            game.changed.set()
        return True

    async def tombstone(self, game_id: str) -> Tombstone | None:
        kept = self._tombstones.get(game_id)
        if kept is None or kept[1] <= time.time():
            return None
        return kept[0]

    # ------------------------------------------------------------------ tournaments
    def _tournament_append(
        self, name: str, tournament: _Tournament, events: list[dict[str, Any]]
    ) -> None:
        for data in events:
            tournament.events.append(StoredEvent(len(tournament.events) + 1, copy.deepcopy(data)))
        if events:
            tournament.touched = time.time()
            for reader in self._readers:
                reader.changed(TournamentLog(name))

    async def create_tournament(
        self, name: str, record: dict[str, Any], status: str, events: list[dict[str, Any]]
    ) -> bool:
        if name in self._tournaments:
            return False
        tournament = _Tournament(copy.deepcopy(record), status)
        self._tournaments[name] = tournament
        self._tournament_due[name] = 0.0
        self._tournament_append(name, tournament, events)
        return True

    async def load_tournament(self, name: str) -> TournamentSnapshot | None:
        t = self._tournaments.get(name)
        if t is None:
            return None
        return TournamentSnapshot(
            name=name,
            record=copy.deepcopy(t.record),
            status=t.status,
            tables=copy.deepcopy(t.tables),
            results=copy.deepcopy(t.results),
            entrants=dict(t.entrants),
            last_event_id=len(t.events),
        )

    async def list_tournaments(self, limit: int = 100) -> list[str]:
        return list(self._tournaments)[::-1][:limit]

    async def start_table(
        self, name: str, index: int, table: dict[str, Any], events: list[dict[str, Any]]
    ) -> bool:
        t = self._tournaments.get(name)
        if t is None or index in t.tables:
            return False
        t.tables[index] = copy.deepcopy(table)
        self._tournament_append(name, t, events)
        return True

    async def finish_table(
        self, name: str, index: int, result: dict[str, Any], events: list[dict[str, Any]]
    ) -> bool:
        t = self._tournaments.get(name)
        if t is None or index in t.results:
            return False
        t.results[index] = copy.deepcopy(result)
        self._tournament_append(name, t, events)
        return True

    async def set_tournament_status(
        self, name: str, status: str, events: list[dict[str, Any]], keep_swept: bool = False
    ) -> bool:
        t = self._tournaments.get(name)
        if t is None or t.status != "running":
            return False
        t.status = status
        t.touched = time.time()  # when it ended: its retention counts from here
        if keep_swept:
            self._tournament_due[name] = 0.0
        else:
            self._tournament_due.pop(name, None)
        if self._archive_outbox:
            self._outbox.setdefault(archive_entry(ARCHIVE_TOURNAMENT, name), 0.0)
        self._tournament_append(name, t, events)
        return True

    async def unschedule_tournament(self, name: str) -> None:
        self._tournament_due.pop(name, None)

    async def claim_entrant(self, name: str, entrant: str, token_hash: str) -> bool:
        t = self._tournaments.get(name)
        if t is None or entrant in t.entrants:
            return False
        t.entrants[entrant] = token_hash
        return True

    async def tournament_events(
        self, name: str, after: int = 0, limit: int = 1000
    ) -> list[StoredEvent]:
        return self._log_after(TournamentLog(name), after, limit)

    def _log_after(self, log: LogId, after: int, limit: int = 1000) -> list[StoredEvent]:
        if isinstance(log, TournamentLog):
            t = self._tournaments.get(log.name)
            return [] if t is None else t.events[after : after + limit]  # ids are 1, 2, 3...
        return self._events_after(log, after, limit)

    async def expire_tournaments(self, finished_retention: float, idle_expiry: float) -> list[str]:
        now = time.time()
        gone = [
            name
            for name, t in self._tournaments.items()
            if archive_entry(ARCHIVE_TOURNAMENT, name) not in self._outbox
            and now - t.touched > (idle_expiry if t.status == "running" else finished_retention)
        ]
        for name in gone:
            del self._tournaments[name]
            self._tournament_due.pop(name, None)
        return gone

    # ------------------------------------------------------------------ leases
    def _due_times(self, schedule: str) -> dict[str, float]:
        """A schedule's jobs -> the monotonic time each is due (held until then)."""
        return {BOT_TURNS: self._bot_due, TOURNAMENTS: self._tournament_due, ARCHIVE: self._outbox}[
            schedule
        ]

    async def claim(self, schedule: str, limit: int, seconds: float) -> list[Lease]:
        due_at = self._due_times(schedule)
        now = time.monotonic()
        due = sorted((at, job) for job, at in due_at.items() if at <= now)[:limit]
        for _, job in due:
            due_at[job] = now + seconds
        return [Lease(schedule, job, _token(now + seconds)) for _, job in due]

    async def renew(self, lease: Lease, seconds: float) -> Lease | None:
        due_at = self._due_times(lease.schedule)
        at = due_at.get(lease.job)
        if at is None:
            return None
        if lease.schedule == BOT_TURNS:  # the token is the game's version
            game = self._games.get(lease.job)
            if game is None or game.version != lease.token:
                return None
        elif _token(at) != lease.token:
            return None
        due_at[lease.job] = held = time.monotonic() + seconds
        return (
            lease if lease.schedule == BOT_TURNS else dataclasses.replace(lease, token=_token(held))
        )

    async def lapse(self, schedule: str) -> int:
        due_at = self._due_times(schedule)
        now = time.monotonic()
        held = [job for job, at in due_at.items() if at > now]
        for job in held:
            due_at[job] = now
        return len(held)

    async def close(self) -> None:
        self._games.clear()
        self._bot_due.clear()
        self._tournaments.clear()
        self._tournament_due.clear()
        self._outbox.clear()
        self._tombstones.clear()


def _token(held_until: float) -> int:
    """A grant's fencing token: its expiry, in microseconds of the monotonic clock."""
    return round(held_until * 1_000_000)


_READ_LIMIT = 1000  # events of one log one read returns at most (the store's page)


class _MemoryEventReader(EventReader):
    """Waits for an append (or ``wake``) to any log. A read looks at a log's events
    only when it is asked from another position than the one its last look ended at,
    or the log was appended to since: not at every watched log on every append."""

    def __init__(self, store: MemoryStore) -> None:
        self._store = store
        self._waiter: asyncio.Future[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        # Log -> the newest event id when last looked at, while nothing was appended.
        self._looked: dict[LogId, int] = {}

    def changed(self, log: LogId) -> None:
        self._looked.pop(log, None)
        self._wake_up()

    def _found(self, positions: Mapping[LogId, int]) -> dict[LogId, list[StoredEvent]]:
        looked = self._looked
        if len(looked) > 2 * len(positions) + 64:  # logs no longer watched
            self._looked = looked = {log: at for log, at in looked.items() if log in positions}
        found = {}
        for log, after in positions.items():
            if looked.get(log) == after:
                continue
            events = self._store._log_after(log, after, _READ_LIMIT)
            if len(events) < _READ_LIMIT:
                looked[log] = events[-1].event_id if events else after
            if events:
                found[log] = events
        return found

    async def read(
        self, positions: Mapping[LogId, int], timeout: float
    ) -> dict[LogId, list[StoredEvent]]:
        found = self._found(positions)
        if found:
            return found
        # No await since the look above: an append from now on ends this wait. A bare
        # future and a timer: asyncio.wait_for costs a task per read.
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
        self._waiter = waiter = self._loop.create_future()
        timer = self._loop.call_later(timeout, self._wake_up)
        try:
            await waiter
        finally:
            timer.cancel()
            self._waiter = None
        return self._found(positions)

    def _wake_up(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def wake(self) -> None:
        self._wake_up()

    async def close(self) -> None:
        self._store._readers.discard(self)
