"""The store interface every implementation passes the same contract tests against.

A game is: metadata (type, seats, options, secret seed, initial state; who plays
each seat and the turn clocks change with commits), the current state blob with a version, seat token hashes, the results
of applied client requests (for idempotent retries) and an append-only event
log. Every change to the state is one atomic compare-and-set on the version
that also appends its events and records its request id.

Event ids are per-game sequence numbers: 1 for a game's first event, then
increasing by one (only "increasing" is promised to clients). 0 means "before the
first event" wherever an id is a position.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from limits.aio.storage import MemoryStorage, Storage

from services.errors import Unavailable
from services.stores.records import GameMeta


class GameExists(ValueError):
    """Raised by ``GameStore.create`` when a game with that id is already stored."""


class GameMoved(Exception):
    """Raised by ``GameStore.claim_seat`` given a version the game has moved past: the
    join's event (whose turn it is) was built on an older position."""


class NotReplicated(Unavailable):
    """A write reached the primary but too few replicas confirmed it in time
    (``--redis-min-replicas``): a failover could still drop it, so nobody may be told
    it was accepted. Retrying with the same request id is safe (it is answered from
    the first try once that is held by enough replicas)."""


@dataclass(frozen=True)
class NewGame:
    game_id: str
    meta: dict[str, Any]  # GameMeta.to_dict(); holds the secret seed: never sent to clients
    state: bytes
    version: int
    status: str
    events: list[dict[str, Any]] = field(default_factory=list)
    bot_due_in: float | None = None  # a bot moves first: due in this many seconds (0: now)
    luck: str = ""  # deal-stream games: chance draws so far per kind (services.turns.steps.Luck)


@dataclass(frozen=True)
class Snapshot:
    game_id: str
    meta: dict[str, Any]  # as stored: read it as ``info``
    state: bytes
    version: int
    status: str
    tokens: dict[int, str]  # seat -> token hash
    request_result: dict[str, Any] | None = None  # set when a looked-up request id was applied
    last_event_id: int = 0  # the newest event's id (0: no event yet)
    bot_status: str = ""  # "<version>:<status>" set by whoever runs the bot turn (see below)
    luck: str = ""  # deal-stream games: chance draws so far per kind (services.turns.steps.Luck)
    archived: bool = False  # read back from the SQL archive (services.archive), not the store

    @functools.cached_property
    def info(self) -> GameMeta:
        """The game's metadata as its typed record (read once per snapshot)."""
        return GameMeta.from_dict(self.meta)

    def replaced(self, **changes: Any) -> Snapshot:
        """A copy with ``changes``; while ``meta`` stays, so does its record (``info``
        is not read again)."""
        copy = dataclasses.replace(self, **changes)
        if "meta" not in changes and "info" in self.__dict__:
            copy.__dict__["info"] = self.__dict__["info"]
        return copy

    def current_bot_status(self) -> str:
        """What the bot to move at this version is doing ("" when nobody said)."""
        version, _, status = self.bot_status.partition(":")
        return status if version == str(self.version) else ""


@dataclass(frozen=True)
class StoredEvent:
    event_id: int
    data: dict[str, Any]


@dataclass(frozen=True)
class TournamentSnapshot:
    """A tournament as stored: its record (definition, creation time), its status,
    the tables started (index -> table JSON with its game id), their results
    (index -> result JSON, each written once) and external entrants' token hashes.
    (External seats' move clocks are the tables' own turn timers: ``services.turns.clock``.)"""

    name: str
    record: dict[str, Any]
    status: str
    tables: dict[int, dict[str, Any]]
    results: dict[int, dict[str, Any]]
    entrants: dict[str, str]
    last_event_id: int = 0


@dataclass(frozen=True)
class Tombstone:
    """A finished game's remains in the store once it lives in the archive alone."""

    status: str
    game_type: str
    finished_at: float  # Unix seconds of its last event


def archive_entry(kind: str, name: str) -> str:
    """An archive outbox entry: ``game:<id>`` or ``tournament:<name>``."""
    return f"{kind}:{name}"


ARCHIVE_GAME = "game"
ARCHIVE_TOURNAMENT = "tournament"


class CommitOutcome(enum.Enum):
    APPLIED = "applied"
    DUPLICATE = "duplicate"  # the request id was applied before; nothing changed
    STALE = "stale"  # the version moved on; nothing changed
    SEAT_TAKEN = "seat_taken"  # a seat's token was not the expected one; nothing changed
    NOT_FOUND = "not_found"


@dataclass(frozen=True)
class CommitResult:
    outcome: CommitOutcome
    version: int = 0  # the stored version after the call
    event_ids: list[int] = field(default_factory=list)
    request_result: dict[str, Any] | None = None  # the earlier result, for DUPLICATE
    # The metadata as this write stored it, where the commit changed it (a timed game's
    # clock moved on: ``services.turns.steps.commit_step``); None: unchanged, or not kept.
    meta: dict[str, Any] | None = None


@dataclass(frozen=True)
class TournamentLog:
    """Names a tournament's event log where a game id names a game's: event readers
    and the watch hub follow both kinds of log alike."""

    name: str


LogId = str | TournamentLog  # a game id, or a tournament's log


class EventReader(ABC):
    """One waiter on many logs at once: the watch hub reads every watched game and
    tournament of a replica through one of these (for Redis: one XREAD on a connection
    of its own, so blocking reads never take connections that other calls need)."""

    @abstractmethod
    async def read(
        self, positions: Mapping[LogId, int], timeout: float
    ) -> dict[LogId, list[StoredEvent]]:
        """Events after each log's position (log -> event id), waiting up to
        ``timeout`` seconds for at least one; logs without new events are left out."""

    @abstractmethod
    async def wake(self) -> None:
        """Make a ``read`` in progress return soon (the set of games changed)."""

    @abstractmethod
    async def close(self) -> None: ...


@dataclass(frozen=True)
class Commit:
    """One compare-and-set write of a game (``GameStore.write``): if the stored version
    equals ``expected_version`` (and ``request_key`` was never applied), the state,
    version, events, request result and bot-turn schedule are written at once.

    ``bot_due_in``: None when nothing is due after this commit (the game leaves
    the bot-turn schedule), else the seconds until a turn is due (0: now; more:
    the committer keeps it leased because it goes on to play it, or a human seat's
    turn clock runs out then). ``luck``: the game's new chance-draw counts
    (deal-stream games), None to leave them. ``meta``: the game's new metadata
    (who plays each seat, turn clocks), None to leave it. ``tokens``: seat ->
    (the token hash it must have now, "" for none; its new one, "" to remove it):
    if any seat's token is not the expected one, nothing is written (SEAT_TAKEN).

    ``turn_request``: ``request_key`` is a turn's, made by the service itself (a bot's
    move, a timed-out seat's fallback move: ``bot:<version>``, ``timeout:<version>``).
    The store keeps only a game's newest turn key, in the game's own record, so it
    goes with the turn: a later turn replaces it, and a redelivery of an older turn
    is refused by the version check alone (STALE). A client's request key is kept
    with the game's other client requests, for ``request_ttl`` after the newest one
    (``request_results``), and archived with the game."""

    game_id: str
    expected_version: int
    new_version: int
    state: bytes
    status: str
    events: list[dict[str, Any]]
    request_key: str | None = None
    request_result: dict[str, Any] | None = None
    bot_due_in: float | None = None
    luck: str | None = None
    meta: dict[str, Any] | None = None
    tokens: Mapping[int, tuple[str, str]] | None = None
    turn_request: bool = False


class GameStore(ABC):
    """Async storage of games. Implementations must make ``commit`` and
    ``claim_seat`` atomic, also across processes sharing the store."""

    @abstractmethod
    async def create(self, game: NewGame) -> list[int]:
        """Store a new game with its first events; returns their event ids. Raises
        ``GameExists`` (and changes nothing) if the id is taken, also by a game
        archived and forgotten whose tombstone is still kept."""

    @abstractmethod
    async def load(self, game_id: str, request_key: str | None = None) -> Snapshot | None:
        """The game's current snapshot, or None. With ``request_key``, also the
        result recorded for that request, if it was applied."""

    async def commit(self, *fields: Any, **named: Any) -> CommitResult:
        """``write(Commit(*fields, **named))``: a commit with its fields spelled out."""
        return await self.write(Commit(*fields, **named))

    @abstractmethod
    async def write(self, commit: Commit) -> CommitResult:
        """If the stored version equals ``commit.expected_version`` (and its
        ``request_key`` was never applied): write the state, set the version, append the
        events, record the request result and schedule the next bot turn, all at once
        (the fields: ``Commit``)."""

    @abstractmethod
    async def request_results(self, game_id: str) -> dict[str, dict[str, Any]]:
        """Every client request of the game the store still remembers: request key ->
        its result (an archiver keeps them with the game, so a retry is answered the
        same once the store has forgotten the game)."""

    @abstractmethod
    async def claim_seat(
        self,
        game_id: str,
        seat: int,
        token_hash: str,
        event: dict[str, Any],
        version: int | None = None,
        name: str = "",
    ) -> bool:
        """Atomically give a free seat its token hash (and log ``event``); False if taken
        (or no such game). With ``version``: ``GameMoved`` if the game is past it. With
        ``name``: the seat is named so in the metadata ``load`` reads while the token
        holds it (``records.with_joined_names``), without moving the version."""

    @abstractmethod
    async def events(self, game_id: str, after: int = 0, limit: int = 1000) -> list[StoredEvent]:
        """Logged events with an id greater than ``after`` (0 = from the start)."""

    @abstractmethod
    async def wait_events(self, game_id: str, after: int, timeout: float) -> list[StoredEvent]:
        """Like ``events`` but waits up to ``timeout`` seconds for at least one."""

    @abstractmethod
    def event_reader(self) -> EventReader:
        """A new reader of many logs, games' and tournaments' (close it when done)."""

    async def log_events(self, log: LogId, after: int = 0, limit: int = 1000) -> list[StoredEvent]:
        """``events`` of a game, or ``tournament_events`` of a tournament's log."""
        if isinstance(log, TournamentLog):
            return await self.tournament_events(log.name, after, limit)
        return await self.events(log, after, limit)

    async def log_exists(self, log: LogId) -> bool:
        """Whether the game, or the tournament, of a log is still stored."""
        if isinstance(log, TournamentLog):
            return await self.load_tournament(log.name) is not None
        return await self.load(log) is not None

    @abstractmethod
    async def list_games(self, limit: int = 100) -> list[Snapshot]:
        """Newest games first."""

    # -------------------------------------------------------------- limits and secrets
    @abstractmethod
    async def secret(self) -> bytes:
        """This deployment's server secret (made once, then the same for every replica
        sharing the store); mixed into client-supplied seeds."""

    @abstractmethod
    async def expire_games(self, finished_retention: float, idle_expiry: float) -> list[str]:
        """Delete every game finished more than ``finished_retention`` seconds ago, or
        with no activity (event) for ``idle_expiry`` seconds; returns their ids."""

    @abstractmethod
    async def reserve_live_game(self, owner: str, game_id: str, cap: int) -> bool:
        """Count ``game_id`` as a live (unfinished, unexpired) game of ``owner`` unless
        the owner already has ``cap`` of them: False then. Atomic across replicas."""

    def limit_storage(self) -> Storage:
        """Where the rate limits (``services.limits.quotas``) count: this process's
        memory; a Redis store counts in its Redis, so the limits hold across replicas."""
        return MemoryStorage()

    async def settle_layout(self) -> int:
        """At a server's start: the layout this store writes (Redis: a new deployment
        takes the newest, one that exists keeps its own until ``gamehost store
        upgrade``; ``redis_store.LAYOUT``). The in-memory store has one."""
        return 2

    @abstractmethod
    async def ping(self) -> None:
        """Return when the store answers; raise (e.g. ConnectionError) when it does not."""

    # ------------------------------------------------------------------ bot-turn schedule
    # Every game whose next move is a bot's is in a durable schedule, written by the
    # same atomic create/commit that made the bot due, so a due turn is never lost.
    # A replica claims due turns with a lease and renews it while the turn runs; a
    # turn whose lease runs out (its replica or worker died) is due again.

    @abstractmethod
    async def claim_bot_turns(self, limit: int, lease: float) -> list[str]:
        """Up to ``limit`` games whose bot turn is due, each now leased for ``lease`` s."""

    @abstractmethod
    async def renew_bot_turn(self, game_id: str, version: int, lease: float) -> bool:
        """Push the game's due time to ``lease`` s from now if it is still scheduled and
        still at ``version`` (a heartbeat, a backoff, or 0 to hand it back); True if so."""

    @abstractmethod
    async def drop_bot_turn(self, game_id: str) -> None:
        """Take a game that no longer exists out of the schedule."""

    @abstractmethod
    async def lapse_bot_turn_leases(self) -> int:
        """Make every leased (or held) bot turn due now; returns how many. After the
        store was away (a failover), a turn handed to a Celery worker or searched by a
        replica may have been lost with it: it is played again at once rather than
        when its lease runs out (a duplicate commit changes nothing)."""

    async def release_bot_turn(self, game_id: str) -> None:
        """A claimed game turned out to have no bot due: take it out of the schedule
        unless it was scheduled again since the claim. Here, nothing to do: the commit
        that took the game's bot turn away took it out of the schedule too (a Redis
        Cluster, whose schedule is on a slot of its own, does it here)."""
        return None

    @abstractmethod
    async def bot_turn_due_in(self, game_id: str) -> float | None:
        """Seconds until the game's bot turn is due (negative: overdue), None if unscheduled."""

    @abstractmethod
    async def bot_turn_backlog(self) -> tuple[int, float]:
        """(bot turns in the schedule, seconds the most overdue one is past its due
        time: 0 when none is). A turn being played is leased, so not overdue; one that
        nobody plays grows older (the ``gamehost_oldest_pending_bot_turn_seconds`` alert)."""

    @abstractmethod
    async def set_bot_status(self, game_id: str, version: int, status: str) -> None:
        """Record what the bot turn at ``version`` is doing (read back in ``Snapshot``)."""

    # ------------------------------------------------------------------ archive outbox
    # While the deployment archives (``set_archiving``), the commit that finishes a game (and the status change that ends a tournament)
    # puts ``game:<id>`` (``tournament:<name>``) on the archive outbox in the same atomic
    # write. An archiver (services.archive.archiver) claims entries with a lease like bot
    # turns, copies each into SQL idempotently, then acks it: an entry whose archiver
    # died is due again when its lease runs out, so every one is archived exactly once.
    # Expiry keeps a game or tournament while its entry is on the outbox.

    @abstractmethod
    async def set_archiving(self, on: bool) -> None:
        """Whether finishing commits fill the outbox, for every process writing to this
        store (Celery workers too). A server with an archive turns it on at start, one
        with ``--archive none`` off (which also drops the outbox: nothing would drain it)."""

    @abstractmethod
    async def claim_archive(self, limit: int, lease: float) -> list[str]:
        """Up to ``limit`` due outbox entries, each now leased for ``lease`` s."""

    @abstractmethod
    async def ack_archive(self, entry: str) -> None:
        """Take an archived entry off the outbox."""

    @abstractmethod
    async def archive_backlog(self) -> int:
        """Entries on the outbox (leased ones included)."""

    @abstractmethod
    async def forget_archived(
        self, game_id: str, last_event_id: int, game_type: str, tombstone_ttl: float
    ) -> bool:
        """Delete a finished game the archive now holds (an archiver calls it after its
        insert committed): its state, tokens, log, request results and turn key leave
        the store, and its entries in the index and the bot-turn schedule. A tombstone
        (``Tombstone``, of ``game_type``) stays ``tombstone_ttl`` seconds, so the id is
        not given out again meanwhile. Nothing happens (False) unless the game is
        finished and its newest event is still ``last_event_id``, the one archived: a
        late write is never lost."""

    @abstractmethod
    async def tombstone(self, game_id: str) -> Tombstone | None:
        """What is left of a game ``forget_archived`` deleted, until its tombstone expires."""

    # ------------------------------------------------------------------ tournaments
    # A tournament's state is written only by set-if-absent (a table's start, a
    # table's result, an entrant's token) and one status change, each with its
    # events in the same atomic write, so replicas racing over one tournament never
    # count a table twice. Running tournaments are in a swept schedule, leased like
    # bot turns.

    @abstractmethod
    async def create_tournament(
        self, name: str, record: dict[str, Any], status: str, events: list[dict[str, Any]]
    ) -> bool:
        """Store a new tournament (due in the schedule at once); False if the name exists."""

    @abstractmethod
    async def load_tournament(self, name: str) -> TournamentSnapshot | None: ...

    @abstractmethod
    async def list_tournaments(self, limit: int = 100) -> list[str]:
        """Tournament names, newest first."""

    @abstractmethod
    async def start_table(
        self, name: str, index: int, table: dict[str, Any], events: list[dict[str, Any]]
    ) -> bool:
        """Record table ``index`` as started (set-if-absent, with its events)."""

    @abstractmethod
    async def finish_table(
        self, name: str, index: int, result: dict[str, Any], events: list[dict[str, Any]]
    ) -> bool:
        """Record table ``index``'s result (set-if-absent, with its events)."""

    @abstractmethod
    async def set_tournament_status(
        self, name: str, status: str, events: list[dict[str, Any]], keep_swept: bool = False
    ) -> bool:
        """Move a running tournament to ``status`` (out of the schedule; with
        ``keep_swept``, in it and due at once, until ``unschedule_tournament``: a
        cancelled tournament's sweep ends its table games); False if it was not running."""

    @abstractmethod
    async def unschedule_tournament(self, name: str) -> None:
        """Take a tournament out of the sweep schedule (no-op when it is not in it)."""

    @abstractmethod
    async def claim_entrant(self, name: str, entrant: str, token_hash: str) -> bool:
        """Give an external entrant its token hash (set-if-absent)."""

    @abstractmethod
    async def tournament_events(
        self, name: str, after: int = 0, limit: int = 1000
    ) -> list[StoredEvent]: ...

    @abstractmethod
    async def expire_tournaments(self, finished_retention: float, idle_expiry: float) -> list[str]:
        """Delete every tournament that ended (finished or cancelled) more than
        ``finished_retention`` seconds ago, or still running with no event for
        ``idle_expiry`` seconds: the policy of ``expire_games``. Returns their names.
        Their table games are ordinary games and expire as such."""

    @abstractmethod
    async def claim_tournaments(self, limit: int, lease: float) -> list[str]:
        """Up to ``limit`` running tournaments due a sweep, each leased for ``lease`` s."""

    @abstractmethod
    async def renew_tournament(self, name: str, lease: float) -> None:
        """Due again in ``lease`` s, if still in the schedule."""

    @abstractmethod
    async def close(self) -> None: ...
