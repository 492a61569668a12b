"""Game hosting: the service's rules of engagement, independent of gRPC.

Creates and joins games, authenticates seats, checks and applies actions, and
serves state, events and records as each caller may see them. Every failure is
a ``services.errors`` exception whose message a client developer can act on;
a failed call changes nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hmac
import re
import secrets
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import bots
from bots.levels import get_level
from games import (
    TERMINAL,
    GameError,
    NotationError,
    State,
    game_names,
    get_game,
)
from games.base import quote_input
from services import metrics
from services.archive import listing
from services.archive.archive import Archive, ArchivedSummary
from services.archive.listing import ListQuery
from services.errors import (
    Aborted,
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    ResourceExhausted,
    ServiceError,
    Unauthenticated,
)
from services.kinds import EventKind, FinishReason, GameStatus, SeatControl, SeatKind
from services.limits import access
from services.limits.access import hash_token
from services.play import seating
from services.stores import (
    CommitOutcome,
    GameExists,
    GameStore,
    NewGame,
    Snapshot,
    StoredEvent,
)
from services.turns import clock, seat_control, steps
from services.turns.seat_control import control_of
from services.views import revealed_actions, view_of
from services.watch import events as ev
from services.watch.hub import Subscription, WatchHub

_GAME_ID = re.compile(r"[0-9a-f]{32}")
_MAX_REQUEST_ID = 128
_RECENT_GAMES = 4096
SPECTATOR = None


@dataclass(frozen=True)
class SeatSpec:
    kind: str  # SeatKind.HUMAN or SeatKind.BOT
    level: str = ""
    name: str = ""


@dataclass(frozen=True)
class GameView:
    """A game as one caller sees it."""

    snapshot: Snapshot
    state: State
    viewer: int | None
    invite_codes: dict[int, str] = field(default_factory=dict)  # private games' creator only
    creator_token: str = ""  # CreateGame's answer only

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
        if self.snapshot.meta["seats"][self.viewer]["kind"] != SeatKind.HUMAN:
            return []  # away: a bot plays the seat until the player takes it back
        return [(a, state.action_to_string(a)) for a in state.legal_actions()]


@dataclass(frozen=True)
class Submitted:
    version: int
    action: int
    notation: str
    duplicate: bool


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


@dataclass(frozen=True)
class _Attempt:
    """What a SubmitAction asks for."""

    token: str
    expected_version: int | None
    action: int | None
    notation: str | None
    request_key: str | None
    seat: int | None


class _Stale(Exception):
    def __init__(self, version: int) -> None:
        self.version = version


class GameHost:
    def __init__(
        self,
        store: GameStore,
        runner: seating.BotKicker,
        live_games_per_client: int = 0,
        archive: Archive | None = None,
    ) -> None:
        self.store = store
        self.archive = archive  # finished games the store has forgotten are read from it
        self.runner = runner
        self.hub = WatchHub(store)  # every WatchGame stream of this replica reads through it
        self.live_games_per_client = live_games_per_client  # 0: no cap
        # game id -> (snapshot, state) this replica committed last (LRU).
        self._recent: OrderedDict[str, tuple[Snapshot, State]] = OrderedDict()
        # AddBot, HandOverSeat, TakeBackSeat and rejoining a seat handed over for good.
        self.seating = seating.Seating(store, runner, self.load, self.viewer)

    # ------------------------------------------------------------------ catalogue
    @staticmethod
    def game_types() -> list[type]:
        return [get_game(name) for name in game_names()]

    @staticmethod
    def bot_levels() -> list[str]:
        return bots.level_names()

    # ------------------------------------------------------------------ create / join
    async def create_game(
        self,
        game_type: str,
        seats: list[SeatSpec],
        options: Mapping[str, str],
        seed: int | None = None,
        *,
        private: bool = False,
        spectators: bool = True,
        owner: str = "",
        tournament: Mapping[str, Any] | None = None,
        deal_key: str = "",
        deal_stream: bool = False,
        game_id: str | None = None,
        bots_by_anyone: bool = False,
        rejoin_handed_seats: bool = False,
        timer: clock.Timer | None = None,
    ) -> GameView:
        """``bots_by_anyone``: anyone may add a bot to a free seat (else only the
        creator, with the answer's ``creator_token``); ``rejoin_handed_seats``: a seat
        handed over for good may be joined again; ``timer``: turn timers of human seats
        (``services.turns.clock``).

        ``tournament`` (name, round, table) is recorded in the game's meta;
        ``deal_key``, when set, replaces the game id in the seed mixing of games with
        people, so tables of one tournament deal get one board (duplicate deals);
        ``deal_stream`` draws chance by occurrence (``services.turns.steps.Luck``), so they
        also roll the same dice. ``game_id``, when set, is the new game's id: if a game
        with it exists, ALREADY_EXISTS and nothing is created (a tournament's table
        game, which racing replicas create once)."""
        if game_type not in game_names():
            raise InvalidArgument(
                f"unknown game {quote_input(game_type)}; known: {', '.join(sorted(game_names()))}",
                field="game_type",
            )
        game = get_game(game_type)
        if timer is not None:
            problem = clock.timer_problem(timer)
            if problem is not None:  # "timer.move_seconds must be ...": that field
                raise InvalidArgument(problem, field=problem.split(" ", 1)[0])
            try:
                fallback = seating.level_or_random(timer.fallback)
            except InvalidArgument as exc:
                raise InvalidArgument(str(exc), field="timer.fallback_level") from None
            timer = dataclasses.replace(timer, fallback=fallback)
        if not seats:
            raise InvalidArgument("a game needs seats: list one SeatSpec per player", field="seats")
        meta_seats = []
        for index, seat in enumerate(seats):
            if seat.kind == SeatKind.BOT:
                level = seat.level or "random"
                try:
                    get_level(level)
                except ValueError as exc:
                    raise InvalidArgument(str(exc), field=f"seats[{index}].bot_level") from None
                meta_seats.append(
                    {"kind": SeatKind.BOT, "level": level, "name": seat.name or level}
                )
            elif seat.kind == SeatKind.HUMAN:
                meta_seats.append({"kind": SeatKind.HUMAN, "level": "", "name": seat.name})
            else:
                raise InvalidArgument("kind must be HUMAN or BOT", field=f"seats[{index}].kind")
        game_id = game_id or secrets.token_hex(16)
        if seed is None:
            seed = secrets.randbits(63)
        elif any(s["kind"] == SeatKind.HUMAN for s in meta_seats):
            # A person could foresee hidden draws from a seed they chose: mix in the
            # server secret. All-bot games keep their seed (reproducible selfplay).
            seed = access.mix_seed(await self.store.secret(), seed, deal_key or game_id)
        try:
            parsed = game.parse_options(options)
            state = game.new_game(len(seats), seed, parsed)
        except GameError as exc:
            raise InvalidArgument(str(exc), field="options") from None
        invite_codes = (
            {
                i: access.new_invite_code()
                for i, s in enumerate(meta_seats)
                if s["kind"] == SeatKind.HUMAN
            }
            if private
            else {}
        )
        cap = self.live_games_per_client
        if owner and cap > 0 and not await self.store.reserve_live_game(owner, game_id, cap):
            raise ResourceExhausted(
                f"you have {self.live_games_per_client} unfinished games, the most "
                "allowed per client; finish one or wait until one expires"
            )
        creator_token = secrets.token_urlsafe(24)
        luck = steps.Luck() if deal_stream else None
        log, version = steps.creation_log(state, seed, luck)
        meta = {
            "game_type": game_type,
            "players": len(seats),
            "options": parsed,
            "seats": meta_seats,
            "seed": seed,
            "created": time.time(),
            "private": private,
            "spectators": spectators,
            "invites": {str(i): access.hash_code(c) for i, c in invite_codes.items()},
            "creator": hash_token(creator_token),
            "bots_by_anyone": bots_by_anyone,
            "rejoin_handed_seats": rejoin_handed_seats,
        }
        meta = clock.start(meta, timer)
        meta = clock.restart(meta, state, version, time.time(), moved=True)
        running = clock.running(meta, version)
        if running is not None:
            log[-1]["clock"] = running
        if tournament is not None:
            meta["tournament"] = dict(tournament)
        if deal_stream:
            meta["deal_stream"] = True
        new_game = NewGame(
            game_id,
            meta,
            state.to_bytes(),
            version,
            steps.status_of(state),
            log,
            bot_due_in=clock.due_in(meta, state, version, time.time()),
            luck=luck.dumps() if luck is not None else "",
        )
        try:
            await self.store.create(new_game)
        except GameExists:
            raise AlreadyExists(f"a game with id {game_id} exists") from None
        metrics.GAMES_CREATED.labels(game_type).inc()
        snapshot = await self.load(game_id)
        self._kick_bots(snapshot, state)
        return GameView(snapshot, state, SPECTATOR, invite_codes, creator_token)

    async def join_game(
        self, game_id: str, seat: int | None, name: str, invite_code: str = ""
    ) -> tuple[int, str]:
        snapshot = await self.load(game_id)
        seats = snapshot.meta["seats"]
        if snapshot.meta.get("private"):
            invited = access.seat_for_invite(snapshot.meta.get("invites", {}), invite_code)
            if invited is None or (seat is not None and seat != invited):
                raise PermissionDenied(
                    f"game {game_id} is private: join with the invite code its creator "
                    "got for your seat"
                )
            seat = invited
        if seat is None:
            free = seating.free_seats(snapshot)
            if not free:
                raise FailedPrecondition(f"game {game_id} has no free human seat")
            seat = free[0]
        if not 0 <= seat < len(seats):
            raise InvalidArgument(
                f"seat {seat} does not exist: this game has seats 0-{len(seats) - 1}",
                field="seat",
            )
        if control_of(seats[seat]) == SeatControl.HANDED_OVER:
            return await self.seating.rejoin(game_id, seat, name)
        if seats[seat]["kind"] != SeatKind.HUMAN:
            raise PermissionDenied(f"seat {seat} is played by a bot; join a human seat")
        token = secrets.token_urlsafe(24)
        to_move = steps.load_state(snapshot).current_player()
        event = ev.joined_event(seat, name, snapshot.version, to_move)
        if not await self.store.claim_seat(game_id, seat, hash_token(token), event):
            raise AlreadyExists(f"seat {seat} of game {game_id} is already taken")
        return seat, token

    def _kick_bots(self, snapshot: Snapshot, state: State) -> None:
        actor = state.current_player()
        if actor >= 0 and snapshot.meta["seats"][actor]["kind"] == SeatKind.BOT:
            self.runner.kick(snapshot.game_id)

    # ------------------------------------------------------------------ reading
    async def load(self, game_id: str, request_key: str | None = None) -> Snapshot:
        if not _GAME_ID.fullmatch(game_id or ""):
            raise InvalidArgument(
                f"malformed game id {quote_input(game_id)}: expected 32 hex digits",
                field="game_id",
            )
        snapshot = await self.store.load(game_id, request_key)
        if snapshot is None:
            raise NotFound(f"no game {game_id}")
        return snapshot

    async def load_any(self, game_id: str) -> Snapshot:
        """``load`` for reading: a game the store has forgotten comes from the archive
        (``Snapshot.archived``), with the same metadata, tokens and final state."""
        try:
            return await self.load(game_id)
        except NotFound:
            if self.archive is None:
                raise
            archived = await self.archive.game(game_id)
            if archived is None:
                raise
            return archived.snapshot

    @staticmethod
    def viewer(snapshot: Snapshot, token: str, required: bool = False) -> int | None:
        """The seat a token belongs to; None (spectator) for no token."""
        if not token:
            if required:
                raise Unauthenticated(
                    "this call needs a seat token: get one from JoinGame", field="token"
                )
            if not snapshot.meta.get("spectators", True):
                raise PermissionDenied(
                    f"game {snapshot.game_id} admits no spectators: send a seat token"
                )
            return SPECTATOR
        digest = hash_token(token)
        for seat, stored in snapshot.tokens.items():
            if hmac.compare_digest(stored, digest):
                return seat
        raise Unauthenticated(f"the token is not valid for game {snapshot.game_id}", field="token")

    async def get_state(self, game_id: str, token: str) -> GameView:
        snapshot = await self.load_any(game_id)
        viewer = self.viewer(snapshot, token)
        state = steps.load_state(snapshot)
        # Bots move without it (every replica sweeps the schedule); this only wakes the sweeper.
        self._kick_bots(snapshot, state)
        return GameView(snapshot, state, viewer)

    async def list_games(self, query: ListQuery) -> tuple[list[Snapshot | ArchivedSummary], str]:
        """One page of games (live from the store, finished from the archive: the merge
        is ``services.archive.listing``'s) and the next page's token."""
        if query.game_type and query.game_type not in game_names():
            raise InvalidArgument(
                f"unknown game type {quote_input(query.game_type)}; "
                f"choose one of: {', '.join(game_names())}"
            )
        return await listing.list_games(self.store.list_games, self.archive, query)

    # ------------------------------------------------------------------ acting
    async def submit_action(
        self,
        game_id: str,
        token: str,
        *,
        expected_version: int | None,
        action: int | None = None,
        notation: str | None = None,
        request_id: str = "",
        seat: int | None = None,
    ) -> Submitted:
        if len(request_id) > _MAX_REQUEST_ID:
            raise InvalidArgument(
                f"longer than {_MAX_REQUEST_ID} characters", field="request_id"
            )
        if action is None and notation is None:
            raise InvalidArgument("give the action as action_id or as notation", field="action_id")
        if expected_version is not None and expected_version < 0:
            raise InvalidArgument(
                f"must be 0 or more, not {expected_version}", field="expected_version"
            )
        if action is not None and action < 0:
            raise InvalidArgument(f"must be 0 or more, not {action}", field="action_id")
        started = time.perf_counter()
        # Keyed by the credential, so it is known before the game is loaded: one read.
        request_key = f"{hash_token(token)[:32]}:{request_id}" if token and request_id else None
        attempt = _Attempt(token, expected_version, action, notation, request_key, seat)
        recent = self._recent.pop(game_id, None)
        if recent is not None and recent[0].version == expected_version:
            # Fast path: this replica wrote the version the client acts on, so skip the
            # read. The commit still compares versions; anything unexpected is redone
            # on a fresh read.
            try:
                return await self._try(attempt, *recent, started)
            except (ServiceError, _Stale):
                pass
        while True:
            snapshot = await self.load(game_id, request_key)
            try:
                return await self._try(attempt, snapshot, steps.load_state(snapshot), started)
            except _Stale as stale:
                if expected_version is not None:
                    raise Aborted(
                        f"stale version: the game moved from {expected_version} to "
                        f"{stale.version} while your action was applied; decide again",
                        field="expected_version",
                    ) from None
                # No version pinned: the caller asked for "now", so try on the new state.

    async def _try(
        self, attempt: _Attempt, snapshot: Snapshot, state: State, started: float
    ) -> Submitted:
        seats = len(snapshot.meta["seats"])
        if attempt.seat is not None and not 0 <= attempt.seat < seats:
            raise InvalidArgument(
                f"seat {attempt.seat} does not exist: seats are 0-{seats - 1}", field="seat"
            )
        viewer = self.viewer(snapshot, attempt.token, required=True)
        if attempt.seat is not None and attempt.seat != viewer:
            raise PermissionDenied(
                f"your token is for seat {viewer}, not seat {attempt.seat}", field="seat"
            )
        if snapshot.request_result is not None:
            return Submitted(**snapshot.request_result, duplicate=True)
        expected = attempt.expected_version
        if expected is not None and expected != snapshot.version:
            raise Aborted(
                f"stale version: you sent {expected} but the game is at "
                f"{snapshot.version}; fetch the state and decide again",
                field="expected_version",
            )
        if snapshot.status == GameStatus.FINISHED:
            raise FailedPrecondition("the game is over")  # played out, or abandoned
        if snapshot.meta["seats"][viewer]["kind"] == SeatKind.BOT:
            raise FailedPrecondition(
                f"seat {viewer} is away: a bot plays it until you call TakeBackSeat"
            )
        chosen = self._parse(state, viewer, attempt.action, attempt.notation)
        text = state.action_to_string(chosen)
        step = steps.play(
            state,
            chosen,
            snapshot.meta["seed"],
            snapshot.version,
            steps.luck_of(snapshot),
            steps.decliners(snapshot.meta),
        )
        result = {"version": step.version, "action": chosen, "notation": text}
        committed = await steps.commit_step(self.store, snapshot, step, attempt.request_key, result)
        if committed.outcome is CommitOutcome.APPLIED:
            metrics.ACTIONS.labels(snapshot.meta["game_type"]).inc()
            metrics.SUBMIT_SECONDS.observe(time.perf_counter() - started)
            self._remember(snapshot, step, committed.event_ids[-1])
            self._kick_bots(snapshot, step.state)
            return Submitted(**result, duplicate=False)
        if committed.outcome is CommitOutcome.DUPLICATE:
            return Submitted(**committed.request_result, duplicate=True)
        if committed.outcome is CommitOutcome.NOT_FOUND:
            raise NotFound(f"no game {snapshot.game_id}")
        raise _Stale(committed.version)

    def _remember(self, snapshot: Snapshot, step: steps.Step, last_event_id: int) -> None:
        """Keep what this replica just wrote, for the next submission's fast path."""
        written = steps.written_snapshot(snapshot, step, last_event_id)
        if written is None:
            return  # the write moved the clock on: the metadata here is not what was written
        self._recent[snapshot.game_id] = (written, step.state)
        while len(self._recent) > _RECENT_GAMES:
            self._recent.popitem(last=False)

    @staticmethod
    def _parse(state: State, seat: int, action: int | None, notation: str | None) -> int:
        # What the action is comes first: an id outside the game's action space, or text
        # that does not read as an action, is INVALID_ARGUMENT in every game, whatever
        # the position (whose turn it is, or the game being over, does not change that).
        my_turn = not state.is_terminal() and state.current_player() == seat
        try:
            if notation is not None:
                chosen = state.string_to_action(notation)
            else:
                assert action is not None
                chosen = action
                state.action_to_string(chosen)  # NotationError: not an id of this game
        except NotationError as exc:
            field = "notation" if notation is not None else "action_id"
            # The moves like it are worth naming only to the seat that may play them.
            hint = f"; {_legal_like(state, notation or '')}" if my_turn else ""
            raise InvalidArgument(f"{exc}{hint}", field=field) from None
        if state.is_terminal():
            raise FailedPrecondition("the game is over")
        to_move = state.current_player()
        if to_move != seat:
            raise FailedPrecondition(f"it is not your turn: seat {to_move} is to move")
        if not state.is_legal(chosen):
            text = state.action_to_string(chosen)
            why = state.illegal_reason(chosen)
            named = f"{text!r}" if notation is not None else f"{text!r} (id {chosen})"
            reason = f"{named} is not legal now" + (f": {why}" if why else "")
            raise FailedPrecondition(f"{reason}; {_legal_like(state, text, True)}")
        return chosen

    # ------------------------------------------------------------------ events and records
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
        snapshot = await self.load_any(game_id)
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
        reveal = reveals_everything(snapshot)
        async with contextlib.AsyncExitStack() as stack:
            if finished:
                events = self._logged(snapshot, after)  # a replay: the log is complete
            else:
                events = await stack.enter_async_context(
                    self.hub.subscribe(game_id, after, snapshot.last_event_id)
                )
            async for event in events:
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

    @staticmethod
    def _leaves_to(seen: dict[str, Any], viewer: int | None, feed: Subscription) -> bool:
        """Whether this event leaves ``viewer`` to move with no later event at hand
        (then one store read tells whether it is still the newest)."""
        return viewer is not None and seen.get("to_move") == viewer and not feed.has_pending

    async def _legal_after(
        self, game_id: str, event_id: int, viewer: int
    ) -> list[tuple[int, str]] | None:
        """The viewer's legal actions if ``event_id`` is still the game's newest event
        (None otherwise: the position has moved on, so they would be stale)."""
        snapshot = await self.store.load(game_id)
        if snapshot is None or snapshot.last_event_id != event_id:
            return None
        return GameView(snapshot, steps.load_state(snapshot), viewer).legal_actions

    async def _logged(self, snapshot: Snapshot, after: int = 0) -> AsyncIterator[StoredEvent]:
        """The stored log after ``after``, page by page, up to its current end (an
        archived game's from the archive, where its whole log was rebuilt)."""
        game_id = snapshot.game_id
        if snapshot.archived and self.archive is not None:
            archived = await self.archive.game(game_id)
            for event in archived.events if archived is not None else []:
                if event.event_id > after:
                    yield event
            return
        while True:
            batch = await self.store.events(game_id, after)
            if not batch:
                return
            for event in batch:
                yield event
            after = batch[-1].event_id

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
        snapshot = await self.load_any(game_id)
        viewer = self.viewer(snapshot, token)
        reveal = reveals_everything(snapshot)
        game_type = snapshot.meta["game_type"]
        logged: list[dict[str, Any]] = []  # the action events as stored
        actions: list[int] = []  # the full actions, for the replay: never sent as such
        initial = b""
        initial_to_move = TERMINAL
        returns: list[float] = []
        seat_changes: list[dict[str, Any]] = []
        finish_reason = ""
        async for event in self._logged(snapshot):
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
                _replayed_views, game_type, initial, actions[:end], viewer
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
    game_type: str, initial: bytes, actions: list[int], viewer: int | None
) -> list[Any]:
    """``viewer``'s view of the initial position and after each of ``actions``."""
    state = get_game(game_type).state_class.from_bytes(initial)
    views = [view_of(game_type, state, viewer)]
    for action in actions:
        state.apply_unchecked(action)
        views.append(view_of(game_type, state, viewer))
    return views


def reveals_everything(snapshot: Snapshot) -> bool:
    """Once a game is over its whole log is public: GetRecord and WatchGame both show
    hidden actions to everyone from then on (the one home of that rule)."""
    return snapshot.status == GameStatus.FINISHED


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


def _legal_like(state: State, text: str, parsed: bool = False) -> str:
    """The legal moves of the kind ``text`` names first ("legal city moves now: city 12"),
    else the first legal moves: what to send instead."""
    legal = [state.action_to_string(a) for a in state.legal_actions()]
    verb = text.split()[0].lower() if text.split() else ""
    same = [n for n in legal if n.split()[0] == verb]
    if same:
        return f"legal {verb} moves now: {', '.join(same[:12])}{' …' if len(same) > 12 else ''}"
    kinds: dict[str, list[str]] = {}
    for n in legal:
        kinds.setdefault(n.split()[0], []).append(n)
    # A kind with many moves (Catan's offers) is one item, so the others show.
    shown = [m[0] if len(m) == 1 else f"{m[0]} … ({len(m)} {k} moves)" for k, m in kinds.items()]
    none = f"no {verb} move is legal now; " if parsed and verb else ""
    return f"{none}legal now: {', '.join(shown[:12])}"
