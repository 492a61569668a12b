"""Reading a game as its caller may see it: the live event feed (``watch``) and the
record (``record``), with the rule of when a log becomes public. ``GameHost`` makes one
and hands it what it reads through: the store, the archive, the watch hub, its loader,
its read check and the positions it keeps."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from games import (
    TERMINAL,
    State,
)
from services.archive.archive import Archive
from services.errors import (
    InvalidArgument,
    NotFound,
    PermissionDenied,
)
from services.kinds import EventKind, FinishReason, GameStatus
from services.limits import access
from services.play.hooks import AllOver, Loader, Viewer
from services.play.positions import RecentPositions
from services.stores import (
    GameLog,
    Snapshot,
    StoredEvent,
)
from services.turns import seat_control, steps
from services.views import revealed_actions, view_of
from services.watch import events as ev
from services.watch.hub import Subscription, WatchHub


@dataclass(frozen=True)
class GameView:
    """A game as one caller sees it."""

    snapshot: Snapshot
    state: State
    viewer: int | None
    invite_codes: dict[int, str] = field(default_factory=dict)  # private games' creator only
    creator_token: str = ""  # CreateGame's answer only
    withheld: bool = False  # over, but shown as while it ran (``access.log_public``)

    @property
    def over(self) -> bool:
        """Finished: played out, or abandoned where it stood (``steps.abandon``)."""
        return self.snapshot.status == GameStatus.FINISHED

    @property
    def to_move(self) -> int:
        """Who acts next: TERMINAL once the game is over, however it ended."""
        return TERMINAL if self.over else self.state.current_player()

    @property
    def finish_reason(self) -> str:
        """Why the game is over ("" while it runs): ``kinds.FinishReason``."""
        if not self.over:
            return ""
        played_out = self.state.is_terminal()
        return FinishReason.PLAYED_OUT if played_out else FinishReason.ABANDONED

    @property
    def legal_actions(self) -> list[tuple[int, str]]:
        state = self.state
        if self.viewer is None or state.current_player() != self.viewer or self.over:
            return []
        if self.snapshot.info.seats[self.viewer].is_bot:
            return []  # away: a bot plays the seat until the player takes it back
        return [(a, state.action_to_string(a)) for a in state.legal_actions()]


@dataclass(frozen=True)
class Record:
    """A game's log as one caller sees it. With views: ``initial_view`` and each
    entry's ``"view"`` are the caller's views (``State.view``) of those positions."""

    snapshot: Snapshot
    initial_state: bytes
    entries: list[dict[str, Any]]
    returns: list[float]
    initial_to_move: int
    initial_view: Any = None
    seat_changes: list[dict[str, Any]] = field(default_factory=list)  # with "event_id"
    finish_reason: str = ""  # why the game is over ("" while it runs): kinds.FinishReason
    next_offset: int | None = None  # paged: the first entry of the next page, if any


class Reading:
    """WatchGame's feed (``watch``), GetRecord's record (``record``) and the log they
    both page through (``logged``)."""

    def __init__(
        self,
        store: GameLog,
        archive: Archive | None,
        hub: WatchHub,
        load: Loader,
        viewer: Viewer,
        all_over: AllOver,
        positions: RecentPositions,
    ) -> None:
        self.store = store
        self.archive = archive
        self.hub = hub
        self.load = load
        self.viewer = viewer
        self.all_over = all_over
        self.positions = positions

    async def log_public(self, snapshot: Snapshot) -> bool:
        """Whether every hidden action of the game is public, to GetRecord, WatchGame,
        GetState and Hint alike: ``access.log_public``, where that rule is defined."""
        return await access.log_public(snapshot, self.all_over)

    async def watch(
        self, game_id: str, token: str, after: int
    ) -> AsyncIterator[tuple[StoredEvent, dict[str, Any]]]:
        """Events after ``after`` as the caller may see them; ends after the game's end.

        An event that leaves the caller to move and is the newest one also carries the
        caller's legal actions (``"legal"``: (id, notation) pairs), so a client can play
        from this stream alone.

        A seat token's hold on its seat is checked again at every event: once a seat
        change later than the stream's opening revokes it (handed over for good, out of
        time for good, rejoined with a new token), that seat change is the last event
        and the stream ends with PermissionDenied: never another seat's view, nor a
        spectator's instead."""
        after = check_after_event_id(after)
        snapshot = await self.load(game_id)
        viewer = self.viewer(snapshot, token)
        # The token held ``viewer`` as of this event: seat changes up to it came before
        # the token's hold (a rejoined seat's log shows its hand-over); later ones end it.
        held_at = snapshot.last_event_id
        finished = snapshot.status == GameStatus.FINISHED
        if after > snapshot.last_event_id:
            if finished:
                return  # resumed past the end: nothing more will come
            raise InvalidArgument(
                f"after_event_id {after} is past this game's newest event "
                f"{snapshot.last_event_id}: resume from an event id the server sent",
                field="after_event_id",
            )
        reveal = await self.log_public(snapshot)
        async with contextlib.AsyncExitStack() as stack:
            events: AsyncIterator[StoredEvent]
            if finished:
                events = self.logged(snapshot, after)  # a replay: the log is complete
            else:
                events = await stack.enter_async_context(
                    self.hub.subscribe(game_id, after, snapshot.last_event_id)
                )
            last = after
            while True:
                try:
                    event = await anext(events)
                except StopAsyncIteration:
                    return
                except NotFound:
                    # The game left the store while followed: archived and forgotten
                    # (the archiver forgets a game moments after its end). The rest of
                    # its log is the archive's.
                    if not isinstance(events, Subscription):
                        raise
                    events = self._moved_log(game_id, last)
                    continue
                last = event.event_id
                seen = ev.visible(event.data, viewer, reveal_all=reveal)
                if (
                    viewer is not None
                    and event.event_id > held_at
                    and seat_control.revokes_token(event.data, viewer)
                ):
                    yield event, seen  # public: the seat change says why the stream ends
                    raise PermissionDenied(
                        f"your token no longer holds seat {viewer} of game {game_id} "
                        f"({event.data['reason'].replace('_', ' ')} at event {event.event_id}): "
                        "this stream ends; watch with the seat's new token, or without a "
                        "token as a spectator where the game admits them"
                    )
                if isinstance(events, Subscription) and self._leaves_to(seen, viewer, events):
                    legal = await self._legal_after(game_id, event.event_id, viewer)
                    if legal is not None:
                        seen["legal"] = legal
                yield event, seen
                if event.data["kind"] == EventKind.FINISHED:
                    return

    async def _moved_log(self, game_id: str, after: int) -> AsyncIterator[StoredEvent]:
        """The log after ``after`` of a game the store no longer has, from the archive
        (it was archived, then forgotten); NotFound when the archive lacks it too."""
        try:
            snapshot = await self.load(game_id)
        except NotFound:
            snapshot = None
        if snapshot is None or not snapshot.archived:
            raise NotFound(f"game {game_id} has expired")
        async for event in self.logged(snapshot, after):
            yield event

    @staticmethod
    def _leaves_to(seen: dict[str, Any], viewer: int | None, feed: Subscription) -> bool:
        """Whether this event leaves ``viewer`` to move with no later event at hand
        (then one store read tells whether it is still the newest)."""
        return viewer is not None and seen.get("to_move") == viewer and not feed.has_pending

    async def _legal_after(
        self, game_id: str, event_id: int, viewer: int
    ) -> list[tuple[int, str]] | None:
        """The viewer's legal actions if ``event_id`` is still the game's newest event
        (None otherwise: the position has moved on, so they would be stale).

        When this replica wrote that event or read it as the newest (``positions``) and
        its reader has seen nothing later, the state kept is the position: no store
        read, no state decode. Otherwise the store says, and the position read is kept
        (the seat's SubmitAction and a ladder bot's act start from it)."""
        kept = self.positions.at(game_id, event_id)
        if kept is not None and self.hub.newest(game_id) == event_id:
            return GameView(kept[0], kept[1], viewer).legal_actions
        snapshot = await self.store.load(game_id)
        if snapshot is None or snapshot.last_event_id != event_id:
            return None
        state = steps.load_state(snapshot)
        self.positions.keep(snapshot, state)
        return GameView(snapshot, state, viewer).legal_actions

    async def logged(self, snapshot: Snapshot, after: int = 0) -> AsyncIterator[StoredEvent]:
        """The stored log after ``after``, page by page, up to its current end at least
        as far as ``snapshot`` (an archived game's from the archive, where its whole log
        was rebuilt). A store that forgets the game between two pages (the archiver
        moved it) leaves the rest to the archive: never a log cut short."""
        game_id = snapshot.game_id
        if snapshot.archived and self.archive is not None:
            archived = await self.archive.game(game_id)
            for event in archived.events if archived is not None else []:
                if event.event_id > after:
                    yield event
            return
        while batch := await self.store.events(game_id, after):
            for event in batch:
                yield event
            after = batch[-1].event_id
        if after < snapshot.last_event_id:  # the store forgot it meanwhile
            async for event in self._moved_log(game_id, after):
                yield event

    async def record(
        self,
        game_id: str,
        token: str,
        include_views: bool = False,
        offset: int = 0,
        limit: int | None = None,
    ) -> Record:
        """The log as the caller may see it; with ``include_views``, the caller's view
        of the initial position and after every entry, from a server-side replay (so
        each is redacted exactly as GetState redacted it for this caller then).

        Paged with ``limit``: the entries from ``offset`` on, at most ``limit`` of them,
        with the seat changes among them (``next_offset``: where the next page starts).
        Only the first page (offset 0) has the initial view."""
        snapshot = await self.load(game_id)
        viewer = self.viewer(snapshot, token)
        reveal = await self.log_public(snapshot)
        game_type = snapshot.info.game_type
        logged: list[dict[str, Any]] = []  # the action events as stored
        actions: list[int] = []  # the full actions, for the replay: never sent as such
        initial = b""
        initial_to_move = TERMINAL
        returns: list[float] = []
        seat_changes: list[dict[str, Any]] = []
        finish_reason = ""
        async for event in self.logged(snapshot):
            data = event.data
            if data["kind"] == EventKind.CREATED:
                initial = ev.initial_state_bytes(data)
                initial_to_move = data.get("initial_to_move", data["to_move"])
            elif data["kind"] == EventKind.ACTION and data["version"] <= snapshot.version:
                logged.append(data)
                actions.append(data["action"])
            elif data["kind"] == EventKind.SEAT_CHANGED and data["version"] <= snapshot.version:
                seat_changes.append({**data, "event_id": event.event_id})
            elif data["kind"] == EventKind.FINISHED:
                returns = data["returns"]
                finish_reason = ev.finish_reason(data)
        # Some hidden actions are public later (Catan: a 7's discards, once all are in).
        opened: set[int] = set()
        if not reveal:
            opened = revealed_actions(game_type, logged, lambda: steps.load_state(snapshot))
        entries = [
            ev.visible(data, viewer, reveal_all=reveal or i in opened)
            for i, data in enumerate(logged)
        ]
        if offset > len(entries):
            raise InvalidArgument(
                f"the page token is past this record's {len(entries)} entries",
                field="page_token",
            )
        end = len(entries) if limit is None else min(offset + limit, len(entries))
        next_offset = end if end < len(entries) else None
        # A seat change goes with the page of the first entry after it (the last page:
        # every later one); a change's version is never an entry's.
        low = entries[offset - 1]["version"] if offset else -1
        high = entries[end - 1]["version"] if next_offset is not None else float("inf")
        seat_changes = [c for c in seat_changes if low < c["version"] < high]
        entries = entries[offset:end]
        initial_view = None
        if include_views:
            # A long game's replay takes a while: off the event loop, which serves
            # every other call of this replica meanwhile. It stops at the page's end.
            views = await asyncio.to_thread(
                _replayed_views, game_type, initial, actions[:end], viewer, not reveal
            )
            initial_view = views[0] if offset == 0 else None
            for entry, view in zip(entries, views[offset + 1 :], strict=True):
                entry["view"] = view
        return Record(
            snapshot,
            initial,
            entries,
            returns,
            initial_to_move,
            initial_view,
            seat_changes,
            finish_reason,
            next_offset,
        )


def _replayed_views(
    game_type: str, initial: bytes, actions: list[int], viewer: int | None, withheld: bool
) -> list[Any]:
    """``viewer``'s view of the initial position and after each of ``actions``
    (``withheld``: the log is not public yet, so not the end's either)."""
    views: list[Any] = []
    steps.replayed(
        game_type,
        initial,
        actions,
        lambda s: views.append(view_of(game_type, s, viewer, withheld)),
    )
    return views


_MAX_EVENT_ID = 2**64 - 1  # event ids are uint64 on the wire


def check_after_event_id(after: int) -> int:
    """``after_event_id`` as sent: 0 (from the start) or an event id the server sent."""
    if not 0 <= after <= _MAX_EVENT_ID:
        raise InvalidArgument(
            f"after_event_id {after} is out of range: send an event id the server sent, "
            "or 0 to start from the beginning",
            field="after_event_id",
        )
    return after
