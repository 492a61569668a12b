"""The gRPC edge: maps GameHost calls and errors onto the gamehost.v1 API."""

from __future__ import annotations

import contextlib
import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import grpc

from gamehost.v1 import gamehost_pb2 as pb
from gamehost.v1 import gamehost_pb2_grpc as pb_grpc
from games import CHANCE, TERMINAL
from services import metrics
from services.api import record_pages
from services.archive.archive import ArchivedSummary
from services.archive.export import BadExportQuery, ExportQuery, export_lines
from services.archive.listing import ListQuery
from services.bots.hints import Hint, HintService
from services.errors import (
    FIELD_METADATA,
    FailedPrecondition,
    InvalidArgument,
    ServiceError,
    infrastructure_errors,
)
from services.kinds import (
    BotStatus,
    EventKind,
    FinishReason,
    GameStatus,
    SeatChangeReason,
    SeatControl,
    SeatKind,
)
from services.limits import quotas
from services.limits.request_limits import check_request
from services.play import seating
from services.play.host import GameHost, GameView, Record, SeatSpec
from services.stores import Snapshot
from services.tournament import wire
from services.tournament.service import TournamentService
from services.turns import clock
from services.turns.seat_control import control_of
from services.views import view_of
from services.watch import events as ev

log = logging.getLogger(__name__)

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


def _seat_spec(seat: dict[str, Any]) -> pb.SeatSpec:
    return pb.SeatSpec(
        kind=_SEAT_KIND.get(seat["kind"], pb.HUMAN),
        bot_level=seat.get("level", ""),
        name=seat.get("name", ""),
    )


def game_summary(game: Snapshot | ArchivedSummary) -> pb.GameSummary:
    """A ListGames entry: a game from the store, or a finished one from the archive."""
    if isinstance(game, ArchivedSummary):
        return pb.GameSummary(
            game_id=game.game_id,
            game_type=game.game_type,
            players=game.players,
            status=_STATUS[game.status],
            seats=[_seat_spec(s) for s in game.seats],
            finished_at=game.finished_at,
            tournament=game.tournament,
        )
    return pb.GameSummary(
        game_id=game.game_id,
        game_type=game.meta["game_type"],
        players=game.meta["players"],
        status=_STATUS[game.status],
        version=game.version,
        free_seats=len(seating.free_seats(game)),
        seats=[_seat_spec(s) for s in game.meta["seats"]],
        tournament=(game.meta.get("tournament") or {}).get("name", ""),
    )


_INFRASTRUCTURE = infrastructure_errors()


@dataclass(frozen=True)
class MalformedRequest:
    """What the lenient deserializer (or the HTTP gateway) hands the servicer for a
    request that does not parse."""

    reason: str
    message: str = ""  # the whole answer, when the reader has a better one
    field: str = ""  # the request field it is about, when the reader knows


def _lenient(parse: Callable[[bytes], Any]) -> Callable[[bytes], Any]:
    """A request deserializer that defers a parse failure to the servicer, which
    answers INVALID_ARGUMENT (grpc itself would answer INTERNAL)."""

    def deserialize(data: bytes) -> Any:
        try:
            return parse(data)
        except Exception as exc:  # DecodeError, or anything else the parser raises
            return MalformedRequest(type(exc).__name__)

    return deserialize


def method_handlers(servicer: GameHostServicer) -> dict[str, grpc.RpcMethodHandler]:
    """The GameHost service's handlers by method name, with lenient request
    deserializers: what the gRPC server and the HTTP gateway both serve."""
    service = pb.DESCRIPTOR.services_by_name["GameHost"]
    handlers = {}
    for method in service.methods:
        request_class = getattr(pb, method.input_type.name)
        response_class = getattr(pb, method.output_type.name)
        make = (
            grpc.unary_stream_rpc_method_handler
            if method.server_streaming
            else grpc.unary_unary_rpc_method_handler
        )
        handlers[method.name] = make(
            getattr(servicer, method.name),
            request_deserializer=_lenient(request_class.FromString),
            response_serializer=response_class.SerializeToString,
        )
    return handlers


def add_to_server(servicer: GameHostServicer, server: grpc.aio.Server) -> None:
    """Register the GameHost service."""
    service = pb.DESCRIPTOR.services_by_name["GameHost"]
    handlers = method_handlers(servicer)
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(service.full_name, handlers),)
    )


def _admit(request: Any) -> None:
    """Refuse requests that did not parse or whose fields are over their caps."""
    if isinstance(request, MalformedRequest):
        raise InvalidArgument(
            request.message or f"the request is not a valid protobuf message ({request.reason})",
            field=request.field,
        )
    check_request(request)


async def _answer_error(name: str, exc: Exception, context: grpc.aio.ServicerContext) -> None:
    """The one mapping of exceptions onto statuses, for unary and streaming RPCs alike."""
    field = ""
    if isinstance(exc, ServiceError):
        code, message, field = exc.code, str(exc), exc.field
        if field and not message.startswith(field):
            message = f"{field}: {message}"  # what the message is about comes first
    elif isinstance(exc, _INFRASTRUCTURE):
        # No exception names in answers: the log has them.
        code, message = "UNAVAILABLE", "the game store is not answering; retry shortly"
        log.warning("%s: %s: %s", name, type(exc).__name__, exc)
    else:
        code, message = "INTERNAL", "internal error; it is logged"
        log.error("%s failed", name, exc_info=exc)
    metrics.RPC_ERRORS.labels(name, code).inc()
    trailing = ((FIELD_METADATA, field),) if field else ()
    await context.abort(grpc.StatusCode[code], message, trailing_metadata=trailing)


def _unary(method: Callable) -> Callable:
    """Check the request, run the call, and map any failure onto a status code."""

    @functools.wraps(method)
    async def wrapper(self: Any, request: Any, context: grpc.aio.ServicerContext) -> Any:
        try:
            _admit(request)
            return await method(self, request, context)
        except grpc.aio.AbortError:
            raise
        except Exception as exc:
            await _answer_error(method.__name__, exc, context)

    return wrapper


def _streaming(method: Callable) -> Callable:
    """``_unary`` for server-streaming calls."""

    @functools.wraps(method)
    async def wrapper(self: Any, request: Any, context: grpc.aio.ServicerContext) -> Any:
        try:
            _admit(request)
            # aclosing: a cancelled stream ends its handler (and its feed) at once.
            async with contextlib.aclosing(method(self, request, context)) as items:
                async for item in items:
                    yield item
        except grpc.aio.AbortError:
            raise
        except Exception as exc:
            await _answer_error(method.__name__, exc, context)

    return wrapper


def seat_message(index: int, seat: dict[str, Any], taken: bool) -> pb.Seat:
    """One ``meta["seats"]`` entry on the wire."""
    return pb.Seat(
        index=index,
        kind=_SEAT_KIND[seat["kind"]],
        bot_level=seat["level"],
        name=seat["name"],
        taken=seat["kind"] == SeatKind.BOT or taken,
        control=_CONTROL[control_of(seat)],
        decline_offers=bool(seat.get("decline_offers")),
    )


def _seats(snapshot: Snapshot) -> list[pb.Seat]:
    seats = [seat_message(i, s, i in snapshot.tokens) for i, s in enumerate(snapshot.meta["seats"])]
    running = snapshot.meta.get("clock")
    if running is not None:
        for seat in seats:
            seat.timeouts = running["strikes"][seat.index]
            seat.bank_seconds = running["banks"][seat.index]
    return seats


def _timer(meta: dict[str, Any]) -> pb.TurnTimer | None:
    timer = clock.timer_of(meta)
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


def timer_from(message: pb.TurnTimer) -> clock.Timer:
    """A CreateGame's timer (its bounds are checked by GameHost.create_game)."""
    return clock.Timer(
        move=message.move_seconds,
        bank=message.bank_seconds,
        fallback=message.fallback_level or "random",
        max_timeouts=message.max_timeouts
        if message.HasField("max_timeouts")
        else clock.DEFAULT_MAX_TIMEOUTS,
    )


def seat_change_message(data: dict[str, Any], event_id: int) -> pb.SeatChange:
    """A ``seat_changed`` event's data as a SeatChange (the seat is taken by then)."""
    return pb.SeatChange(
        seat=data["seat"],
        now=seat_message(data["seat"], data["now"], True),
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
    if actor < 0 or snapshot.meta["seats"][actor]["kind"] != SeatKind.BOT:
        return pb.BOT_STATUS_UNSPECIFIED
    if snapshot.bot_status == f"{snapshot.version}:{BotStatus.WAITING}":
        return pb.BOT_WAITING_FOR_CAPACITY
    return pb.BOT_THINKING


def game_state(view: GameView) -> pb.GameState:
    snapshot, state = view.snapshot, view.state
    actor = view.to_move
    message = pb.GameState(
        game_id=snapshot.game_id,
        game_type=snapshot.meta["game_type"],
        version=snapshot.version,
        status=_STATUS[snapshot.status],
        viewer_seat=view.viewer,  # None (a spectator): the field stays absent
        to_move=actor_message(actor),
        seats=_seats(snapshot),
        returns=state.returns() if state.is_terminal() else [],
        options={k: str(v) for k, v in snapshot.meta["options"].items()},
        legal_actions=[pb.LegalAction(id=a, notation=t) for a, t in view.legal_actions],
        last_event_id=snapshot.last_event_id,
        private=snapshot.meta.get("private", False),
        spectators=snapshot.meta.get("spectators", True),
        bot_status=_bot_status(snapshot, actor),
        bots_by_anyone=snapshot.meta.get("bots_by_anyone", False),
        rejoin_handed_seats=snapshot.meta.get("rejoin_handed_seats", False),
        timer=_timer(snapshot.meta),
        clock=_clock(clock.running(snapshot.meta, snapshot.version)),
        finish_reason=_FINISH_REASON[view.finish_reason],
    )
    game_type = snapshot.meta["game_type"]
    getattr(message, game_type).CopyFrom(view_of(game_type, state, view.viewer))
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
    # Set by GameHost.watch on the newest event when it leaves the caller to move.
    message.legal_actions.extend(pb.LegalAction(id=a, notation=t) for a, t in data.get("legal", ()))
    return message


def _game_view(game_type: str, view: Any) -> pb.GameView:
    message = pb.GameView()
    getattr(message, game_type).CopyFrom(view)
    return message


def game_record(record: Record) -> pb.GameRecord:
    snapshot = record.snapshot
    game_type = snapshot.meta["game_type"]
    message = pb.GameRecord(
        game_id=snapshot.game_id,
        game_type=game_type,
        players=snapshot.meta["players"],
        options={k: str(v) for k, v in snapshot.meta["options"].items()},
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
                view=_game_view(game_type, e["view"]) if "view" in e else None,
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


class GameHostServicer(pb_grpc.GameHostServicer):
    def __init__(
        self,
        host: GameHost,
        tournaments: TournamentService | None = None,
        hints: HintService | None = None,
    ) -> None:
        self.host = host
        self.tournaments = tournaments
        self.hints = hints

    @_unary
    async def ListGameTypes(self, request, context):
        return pb.ListGameTypesResponse(
            game_types=[
                pb.GameType(
                    name=g.info.name,
                    title=g.info.title,
                    min_players=g.info.min_players,
                    max_players=g.info.max_players,
                    summary=g.info.summary,
                    default_options={k: str(v) for k, v in g.info.default_options.items()},
                )
                for g in self.host.game_types()
            ],
            bot_levels=self.host.bot_levels(),
        )

    @_unary
    async def CreateGame(self, request, context):
        kinds = {pb.HUMAN: SeatKind.HUMAN, pb.BOT: SeatKind.BOT}
        seats = []
        for i, seat in enumerate(request.seats):
            if seat.kind not in kinds:
                raise InvalidArgument("set kind to HUMAN or BOT", field=f"seats[{i}].kind")
            seats.append(SeatSpec(kinds[seat.kind], seat.bot_level, seat.name))
        view = await self.host.create_game(
            request.game_type,
            seats,
            dict(request.options),
            request.seed if request.HasField("seed") else None,
            private=request.private,
            spectators=request.spectators if request.HasField("spectators") else True,
            owner=quotas.caller_of(context),
            bots_by_anyone=request.bots_by_anyone,
            rejoin_handed_seats=request.rejoin_handed_seats,
            timer=timer_from(request.timer) if request.HasField("timer") else None,
        )
        return pb.CreateGameResponse(
            creator_token=view.creator_token,
            game_id=view.snapshot.game_id,
            state=game_state(view),
            invite_codes=[
                pb.AccessInviteCode(seat=seat, code=code)
                for seat, code in sorted(view.invite_codes.items())
            ],
        )

    @_unary
    async def JoinGame(self, request, context):
        seat, token = await self.host.join_game(
            request.game_id,
            request.seat if request.HasField("seat") else None,
            request.name,
            request.invite_code,
        )
        return pb.JoinGameResponse(game_id=request.game_id, seat=seat, token=token)

    @_unary
    async def ListGames(self, request, context):
        status = {pb.IN_PROGRESS: GameStatus.IN_PROGRESS, pb.FINISHED: GameStatus.FINISHED}
        games, next_token = await self.host.list_games(
            ListQuery(
                game_type=request.game_type,
                player=request.player,
                tournament=request.tournament,
                bot_level=request.bot_level,
                finished_after=request.finished_after or None,
                finished_before=request.finished_before or None,
                page_size=request.page_size or request.limit or 100,
                page_token=request.page_token,
                status=status.get(request.status, ""),
            )
        )
        return pb.ListGamesResponse(
            games=[game_summary(g) for g in games], next_page_token=next_token
        )

    @_unary
    async def GetState(self, request, context):
        return game_state(await self.host.get_state(request.game_id, request.token))

    @_unary
    async def Hint(self, request, context):
        if self.hints is None:
            raise FailedPrecondition("this server does not give hints")
        hint = await self.hints.hint(
            request.game_id,
            request.token,
            request.bot_level,
            request.version if request.HasField("version") else None,
            request.seat if request.HasField("seat") else None,
        )
        return hint_response(hint)

    @_unary
    async def SubmitAction(self, request, context):
        which = request.WhichOneof("action")
        done = await self.host.submit_action(
            request.game_id,
            request.token,
            expected_version=request.expected_version
            if request.HasField("expected_version")
            else None,
            action=request.action_id if which == "action_id" else None,
            notation=request.notation if which == "notation" else None,
            request_id=request.request_id,
            seat=request.seat if request.HasField("seat") else None,
        )
        return pb.SubmitActionResponse(
            version=done.version,
            duplicate=done.duplicate,
            notation=done.notation,
            action_id=done.action,
        )

    @_streaming
    async def WatchGame(self, request, context):
        # aclosing: a cancelled stream leaves its feed at once, not when collected.
        async with contextlib.aclosing(
            self.host.watch(request.game_id, request.token, request.after_event_id)
        ) as events:
            async for stored, data in events:
                yield game_event(stored.event_id, data)

    @_unary
    async def GetRecord(self, request, context):
        offset = record_pages.offset_of(
            request.page_token, request.game_id, request.include_views
        )
        record = await self.host.record(
            request.game_id,
            request.token,
            request.include_views,
            offset=offset,
            limit=record_pages.page_size(request.page_size),
        )
        message = game_record(record)
        if offset:
            message.initial_state = b""  # the first page has it
        if record.next_offset is not None:
            message.next_page_token = record_pages.page_token(
                request.game_id, request.include_views, record.next_offset
            )
        return message

    # ------------------------------------------------------------------ seats on demand
    @_unary
    async def AddBot(self, request, context):
        changed = await self.host.seating.add_bot(
            request.game_id,
            request.seat,
            request.bot_level,
            request.name,
            request.creator_token,
            request.request_id,
        )
        return _seat_changed(changed)

    @_unary
    async def HandOverSeat(self, request, context):
        changed = await self.host.seating.hand_over(
            request.game_id, request.token, request.bot_level, request.for_good, request.request_id
        )
        return _seat_changed(changed)

    @_unary
    async def TakeBackSeat(self, request, context):
        changed = await self.host.seating.take_back(
            request.game_id, request.token, request.request_id
        )
        return _seat_changed(changed)

    @_unary
    async def SetSeatOptions(self, request, context):
        changed = await self.host.seating.set_options(
            request.game_id, request.token, request.decline_offers, request.request_id
        )
        return _seat_changed(changed)

    # ------------------------------------------------------------------ tournaments
    def _tournaments(self) -> TournamentService:
        if self.tournaments is None:
            raise FailedPrecondition("this server does not host tournaments")
        return self.tournaments

    @_unary
    async def CreateTournament(self, request, context):
        definition = wire.definition_from(request.definition)
        return wire.tournament_message(await self._tournaments().create(definition))

    @_unary
    async def GetTournament(self, request, context):
        view = await self._tournaments().get(request.name, request.include_exports)
        return wire.tournament_message(view)

    @_unary
    async def ListTournaments(self, request, context):
        views = await self._tournaments().list(request.limit)
        return pb.ListTournamentsResponse(tournaments=[wire.summary_message(v) for v in views])

    @_streaming
    async def ExportGames(self, request, context):
        archive = self.host.archive
        if archive is None:
            raise FailedPrecondition(
                "this server keeps no archive of finished games (serve --archive URL)"
            )
        fields = {"game": request.game_type, "since": request.since, "player": request.player}
        fields["tournament"] = request.tournament
        try:
            query = ExportQuery.parse({k: v for k, v in fields.items() if v})
        except BadExportQuery as exc:
            raise InvalidArgument(str(exc)) from None
        async for line in export_lines(archive, query):
            yield pb.ExportedGame(json=line.rstrip("\n"))

    @_streaming
    async def WatchTournament(self, request, context):
        async with contextlib.aclosing(
            self._tournaments().watch(request.name, request.after_event_id, request.entrant_token)
        ) as events:
            async for stored, data in events:
                yield wire.event_message(stored.event_id, data)

    @_unary
    async def JoinTournament(self, request, context):
        token = await self._tournaments().join(request.name, request.entrant)
        return pb.JoinTournamentResponse(
            name=request.name, entrant=request.entrant, entrant_token=token
        )

    @_unary
    async def ListTournamentSeats(self, request, context):
        seats = await self._tournaments().seats(request.name, request.entrant_token)
        return pb.ListTournamentSeatsResponse(seats=[pb.TournamentSeat(**s) for s in seats])

    @_unary
    async def CancelTournament(self, request, context):
        return wire.tournament_message(await self._tournaments().cancel(request.name))


def _seat_changed(changed: seating.SeatChanged) -> pb.SeatChangeResponse:
    return pb.SeatChangeResponse(
        game_id=changed.snapshot.game_id,
        now=_seats(changed.snapshot)[changed.seat],
        version=changed.version,
        duplicate=changed.duplicate,
    )
