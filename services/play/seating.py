"""Seats on demand: add a bot to a free seat, hand a seat to a bot (away, or for good)
and take it back, and join a seat handed over for good.

Each change is one compare-and-set write through ``GameLog.commit``: the version
moves on by one (so an action chosen before the change, or a bot's search for the
old seating, answers stale and is decided again), the seat's new player goes into
the game's metadata, a ``seat_changed`` event goes into the log, the turn schedule
follows (a bot now to move is due at once; a human seat's clock starts), and token
hashes change in the same write where needed (``services.turns.seat_control``).
"""

from __future__ import annotations

import dataclasses
import hmac
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from bots.levels import get_level
from services.errors import (
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    Unauthenticated,
)
from services.kinds import GameStatus, SeatChangeReason, SeatControl
from services.limits.access import hash_token
from services.play.hooks import Loader, Viewer
from services.stores import Commit, CommitOutcome, GameLog, Snapshot
from services.stores.records import Seat
from services.turns import clock, seat_control, steps
from services.turns.seat_control import BOT_TOKEN, bot_seat, human_seat
from services.watch import events as ev


@dataclass(frozen=True)
class SeatChanged:
    """The answer to a seat change: the game as it is after it."""

    snapshot: Snapshot
    seat: int
    version: int
    duplicate: bool


@dataclass(frozen=True)
class _Change:
    seat: int
    now: Seat
    reason: SeatChangeReason
    tokens: dict[int, tuple[str, str]] | None = None
    forgive: bool = False  # a new person on the seat: no timeouts in a row


def level_or_random(level: str) -> str:
    level = level or "random"
    try:
        get_level(level)
    except ValueError as exc:
        raise InvalidArgument(str(exc)) from None
    return level


def joinable(snapshot: Snapshot, seat: int) -> bool:
    """Whether a person may take ``seat`` now (JoinGame): a human seat nobody holds, or
    a seat handed over for good in a game that lets people rejoin those."""
    entry = snapshot.info.seats[seat]
    if not entry.is_bot:
        return seat not in snapshot.tokens
    return entry.control == SeatControl.HANDED_OVER and rejoin_allowed(snapshot)


def rejoin_allowed(snapshot: Snapshot) -> bool:
    return snapshot.info.rejoin_handed_seats and snapshot.status != GameStatus.FINISHED


def free_seats(snapshot: Snapshot) -> list[int]:
    """The seats JoinGame may take now, lowest first (every other count of free seats calls this)."""
    return [i for i in range(len(snapshot.info.seats)) if joinable(snapshot, i)]


class BotKicker(Protocol):
    """What the play wing asks of the bot runner (services.bots): look at a game now.
    A protocol, so the bots wing (which reads games through this one) is not imported here."""

    def kick(self, game_id: str) -> None: ...


class Seating:
    def __init__(self, store: GameLog, runner: BotKicker, load: Loader, viewer: Viewer) -> None:
        self.store = store
        self.runner = runner
        self.load = load
        self.viewer = viewer

    # ------------------------------------------------------------------ the calls
    async def add_bot(
        self,
        game_id: str,
        seat: int,
        level: str,
        name: str = "",
        creator_token: str = "",
        request_id: str = "",
    ) -> SeatChanged:
        """A bot on free human seat ``seat``: by the creator, or by anyone when the game
        allows it. Raises Unauthenticated (a wrong creator token), PermissionDenied
        (not the creator), InvalidArgument (no such seat or level), AlreadyExists (the
        seat is taken or a bot's), FailedPrecondition (the game is over)."""
        level = level_or_random(level)
        who = hash_token(creator_token)[:32] if creator_token else "anyone"
        key = f"addbot:{who}:{request_id}" if request_id else None

        def decide(snapshot: Snapshot) -> _Change:
            meta = snapshot.info
            if creator_token:
                if not hmac.compare_digest(meta.creator, hash_token(creator_token)):
                    raise Unauthenticated(
                        f"the creator token is not valid for game {snapshot.game_id}: send "
                        "the creator_token its CreateGame answered"
                    )
            elif not meta.bots_by_anyone:
                raise PermissionDenied(
                    f"only the creator of game {snapshot.game_id} may add bots to it: send "
                    "the creator_token from CreateGame (games created with bots_by_anyone "
                    "let anyone add them)"
                )
            _check_seat(snapshot, seat)
            _check_running(snapshot)
            if meta.seats[seat].is_bot:
                raise AlreadyExists(f"seat {seat} of game {snapshot.game_id} is already a bot's")
            if seat in snapshot.tokens:
                free = ", ".join(map(str, free_seats(snapshot))) or "none"
                raise AlreadyExists(
                    f"seat {seat} of game {snapshot.game_id} is taken by a player; "
                    f"free seats: {free}"
                )
            now = bot_seat(level, name or level, SeatControl.ADDED)
            return _Change(seat, now, SeatChangeReason.BOT_ADDED, {seat: ("", BOT_TOKEN)})

        return await self._change(game_id, key, decide)

    async def hand_over(
        self, game_id: str, token: str, level: str, for_good: bool, request_id: str = ""
    ) -> SeatChanged:
        """The token's seat to a bot of ``level``: away (the token stays valid;
        ``take_back`` returns the seat) or ``for_good`` (the token is revoked)."""
        level = level_or_random(level)
        key = _seat_request_key(token, request_id)

        def decide(snapshot: Snapshot) -> _Change:
            seat = self._seat_of(snapshot, token)
            _check_running(snapshot)
            entry = snapshot.info.seats[seat]
            if for_good:
                now = bot_seat(level, entry.name, SeatControl.HANDED_OVER)
                tokens = {seat: (snapshot.tokens[seat], BOT_TOKEN)}
                return _Change(seat, now, SeatChangeReason.HANDED_OVER, tokens)
            if entry.control == SeatControl.AWAY:
                raise FailedPrecondition(
                    f"seat {seat} is already away ({entry.level} plays it): TakeBackSeat "
                    "to come back, or hand it over for good"
                )
            now = bot_seat(level, entry.name, SeatControl.AWAY)
            return _Change(seat, now, SeatChangeReason.AWAY)

        return await self._change(game_id, key, decide)

    async def take_back(self, game_id: str, token: str, request_id: str = "") -> SeatChanged:
        """The token's seat, away until now, is its player's again."""
        key = _seat_request_key(token, request_id)

        def decide(snapshot: Snapshot) -> _Change:
            seat = self._seat_of(snapshot, token)
            _check_running(snapshot)
            entry = snapshot.info.seats[seat]
            if entry.control != SeatControl.AWAY:
                raise FailedPrecondition(
                    f"seat {seat} is not away: there is nothing to take back (HandOverSeat "
                    "without for_good hands it to a bot while you are away)"
                )
            return _Change(seat, human_seat(entry.name), SeatChangeReason.TAKEN_BACK)

        return await self._change(game_id, key, decide)

    async def set_options(
        self, game_id: str, token: str, decline_offers: bool, request_id: str = ""
    ) -> SeatChanged:
        """The token's seat declines every domestic offer made to it from now on (or is
        asked again): the write path answers for it (``steps.play_on``)."""
        key = _seat_request_key(token, request_id)

        def decide(snapshot: Snapshot) -> _Change:
            seat = self._seat_of(snapshot, token)
            _check_running(snapshot)
            now = dataclasses.replace(snapshot.info.seats[seat], decline_offers=decline_offers)
            return _Change(seat, now, SeatChangeReason.OPTIONS)

        return await self._change(game_id, key, decide)

    async def rejoin(self, game_id: str, seat: int, name: str) -> tuple[int, str]:
        """A person takes ``seat``, handed over for good (JoinGame on such a seat)."""
        token = secrets.token_urlsafe(24)

        def decide(snapshot: Snapshot) -> _Change:
            entry = snapshot.info.seats[seat]
            if entry.control != SeatControl.HANDED_OVER:
                raise AlreadyExists(f"seat {seat} of game {game_id} is already taken")
            if not rejoin_allowed(snapshot):
                raise PermissionDenied(
                    f"seat {seat} of game {game_id} was handed to a bot for good and this "
                    "game does not let anyone take such seats (rejoin_handed_seats)"
                )
            tokens = {seat: (BOT_TOKEN, hash_token(token))}
            now = human_seat(name or entry.name)
            return _Change(seat, now, SeatChangeReason.JOINED, tokens, forgive=True)

        await self._change(game_id, None, decide)
        return seat, token

    # ------------------------------------------------------------------ the write
    def _seat_of(self, snapshot: Snapshot, token: str) -> int:
        seat = self.viewer(snapshot, token, required=True)
        assert seat is not None
        return seat

    async def _change(
        self, game_id: str, request_key: str | None, decide: Callable[[Snapshot], _Change]
    ) -> SeatChanged:
        """Decide on the current game and write; decided again if the game moved on."""
        while True:
            snapshot = await self.load(game_id, request_key)
            if snapshot.request_result is not None:
                return _answer(snapshot, snapshot.request_result, duplicate=True)
            change = decide(snapshot)
            state = steps.load_state(snapshot)
            version = snapshot.version + 1
            now = time.time()
            meta = snapshot.info.with_seat(change.seat, change.now)
            if change.forgive:
                meta = clock.forgive(meta, change.seat)
            meta = clock.restart(meta, state, version, now, moved=False)
            to_move = state.current_player()
            event = ev.seat_changed_event(change.seat, change.now, change.reason, version, to_move)
            running = clock.running(meta, version)
            if running is not None:
                event["clock"] = running
            result = {"version": version, "seat": change.seat}
            committed = await self.store.write(
                Commit(
                    game_id=game_id,
                    expected_version=snapshot.version,
                    new_version=version,
                    state=snapshot.state,
                    status=snapshot.status,
                    events=[event],
                    request_key=request_key,
                    request_result=result,
                    bot_due_in=clock.due_in(meta, state, version, now),
                    meta=meta.to_dict(),
                    tokens=change.tokens,
                )
            )
            if committed.outcome is CommitOutcome.APPLIED:
                if seat_control.bot_to_move(meta, state):
                    self.runner.kick(game_id)
                return _answer(await self.load(game_id), result, duplicate=False)
            if committed.outcome is CommitOutcome.DUPLICATE:
                assert committed.request_result is not None
                return _answer(await self.load(game_id), committed.request_result, True)
            if committed.outcome is CommitOutcome.NOT_FOUND:
                raise NotFound(f"no game {game_id}")
            if committed.outcome is CommitOutcome.SEAT_TAKEN:
                raise AlreadyExists(
                    f"seat {change.seat} of game {game_id} was taken by someone else meanwhile"
                )
            # STALE: the game moved on meanwhile; decide again on the new state.


def _answer(snapshot: Snapshot, result: dict[str, Any], duplicate: bool) -> SeatChanged:
    return SeatChanged(snapshot, result["seat"], result["version"], duplicate)


def _check_seat(snapshot: Snapshot, seat: int) -> None:
    seats = len(snapshot.info.seats)
    if not 0 <= seat < seats:
        raise InvalidArgument(f"seat {seat} does not exist: this game has seats 0-{seats - 1}")


def _check_running(snapshot: Snapshot) -> None:
    if snapshot.status == GameStatus.FINISHED:
        raise FailedPrecondition(f"game {snapshot.game_id} is over: its seats no longer change")


def _seat_request_key(token: str, request_id: str) -> str | None:
    return f"{hash_token(token)[:32]}:seat:{request_id}" if token and request_id else None
