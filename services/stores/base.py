"""The records the store's protocols take and give (the protocols: ``game_store``).

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

from services.errors import Unavailable
from services.stores.records import GameMeta


class GameExists(ValueError):
    """Raised by ``GameLog.create`` when a game with that id is already stored."""


class GameMoved(Exception):
    """Raised by ``GameLog.claim_seat`` given a version the game has moved past: the
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
    """One compare-and-set write of a game (``GameLog.write``): if the stored version
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
