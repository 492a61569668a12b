"""A finished game's compact record: what replays it, and the replay that rebuilds
its whole event log (and so every view, state and record the store served).

The record keeps the game's metadata (options, seats, seed), its token hashes, its
final version, its clients' request results (so a retried request is answered the
same once the store has forgotten the game) and the log as a list of items:

    "C"                 the ``created`` event, rebuilt from the seed and options
    N (an int)          an ``action`` event of action id N, rebuilt by replay (its
                        actor, text, audience and redacted text come from the engine)
    {"a": N, "x": {}}   the same, plus fields the replay cannot know (a clock, a timeout)
    "F"                 the ``finished`` event, rebuilt from the final position
    {"e": {...}}        any other event as logged (joined, seat_changed)

The encoder checks every rebuilt event against the logged one and keeps the event
as logged wherever they differ, so a decoded log is the logged one exactly; the
final state is checked the same way. Records are stored compressed (zstd; gzip is
read too: docs/archive.md has the measured choice).
"""

from __future__ import annotations

import base64
import gzip
import json
from dataclasses import dataclass, field
from typing import Any

import zstandard

from games import State, get_game
from services.kinds import EventKind, GameStatus
from services.stores import Snapshot, StoredEvent
from services.stores.records import GameMeta
from services.turns import steps
from services.watch import events as ev

FORMAT = 1
ZSTD = "zstd"
GZIP = "gzip"
_ZSTD_LEVEL = 19  # records are written once and read rarely: the smallest is worth it


@dataclass(frozen=True)
class ArchivedGame:
    """A game as read back from the archive: its snapshot and its whole log."""

    snapshot: Snapshot
    events: list[StoredEvent]
    requests: dict[str, dict[str, Any]] = field(default_factory=dict)  # request key -> result


def compress(data: bytes, codec: str = ZSTD) -> bytes:
    if codec == ZSTD:
        return zstandard.ZstdCompressor(level=_ZSTD_LEVEL).compress(data)
    if codec == GZIP:
        return gzip.compress(data, compresslevel=9, mtime=0)
    raise ValueError(f"unknown codec {codec!r}")


def decompress(blob: bytes, codec: str) -> bytes:
    if codec == ZSTD:
        return zstandard.ZstdDecompressor().decompress(blob)
    if codec == GZIP:
        return gzip.decompress(blob)
    raise ValueError(f"unknown codec {codec!r}")


def _dumps(data: Any) -> bytes:
    return json.dumps(data, separators=(",", ":")).encode()


class _Replay:
    """Rebuilds logged events one after another from a game's engine."""

    def __init__(self, meta: GameMeta) -> None:
        self.game_type = meta.game_type
        self.meta = meta
        self.version = 0
        # The log's set-up chance outcomes come before the created event (which closes
        # the creation write), so the replay starts from the seed and options at once.
        self.initial_state = self._new_game()
        self.state: State | None = (
            None if self.initial_state is None else self.initial_state.clone()
        )
        self.initial = b"" if self.initial_state is None else self.initial_state.to_bytes()
        self.applied: list[int] = []  # actions applied since the initial position

    def _new_game(self) -> State | None:
        try:
            meta = self.meta
            return get_game(self.game_type).new_game(meta.players, meta.seed, meta.options)
        except Exception:  # options the engine no longer takes: events are kept as logged
            return None

    def rewind(self) -> None:
        """Back to the position before the last action (replayed from the start: only
        done for an event the engine rebuilt differently, which should not happen)."""
        self.applied.pop()
        self.state = steps.replayed(self.game_type, self.initial, self.applied)

    def apply(self, action: int) -> None:
        assert self.state is not None
        self.state.apply_unchecked(action)
        self.applied.append(action)

    def follow(self, action: int) -> None:
        """Apply an action kept as logged; one the engine cannot apply ends the replay
        (every later event is then kept as logged, and the final state with them)."""
        if self.state is None:
            return
        try:
            self.apply(action)
        except Exception:
            self.state = None

    def created(self) -> dict[str, Any] | None:
        if self.initial_state is None or self.state is None:
            return None
        return ev.created_event(self.initial_state, self.version, self.state.current_player())

    def action(self, action: int) -> dict[str, Any] | None:
        state = self.state
        if state is None or state.is_terminal():
            return None
        try:
            event = ev.action_event(state, action, self.version + 1)
            self.apply(action)
        except Exception:
            return None
        return ev.followed_by(event, state)

    def finished(self) -> dict[str, Any] | None:
        if self.state is None or not self.state.is_terminal():
            return None
        return ev.finished_event(self.state, self.version)

    def saw(self, event: dict[str, Any]) -> None:
        """Follow a logged event (rebuilt or kept): the state and version after it."""
        kind = event["kind"]
        if kind == EventKind.CREATED and ev.initial_state_bytes(event) != self.initial:
            # Not the position the seed and options give: the log's own, with the
            # outcomes before it applied again.
            self.initial = ev.initial_state_bytes(event)
            self.state = steps.replayed(self.game_type, self.initial, self.applied)
        self.version = event.get("version", self.version)


def encode(
    snapshot: Snapshot,
    events: list[StoredEvent],
    requests: dict[str, dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The compact record of a stored game, its complete log (ids 1, 2, 3...) and the
    results of its clients' requests (request key -> result)."""
    replay = _Replay(snapshot.info)
    log: list[Any] = []
    for stored in events:
        event = stored.data
        kind = event["kind"]
        item: Any = {"e": event}
        if kind == EventKind.CREATED:
            if replay.created() == event:
                item = "C"
            replay.saw(event)
        elif kind == EventKind.ACTION:
            applied = len(replay.applied)
            rebuilt = replay.action(event["action"])
            if rebuilt == event:
                item = event["action"]
            elif rebuilt is not None and all(event.get(k) == v for k, v in rebuilt.items()):
                item = {"a": event["action"], "x": {k: event[k] for k in event if k not in rebuilt}}
            elif replay.state is not None:
                # Not what the engine replays: kept as logged, and the position is the
                # log's (its action applied to the position before it).
                if len(replay.applied) > applied:
                    replay.rewind()
                replay.follow(event["action"])
            replay.saw(event)
        elif kind == EventKind.FINISHED:
            if replay.finished() == event:
                item = "F"
            replay.saw(event)
        else:
            replay.saw(event)
        log.append(item)
    record: dict[str, Any] = {
        "format": FORMAT,
        "meta": snapshot.meta,
        "tokens": {str(seat): digest for seat, digest in snapshot.tokens.items()},
        "version": snapshot.version,
        "status": snapshot.status,
        "luck": snapshot.luck,
        "log": log,
    }
    if requests:
        record["requests"] = requests
    if replay.state is None or replay.state.to_bytes() != snapshot.state:
        record["state"] = base64.b64encode(snapshot.state).decode()
    return record


def decode(game_id: str, record: dict[str, Any]) -> ArchivedGame:
    """The snapshot and the full log that ``encode`` was given."""
    if record.get("format") != FORMAT:
        raise ValueError(f"archive record format {record.get('format')!r} is not {FORMAT}")
    meta = record["meta"]
    replay = _Replay(GameMeta.from_dict(meta))
    events: list[StoredEvent] = []
    for item in record["log"]:
        if item == "C":
            event = replay.created()
        elif item == "F":
            event = replay.finished()
        elif isinstance(item, int):
            event = replay.action(item)
        elif "a" in item:
            rebuilt = replay.action(item["a"])
            event = None if rebuilt is None else {**rebuilt, **item["x"]}
        else:
            event = item["e"]
            if event["kind"] == EventKind.ACTION:
                replay.follow(event["action"])
        if event is None:
            raise ValueError(f"archived game {game_id}: its log no longer replays")
        replay.saw(event)
        events.append(StoredEvent(len(events) + 1, event))
    state = (
        base64.b64decode(record["state"])
        if "state" in record
        else (replay.state.to_bytes() if replay.state is not None else b"")
    )
    snapshot = Snapshot(
        game_id=game_id,
        meta=meta,
        state=state,
        version=record["version"],
        status=record.get("status", GameStatus.FINISHED),
        tokens={int(seat): digest for seat, digest in record["tokens"].items()},
        last_event_id=len(events),
        luck=record.get("luck", ""),
        archived=True,
    )
    return ArchivedGame(snapshot, events, record.get("requests", {}))


def pack(record: dict[str, Any], codec: str = ZSTD) -> bytes:
    return compress(_dumps(record), codec)


def unpack(blob: bytes, codec: str) -> dict[str, Any]:
    return json.loads(decompress(blob, codec))
