"""Domain records on the wire: snapshots, views, events, records and hints as gamehost.v1
messages, and the few messages read back into domain values (``timer_from``)."""

from __future__ import annotations

import datetime as dt
from collections import OrderedDict
from typing import Any

from google.protobuf.timestamp_pb2 import Timestamp

from gamehost.v1 import gamehost_pb2 as pb
from games import CHANCE, TERMINAL
from services.archive.archive import ArchivedSummary
from services.bots.hints import Hint
from services.kinds import (
    BotStatus,
    EventKind,
    FinishReason,
    GameStatus,
    SeatChangeReason,
    SeatControl,
    SeatKind,
)
from services.play import seating
from services.play.reading import GameView, Record
from services.stores import Snapshot, StoredEvent
from services.stores.records import DEFAULT_MAX_TIMEOUTS, Seat, Timer
from services.turns import clock, steps
from services.views import view_of
from services.watch import events as ev

_SEAT_KIND = {SeatKind.HUMAN: pb.HUMAN, SeatKind.BOT: pb.BOT}
_EVENT_KIND = {
    EventKind.CREATED: pb.GAME_CREATED,
    EventKind.JOINED: pb.SEAT_JOINED,
    EventKind.ACTION: pb.ACTION,
    EventKind.FINISHED: pb.GAME_FINISHED,
    EventKind.SEAT_CHANGED: pb.SEAT_CHANGED,
}
_CONTROL = {
    SeatControl.AS_CREATED: pb.Seat.CONTROL_UNSPECIFIED,
    SeatControl.AWAY: pb.Seat.AWAY,
    SeatControl.HANDED_OVER: pb.Seat.HANDED_OVER,
    SeatControl.ADDED: pb.Seat.ADDED,
}
_REASON = {
    SeatChangeReason.BOT_ADDED: pb.SeatChange.BOT_ADDED,
    SeatChangeReason.AWAY: pb.SeatChange.AWAY,
    SeatChangeReason.TAKEN_BACK: pb.SeatChange.TAKEN_BACK,
    SeatChangeReason.HANDED_OVER: pb.SeatChange.HANDED_OVER,
    SeatChangeReason.TIMED_OUT: pb.SeatChange.TIMED_OUT,
    SeatChangeReason.JOINED: pb.SeatChange.JOINED,
    SeatChangeReason.OPTIONS: pb.SeatChange.OPTIONS,
}
_STATUS = {GameStatus.IN_PROGRESS: pb.IN_PROGRESS, GameStatus.FINISHED: pb.FINISHED}
_FINISH_REASON = {
    "": pb.FINISH_REASON_UNSPECIFIED,
    FinishReason.PLAYED_OUT: pb.PLAYED_OUT,
    FinishReason.ABANDONED: pb.ABANDONED,
}


_ACCOUNT_KIND = {"human": pb.ACCOUNT_HUMAN, "bot": pb.ACCOUNT_BOT}


def _seat_spec(seat: Seat) -> pb.SeatSpec:
    return pb.SeatSpec(
        kind=_SEAT_KIND[seat.shown_kind],
        bot_level=seat.level,
        name=seat.name,
        account=seat.account,
        account_kind=_ACCOUNT_KIND.get(seat.account_kind, pb.ACCOUNT_KIND_UNSPECIFIED),
        guest=_guest(seat, bool(seat.name)),
    )


def _guest(seat: Seat, taken: bool) -> bool:
    """A person with no account plays the seat (docs/accounts.md)."""
    return taken and not seat.account and seat.shown_kind == SeatKind.HUMAN


def _timestamp(seconds: float) -> Timestamp:
    """Unix seconds as a Timestamp, to the microsecond (as the export writes them)."""
    stamp = Timestamp()
    stamp.FromDatetime(dt.datetime.fromtimestamp(seconds, dt.UTC))
    return stamp


def game_summary(game: Snapshot | ArchivedSummary) -> pb.GameSummary:
    """A ListGames entry: a game from the store, or a finished one from the archive."""
    if isinstance(game, ArchivedSummary):
        return pb.GameSummary(
            game_id=game.game_id,
            game_type=game.game_type,
            players=game.players,
            status=_STATUS[game.status],
            version=game.version,
            seats=[_seat_spec(Seat.from_dict(s)) for s in game.seats],
            finished_at=game.finished_at,  # deprecated: finished_time
            finished_time=_timestamp(game.finished_at),
            tournament=game.tournament,
            returns=game.returns,
        )
    meta = game.info
    finished = game.status == GameStatus.FINISHED
    summary = pb.GameSummary(
        game_id=game.game_id,
        game_type=meta.game_type,
        players=meta.players,
        status=_STATUS[game.status],
        version=game.version,
        # Over: no seat to take (as the archive lists it once the game moves there).
        free_seats=0 if finished else len(seating.free_seats(game)),
        seats=[_seat_spec(s) for s in meta.seats],
        tournament=meta.tournament_name,
    )
    if finished and meta.finished_at:  # the time the archive lists it with, too
        summary.finished_at = meta.finished_at  # deprecated: finished_time
        summary.finished_time.CopyFrom(_timestamp(meta.finished_at))
    if finished:  # who won: the lobby and history show it
        state = steps.load_state(game)
        if state.is_terminal():  # an abandoned game stopped where it stood
            summary.returns.extend(state.returns())
    return summary


def seat_message(index: int, seat: Seat, taken: bool) -> pb.Seat:
    """One seat on the wire."""
    return pb.Seat(
        index=index,
        kind=_SEAT_KIND[seat.shown_kind],
        bot_level=seat.level,
        name=seat.name,
        taken=seat.is_bot or taken,
        control=_CONTROL[seat.control],
        decline_offers=seat.decline_offers,
        account=seat.account,
        account_kind=_ACCOUNT_KIND.get(seat.account_kind, pb.ACCOUNT_KIND_UNSPECIFIED),
        guest=_guest(seat, taken),
    )


def seat_messages(snapshot: Snapshot) -> list[pb.Seat]:
    meta = snapshot.info
    seats = [seat_message(i, s, i in snapshot.tokens) for i, s in enumerate(meta.seats)]
    if meta.clock is not None:
        for seat in seats:
            seat.timeouts = meta.clock.strikes[seat.index]
            seat.bank_seconds = meta.clock.banks[seat.index]
    return seats


def _timer(timer: Timer | None) -> pb.TurnTimer | None:
    if timer is None:
        return None
    return pb.TurnTimer(
        move_seconds=timer.move,
        bank_seconds=timer.bank,
        fallback_level=timer.fallback,
        max_timeouts=timer.max_timeouts,
    )


def _clock(running: dict[str, Any] | None) -> pb.TurnClock | None:
    if running is None:
        return None
    return pb.TurnClock(
        seat=running["seat"], deadline=running["deadline"], bank_seconds=running["bank"]
    )


def timer_from(message: pb.TurnTimer) -> Timer:
    """A CreateGame's timer (its bounds are checked by GameHost.create_game)."""
    return Timer(
        move=message.move_seconds,
        bank=message.bank_seconds,
        fallback=message.fallback_level or "random",
        max_timeouts=message.max_timeouts
        if message.HasField("max_timeouts")
        else DEFAULT_MAX_TIMEOUTS,
    )


def seat_change_message(data: dict[str, Any], event_id: int) -> pb.SeatChange:
    """A ``seat_changed`` event's data as a SeatChange (the seat is taken by then)."""
    return pb.SeatChange(
        seat=data["seat"],
        now=seat_message(data["seat"], Seat.from_dict(data["now"]), True),
        reason=_REASON[SeatChangeReason(data["reason"])],
        version=data["version"],
        event_id=event_id,
    )


def actor_message(actor: int) -> pb.Actor:
    """An engine actor (a seat, ``games.CHANCE`` or ``games.TERMINAL``) on the wire."""
    if actor == TERMINAL:
        return pb.Actor(kind=pb.Actor.NOBODY)
    if actor == CHANCE:
        return pb.Actor(kind=pb.Actor.CHANCE)
    if actor < 0:
        raise ValueError(f"engine actor {actor} is neither a seat, CHANCE nor TERMINAL")
    return pb.Actor(kind=pb.Actor.SEAT, seat=actor)


def _bot_status(snapshot: Snapshot, actor: int) -> int:
    if actor < 0 or not snapshot.info.seats[actor].is_bot:
        return pb.BOT_STATUS_UNSPECIFIED
    if snapshot.bot_status == f"{snapshot.version}:{BotStatus.WAITING}":
        return pb.BOT_WAITING_FOR_CAPACITY
    return pb.BOT_THINKING


def game_state(view: GameView) -> pb.GameState:
    snapshot, state = view.snapshot, view.state
    meta = snapshot.info
    actor = view.to_move
    message = pb.GameState(
        game_id=snapshot.game_id,
        game_type=meta.game_type,
        version=snapshot.version,
        status=_STATUS[snapshot.status],
        viewer_seat=view.viewer,  # None (a spectator): the field stays absent
        to_move=actor_message(actor),
        seats=seat_messages(snapshot),
        returns=state.returns() if state.is_terminal() else [],
        options={k: str(v) for k, v in meta.options.items()},
        legal_actions=[pb.LegalAction(id=a, notation=t) for a, t in view.legal_actions],
        last_event_id=snapshot.last_event_id,
        private=meta.private,
        spectators=meta.spectators,
        bot_status=_bot_status(snapshot, actor),
        bots_by_anyone=meta.bots_by_anyone,
        rejoin_handed_seats=meta.rejoin_handed_seats,
        timer=_timer(meta.timer),
        clock=_clock(clock.running(meta, snapshot.version)),
        finish_reason=_FINISH_REASON[view.finish_reason],
    )
    seen = view_of(meta.game_type, state, view.viewer, view.withheld)
    if seen is not None:  # a game served without a view message (services.views) sends none
        getattr(message, meta.game_type).CopyFrom(seen)
    return message


def game_event(event_id: int, data: dict[str, Any]) -> pb.GameEvent:
    kind = data["kind"]
    message = pb.GameEvent(
        event_id=event_id,
        kind=_EVENT_KIND[kind],
        version=data["version"],
        to_move=actor_message(data["to_move"]),
    )
    if kind == EventKind.ACTION:
        message.actor.CopyFrom(actor_message(data["seat"]))
        message.audience.extend(data["audience"] or ())
        message.hidden = data["hidden"]
        message.action_id = data["action"]
        message.notation = data["text"]
        message.status = pb.IN_PROGRESS
        message.timeout = data.get("timeout", False)
    elif kind == EventKind.SEAT_CHANGED:
        message.actor.CopyFrom(actor_message(data["seat"]))
        message.seat_change.CopyFrom(seat_change_message(data, event_id))
        message.notation = f"seat {data['seat']}: {data['reason'].replace('_', ' ')}"
    elif kind == EventKind.JOINED:
        message.actor.CopyFrom(actor_message(data["seat"]))
        message.notation = f"seat {data['seat']} joined"
    elif kind == EventKind.FINISHED:
        message.status = pb.FINISHED
        message.returns.extend(data["returns"])
        message.finish_reason = _FINISH_REASON[ev.finish_reason(data)]
    if "clock" in data:
        message.clock.CopyFrom(_clock(data["clock"]))
    # Set by Reading.watch on the newest event when it leaves the caller to move.
    message.legal_actions.extend(pb.LegalAction(id=a, notation=t) for a, t in data.get("legal", ()))
    return message


class SharedEvents:
    """WatchGame's messages, built once per event and audience: every stream whose
    viewer sees an event alike (it in full, or redacted) is sent the same GameEvent.
    ``visible`` decides what a viewer sees; the message is keyed by the stored event
    (the hub hands one object to every stream of a replica) and by whether it is
    redacted for this viewer, so a redacted message never reaches a viewer who may see
    more, nor a full one a viewer who may not. The newest event of a seat to move,
    which carries that seat's legal actions, is built for it alone."""

    LIMIT = 4096  # events remembered (the newest ones): a few per watched game

    def __init__(self) -> None:
        # id(stored) -> (stored, {redacted: message}); holding ``stored`` keeps its id its own.
        self._built: OrderedDict[int, tuple[StoredEvent, dict[bool, pb.GameEvent]]] = OrderedDict()

    def message(self, stored: StoredEvent, seen: dict[str, Any]) -> pb.GameEvent:
        """The GameEvent of ``seen``, what one viewer may see of ``stored``."""
        if "legal" in seen:
            return game_event(stored.event_id, seen)
        entry = self._built.get(id(stored))
        if entry is None or entry[0] is not stored:
            entry = self._built[id(stored)] = (stored, {})
            if len(self._built) > self.LIMIT:
                self._built.popitem(last=False)
        redacted = bool(seen.get("hidden"))
        message = entry[1].get(redacted)
        if message is None:
            message = entry[1][redacted] = game_event(stored.event_id, seen)
        return message


def _game_view(game_type: str, view: Any) -> pb.GameView:
    message = pb.GameView()
    getattr(message, game_type).CopyFrom(view)
    return message


def game_record(record: Record) -> pb.GameRecord:
    snapshot = record.snapshot
    meta = snapshot.info
    game_type = meta.game_type
    message = pb.GameRecord(
        game_id=snapshot.game_id,
        game_type=game_type,
        players=meta.players,
        options={k: str(v) for k, v in meta.options.items()},
        initial_state=record.initial_state,
        initial_to_move=actor_message(record.initial_to_move),
        entries=[
            pb.RecordEntry(
                ply=e["version"],
                actor=actor_message(e["seat"]),
                audience=e["audience"] or (),
                hidden=e["hidden"],
                action_id=e["action"],
                notation=e["text"],
                to_move=actor_message(e["to_move"]),
                view=_game_view(game_type, e["view"]) if e.get("view") is not None else None,
                timeout=e.get("timeout", False),
            )
            for e in record.entries
        ],
        seat_changes=[seat_change_message(c, c["event_id"]) for c in record.seat_changes],
        status=_STATUS[snapshot.status],
        returns=record.returns,
        version=snapshot.version,
        finish_reason=_FINISH_REASON[record.finish_reason],
    )
    if record.initial_view is not None:
        message.initial_view.CopyFrom(_game_view(game_type, record.initial_view))
    return message


def hint_response(hint: Hint) -> pb.HintResponse:
    return pb.HintResponse(
        game_id=hint.game_id,
        version=hint.version,
        seat=hint.seat,
        bot_level=hint.level,
        action_id=hint.action,
        notation=hint.notation,
        top_actions=[
            pb.HintAction(
                action_id=a.action, notation=a.notation, visits=a.visits, win_share=a.win_share
            )
            for a in hint.top
        ],
        iterations=hint.iterations,
        trees=hint.trees,
    )
