"""Game hosting: the service's rules of engagement, independent of gRPC.

Creates and joins games, authenticates seats, checks and applies actions, and
serves state, events and records as each caller may see them. Every failure is
a ``services.errors`` exception whose message a client developer can act on;
a failed call changes nothing.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import re
import secrets
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any

import bots
from bots.levels import get_level
from games import GameError, IllegalActionError, NotationError, State, game_names, get_game
from services import events as ev
from services import metrics, play
from services.bot_runner import BotRunner
from services.errors import (
    Aborted,
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    ServiceError,
    Unauthenticated,
)
from services.stores import CommitOutcome, GameStore, NewGame, Snapshot, StoredEvent

_GAME_ID = re.compile(r"[0-9a-f]{32}")
_MAX_REQUEST_ID = 128
_RECENT_GAMES = 4096
SPECTATOR = None
HUMAN, BOT = "human", "bot"


@dataclass(frozen=True)
class SeatSpec:
    kind: str  # HUMAN or BOT
    level: str = ""
    name: str = ""


@dataclass(frozen=True)
class GameView:
    """A game as one caller sees it."""

    snapshot: Snapshot
    state: State
    viewer: int | None

    @property
    def legal_actions(self) -> list[tuple[int, str]]:
        state = self.state
        if self.viewer is None or state.current_player() != self.viewer:
            return []
        return [(a, state.action_to_string(a)) for a in state.legal_actions()]


@dataclass(frozen=True)
class Submitted:
    version: int
    action: int
    notation: str
    duplicate: bool


@dataclass(frozen=True)
class Record:
    snapshot: Snapshot
    initial_state: bytes
    entries: list[dict[str, Any]]
    returns: list[float]


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


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class GameHost:
    def __init__(self, store: GameStore, runner: BotRunner) -> None:
        self.store = store
        self.runner = runner
        # game id -> (snapshot, state) this replica committed last (LRU).
        self._recent: OrderedDict[str, tuple[Snapshot, State]] = OrderedDict()

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
    ) -> GameView:
        if game_type not in game_names():
            raise InvalidArgument(
                f"unknown game type {game_type!r}; choose one of: {', '.join(game_names())}"
            )
        game = get_game(game_type)
        if not seats:
            raise InvalidArgument("a game needs seats: list one SeatSpec per player")
        meta_seats = []
        for index, seat in enumerate(seats):
            if seat.kind == BOT:
                level = seat.level or "random"
                try:
                    get_level(level)
                except ValueError as exc:
                    raise InvalidArgument(f"seat {index}: {exc}") from None
                meta_seats.append({"kind": BOT, "level": level, "name": seat.name or level})
            elif seat.kind == HUMAN:
                meta_seats.append({"kind": HUMAN, "level": "", "name": seat.name})
            else:
                raise InvalidArgument(f"seat {index}: kind must be HUMAN or BOT")
        if seed is None:
            seed = secrets.randbits(63)
        try:
            parsed = game.parse_options(options)
            state = game.new_game(len(seats), seed, parsed)
        except GameError as exc:
            raise InvalidArgument(str(exc)) from None
        game_id = secrets.token_hex(16)
        log = [ev.created_event(state)]
        version = play.resolve_chance(state, seed, 0, log)
        meta = {
            "game_type": game_type,
            "players": len(seats),
            "options": parsed,
            "seats": meta_seats,
            "seed": seed,
            "created": time.time(),
        }
        await self.store.create(
            NewGame(
                game_id,
                meta,
                state.to_bytes(),
                version,
                play.status_of(state),
                log,
                bot_due_in=0.0 if play.bot_to_move(meta, state) else None,
            )
        )
        metrics.GAMES_CREATED.labels(game_type).inc()
        snapshot = await self._load(game_id)
        self._kick_bots(snapshot, state)
        return GameView(snapshot, state, SPECTATOR)

    async def join_game(self, game_id: str, seat: int | None, name: str) -> tuple[int, str]:
        snapshot = await self._load(game_id)
        seats = snapshot.meta["seats"]
        if seat is None:
            free = [
                i for i, s in enumerate(seats) if s["kind"] == HUMAN and i not in snapshot.tokens
            ]
            if not free:
                raise FailedPrecondition(f"game {game_id} has no free human seat")
            seat = free[0]
        if not 0 <= seat < len(seats):
            raise InvalidArgument(
                f"seat {seat} does not exist: this game has seats 0-{len(seats) - 1}"
            )
        if seats[seat]["kind"] != HUMAN:
            raise PermissionDenied(f"seat {seat} is played by a bot; join a human seat")
        token = secrets.token_urlsafe(24)
        event = ev.joined_event(seat, name, snapshot.version)
        if not await self.store.claim_seat(game_id, seat, hash_token(token), event):
            raise AlreadyExists(f"seat {seat} of game {game_id} is already taken")
        return seat, token

    def _kick_bots(self, snapshot: Snapshot, state: State) -> None:
        actor = state.current_player()
        if actor >= 0 and snapshot.meta["seats"][actor]["kind"] == BOT:
            self.runner.kick(snapshot.game_id)

    # ------------------------------------------------------------------ reading
    async def _load(self, game_id: str, request_key: str | None = None) -> Snapshot:
        if not _GAME_ID.fullmatch(game_id or ""):
            raise InvalidArgument(f"malformed game id {game_id!r}: expected 32 hex digits")
        snapshot = await self.store.load(game_id, request_key)
        if snapshot is None:
            raise NotFound(f"no game {game_id}")
        return snapshot

    @staticmethod
    def _viewer(snapshot: Snapshot, token: str, required: bool = False) -> int | None:
        """The seat a token belongs to; None (spectator) for no token."""
        if not token:
            if required:
                raise Unauthenticated("this call needs a seat token: get one from JoinGame")
            return SPECTATOR
        digest = hash_token(token)
        for seat, stored in snapshot.tokens.items():
            if hmac.compare_digest(stored, digest):
                return seat
        raise Unauthenticated(f"the token is not valid for game {snapshot.game_id}")

    async def get_state(self, game_id: str, token: str) -> GameView:
        snapshot = await self._load(game_id)
        viewer = self._viewer(snapshot, token)
        state = play.load_state(snapshot)
        # Bots move without it (every replica sweeps the schedule); this only wakes the sweeper.
        self._kick_bots(snapshot, state)
        return GameView(snapshot, state, viewer)

    async def list_games(self, limit: int) -> list[Snapshot]:
        return await self.store.list_games(min(max(limit, 1), 1000) if limit else 100)

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
            raise InvalidArgument(f"request_id is longer than {_MAX_REQUEST_ID} characters")
        if action is None and notation is None:
            raise InvalidArgument("give the action as action_id or as notation")
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
            snapshot = await self._load(game_id, request_key)
            try:
                return await self._try(attempt, snapshot, play.load_state(snapshot), started)
            except _Stale as stale:
                if expected_version is not None:
                    raise Aborted(
                        f"stale version: the game moved from {expected_version} to "
                        f"{stale.version} while your action was applied; decide again"
                    ) from None
                # No version pinned: the caller asked for "now", so try on the new state.

    async def _try(
        self, attempt: _Attempt, snapshot: Snapshot, state: State, started: float
    ) -> Submitted:
        viewer = self._viewer(snapshot, attempt.token, required=True)
        if attempt.seat is not None and attempt.seat != viewer:
            raise PermissionDenied(f"your token is for seat {viewer}, not seat {attempt.seat}")
        if snapshot.request_result is not None:
            return Submitted(**snapshot.request_result, duplicate=True)
        expected = attempt.expected_version
        if expected is not None and expected != snapshot.version:
            raise Aborted(
                f"stale version: you sent {expected} but the game is at "
                f"{snapshot.version}; fetch the state and decide again"
            )
        chosen = self._parse(state, viewer, attempt.action, attempt.notation)
        text = state.action_to_string(chosen)
        step = play.play(state, chosen, snapshot.meta["seed"], snapshot.version)
        result = {"version": step.version, "action": chosen, "notation": text}
        committed = await play.commit_step(self.store, snapshot, step, attempt.request_key, result)
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

    def _remember(self, snapshot: Snapshot, step: play.Step, last_event_id: str) -> None:
        """Keep what this replica just wrote, for the next submission's fast path."""
        written = dataclasses.replace(
            snapshot,
            state=b"",  # the State object below is the state; bytes are not needed
            version=step.version,
            status=play.status_of(step.state),
            request_result=None,
            last_event_id=last_event_id,
        )
        self._recent[snapshot.game_id] = (written, step.state)
        while len(self._recent) > _RECENT_GAMES:
            self._recent.popitem(last=False)

    @staticmethod
    def _parse(state: State, seat: int, action: int | None, notation: str | None) -> int:
        if state.is_terminal():
            raise FailedPrecondition("the game is over")
        to_move = state.current_player()
        if to_move != seat:
            raise FailedPrecondition(f"it is not your turn: seat {to_move} is to move")
        try:
            chosen = state.string_to_action(notation) if notation is not None else action
            assert chosen is not None
            if chosen not in state.legal_actions():
                raise IllegalActionError(
                    f"{state.action_to_string(chosen)!r} (id {chosen}) is not legal now"
                )
        except NotationError as exc:
            raise InvalidArgument(str(exc)) from None
        except IllegalActionError as exc:
            legal = ", ".join(state.action_to_string(a) for a in state.legal_actions()[:12])
            raise FailedPrecondition(f"{exc}; legal now: {legal}") from None
        return chosen

    # ------------------------------------------------------------------ events and records
    async def watch(
        self, game_id: str, token: str, after: str, poll_seconds: float = 5.0
    ) -> AsyncIterator[tuple[StoredEvent, dict[str, Any]]]:
        snapshot = await self._load(game_id)
        viewer = self._viewer(snapshot, token)
        _check_event_id(after)
        while True:
            batch = await self.store.wait_events(game_id, after, poll_seconds)
            for event in batch:
                after = event.event_id
                yield event, ev.visible(event.data, viewer)
                if event.data["kind"] == ev.FINISHED:
                    return

    async def record(self, game_id: str, token: str) -> Record:
        snapshot = await self._load(game_id)
        viewer = self._viewer(snapshot, token)
        finished = snapshot.status == play.FINISHED
        entries: list[dict[str, Any]] = []
        initial = b""
        returns: list[float] = []
        after = ""
        while True:
            batch = await self.store.events(game_id, after)
            if not batch:
                break
            for event in batch:
                data = event.data
                if data["kind"] == ev.CREATED:
                    initial = ev.initial_state_bytes(data)
                elif data["kind"] == ev.ACTION and data["version"] <= snapshot.version:
                    entries.append(ev.visible(data, viewer, reveal_all=finished))
                elif data["kind"] == ev.FINISHED:
                    returns = data["returns"]
            after = batch[-1].event_id
        return Record(snapshot, initial, entries, returns)


def _check_event_id(event_id: str) -> None:
    if event_id and not re.fullmatch(r"\d+-\d+", event_id):
        raise InvalidArgument(f"malformed event id {event_id!r}: expected '<ms>-<seq>' as sent")
