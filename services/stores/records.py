"""The records the service stores, typed; their layouts are defined here only: a game's
metadata (``GameMeta``, with its ``Seat`` entries, its turn ``Timer`` and its running
``Clock``), and a game's state from its stored bytes (``state_from``). The records it
hands on follow the same rules with the helpers here (``known_fields``,
``written_layout``): a bot turn's job (``services.bots.jobs.BotJob``) and the Celery
task that carries one (``workers.turn_task.TurnTask``).

Each record has one reader and one writer of its layout, ``from_dict`` and ``to_dict``:
the store keeps a game's metadata as JSON in the game's hash (``stores.base.Snapshot``
holds it as read, ``Snapshot.info`` as this record) and Celery sends JSON, so a dict is
the layout; the store and Celery do the JSON.

Rolling upgrades. ``GameMeta``, ``BotJob`` and ``TurnTask`` carry a ``record_version``
(the nested ``Seat``, ``Timer`` and ``Clock`` go with their ``GameMeta``). Layout 1 is
the one written before the field existed, so a record at 1 does not write it: a replica
or worker of the previous release reads what this one writes (that release's job reader
refuses keys it does not know). Every reader here takes a missing ``record_version`` as
1 and gives every field it lacks its default (a record written before the field). The
keys it does not know (a record of a later release) a game's metadata keeps in
``later`` and writes back as they were, so a game rewritten by a replica of this
release in the middle of an upgrade keeps what a newer one wrote; a job or a task is
built anew by each sender and drops them. A later layout adds fields with defaults and
raises ``record_version``; it never renames a field or changes its type.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from games import State, get_game
from services.kinds import SeatControl, SeatKind

LAYOUT = 1  # the layout this release writes, of every record here
DEFAULT_MAX_TIMEOUTS = 3  # a timer's timeouts in a row before its seat is handed over


def state_from(game_type: str, data: bytes) -> State:
    """A game's state from its stored bytes (the only caller of ``from_bytes``)."""
    return get_game(game_type).state_class.from_bytes(data)


@functools.cache
def _fields(cls: type) -> frozenset[str]:
    return frozenset(f.name for f in dataclasses.fields(cls))


def known_fields(cls: type, data: Mapping[str, Any]) -> dict[str, Any]:
    """``data`` as keyword arguments of ``cls``: its fields, ``record_version`` (1 when
    missing) and, when ``cls`` keeps them, the keys it does not know as ``later``."""
    fields = _fields(cls)
    names = fields - {"later"}  # never read from a key: a stored "later" is a later key
    known = {name: value for name, value in data.items() if name in names}
    if "later" in fields:
        known["later"] = {name: value for name, value in data.items() if name not in names}
    if "record_version" in names:
        known.setdefault("record_version", 1)
    return known


def _fields_as_json(record: Any) -> dict[str, Any]:
    """A flat record's fields in their order, tuples as lists (``later`` left out)."""
    values = ((f.name, getattr(record, f.name)) for f in dataclasses.fields(record))
    return {k: list(v) if isinstance(v, tuple) else v for k, v in values if k != "later"}


def written_layout(
    layout: dict[str, Any], later: Mapping[str, Any], version: int = 1
) -> dict[str, Any]:
    """``layout`` with the later layout's keys it was read with, and its
    ``record_version``, written from layout 2 on (see above)."""
    written = {**later, **layout} if later else layout
    return written if version == 1 else {**written, "record_version": version}


@dataclass(frozen=True)
class Seat:
    """Who plays one seat: a person or a bot (of ``level``) and, once it changed hands,
    how (``control``); ``decline_offers``: its player declines every domestic offer;
    ``runner``: a registered bot plays it through its runner (``gamehost bot run``).
    A runner's seat is a player's seat to the turns (its answers come in with the seat's
    token), and a bot's to everyone who reads the game (``shown_kind``)."""

    kind: SeatKind = SeatKind.HUMAN
    level: str = ""
    name: str = ""
    control: SeatControl = SeatControl.AS_CREATED
    decline_offers: bool = False
    runner: bool = False
    # The account the seat belongs to (JoinGame with its key; docs/accounts.md) and its
    # kind ("human", "bot"); "" for a guest's seat (a name alone) or a house bot's.
    account: str = ""
    account_kind: str = ""
    later: Mapping[str, Any] = field(default_factory=dict)  # a later layout's keys

    @property
    def is_bot(self) -> bool:
        """True when a bot plays the seat now (as created, or away, or handed over)."""
        return self.kind == SeatKind.BOT

    @property
    def shown_kind(self) -> SeatKind:
        """The kind every output shows (state, lists, records, archive, export): a bot
        for a house level's seat, for a registered bot's, played by its runner, and for
        a bot account's seat."""
        return SeatKind.BOT if self.runner or self.account_kind == "bot" else self.kind

    def to_dict(self) -> dict[str, Any]:
        layout: dict[str, Any] = {"kind": str(self.kind), "level": self.level, "name": self.name}
        if self.control != SeatControl.AS_CREATED:
            layout["control"] = str(self.control)
        if self.decline_offers:
            layout["decline_offers"] = True
        if self.runner:
            layout["runner"] = True
        if self.account:
            layout.update(account=self.account, account_kind=self.account_kind)
        return written_layout(layout, self.later)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Seat:
        known = known_fields(cls, data)
        known["kind"] = SeatKind(known.get("kind", SeatKind.HUMAN))
        known["control"] = SeatControl(known.get("control", SeatControl.AS_CREATED))
        known["decline_offers"] = bool(known.get("decline_offers"))
        known["runner"] = bool(known.get("runner"))
        return cls(**known)


@dataclass(frozen=True)
class Timer:
    """A timed game's settings (``CreateGame.timer``; the rules: ``services.turns.clock``)."""

    move: float  # seconds per move
    bank: float = 0.0  # seconds per seat for the whole game, beyond the move time
    fallback: str = "random"  # the level that plays a timed-out move
    max_timeouts: int = DEFAULT_MAX_TIMEOUTS  # in a row: handed over for good (0: never)
    later: Mapping[str, Any] = field(default_factory=dict)  # a later layout's keys

    def to_dict(self) -> dict[str, Any]:
        return written_layout(_fields_as_json(self), self.later)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Timer:
        return cls(**known_fields(cls, data))


@dataclass(frozen=True)
class Clock:
    """A timed game's clock: the seat whose time runs (None when no human seat is to
    move), the version it started at, when it started and runs out; per seat the bank
    left and the timeouts in a row."""

    seat: int | None = None
    version: int = 0
    started: float = 0.0
    deadline: float = 0.0
    banks: tuple[float, ...] = ()
    strikes: tuple[int, ...] = ()
    later: Mapping[str, Any] = field(default_factory=dict)  # a later layout's keys

    def runs_at(self, version: int) -> bool:
        """Whether a human seat's time runs at ``version``."""
        return self.seat is not None and self.version == version

    def left(self, version: int, now: float) -> float | None:
        """Seconds until the time running at ``version`` runs out (0 or less: out of
        time); None when none runs then."""
        return self.deadline - now if self.runs_at(version) else None

    def to_dict(self) -> dict[str, Any]:
        return written_layout(_fields_as_json(self), self.later)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Clock:
        known = known_fields(cls, data)
        known["banks"] = tuple(known.get("banks", ()))
        known["strikes"] = tuple(known.get("strikes", ()))
        return cls(**known)


@dataclass(frozen=True)
class GameMeta:
    """A game's metadata as stored (never sent to clients: it holds the secret seed)."""

    game_type: str = ""
    players: int = 0
    options: Mapping[str, Any] = field(default_factory=dict)  # parsed by the engine
    seats: tuple[Seat, ...] = ()
    seed: int = 0
    created: float = 0.0  # Unix seconds
    private: bool = False
    spectators: bool = True
    invites: Mapping[str, str] = field(default_factory=dict)  # seat (as text) -> code hash
    creator: str = ""  # the creator token's hash
    bots_by_anyone: bool = False
    rejoin_handed_seats: bool = False
    # Rated when it finishes (quick play, or CreateGame rated): services.accounts.ratings.
    rated: bool = False
    timer: Timer | None = None
    clock: Clock | None = None  # set with ``timer``
    tournament: Mapping[str, Any] | None = None  # a tournament table's name, round, table
    deal_stream: bool = False  # chance drawn by occurrence (``services.turns.steps.Luck``)
    # Every game playing this game's deal (itself too): a ladder set's rotations, a
    # tournament's duplicate group. Its hidden actions stay hidden until all are over.
    deal_games: tuple[str, ...] = ()
    # Unix seconds (to the microsecond) of the commit that finished the game; 0: not
    # finished, or finished before this was kept (``services.turns.steps.finished_meta``).
    finished_at: float = 0.0
    record_version: int = LAYOUT
    later: Mapping[str, Any] = field(default_factory=dict)  # a later layout's keys

    @property
    def tournament_name(self) -> str:
        return str((self.tournament or {}).get("name", ""))

    def with_seat(self, index: int, seat: Seat) -> GameMeta:
        seats = list(self.seats)
        seats[index] = seat
        return dataclasses.replace(self, seats=tuple(seats))

    def to_dict(self) -> dict[str, Any]:
        layout: dict[str, Any] = {
            "game_type": self.game_type,
            "players": self.players,
            "options": dict(self.options),
            "seats": [seat.to_dict() for seat in self.seats],
            "seed": self.seed,
            "created": self.created,
            "private": self.private,
            "spectators": self.spectators,
            "invites": dict(self.invites),
            "creator": self.creator,
            "bots_by_anyone": self.bots_by_anyone,
            "rejoin_handed_seats": self.rejoin_handed_seats,
        }
        if self.timer is not None:
            layout["timer"] = self.timer.to_dict()
        if self.clock is not None:
            layout["clock"] = self.clock.to_dict()
        if self.tournament is not None:
            layout["tournament"] = dict(self.tournament)
        if self.deal_stream:
            layout["deal_stream"] = True
        if self.rated:
            layout["rated"] = True
        if self.deal_games:
            layout["deal_games"] = list(self.deal_games)
        if self.finished_at:
            layout["finished_at"] = self.finished_at
        return written_layout(layout, self.later, self.record_version)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameMeta:
        known = known_fields(cls, data)
        known["seats"] = tuple(Seat.from_dict(s) for s in known.get("seats", ()))
        # Falsy for none: a game without a timer wrote no key (or null).
        known["timer"] = Timer.from_dict(data["timer"]) if known.get("timer") else None
        known["clock"] = Clock.from_dict(data["clock"]) if known.get("clock") else None
        known["private"] = bool(known.get("private"))
        known["deal_stream"] = bool(known.get("deal_stream"))
        known["rated"] = bool(known.get("rated"))
        known["deal_games"] = tuple(known.get("deal_games") or ())
        return cls(**known)


# The joined names' key of a seat's account, beside its name's (the token's hash: hex,
# so the two never meet).
ACCOUNT = "account:"


def with_joined_names(
    meta: dict[str, Any], tokens: Mapping[int, str], names: Mapping[str, str]
) -> dict[str, Any]:
    """A game's stored metadata with the names its seats were joined with (JoinGame's
    ``name``) and the accounts they were joined by (``ACCOUNT + hash``: "kind:name").
    A store keeps those apart from the metadata, by token hash: a join does not move
    the version, so a write built on the game before the join would lose a name
    written into the metadata; a name counts while its token holds the seat (a seat
    changing hands gets its name from the metadata the seat change wrote)."""
    joined: dict[int, dict[str, str]] = {}
    for seat, digest in tokens.items():
        found = {"name": names[digest]} if digest in names else {}
        kind, _, account = names.get(ACCOUNT + digest, "").partition(":")
        if account:
            found.update(account=account, account_kind=kind)
        if found:
            joined[seat] = found
    if not joined:
        return meta
    seats = [
        {**seat, **joined[index]} if index in joined else seat
        for index, seat in enumerate(meta.get("seats", ()))
    ]
    return {**meta, "seats": seats}
