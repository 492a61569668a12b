"""The gRPC edge: each GameHost method turns its protobuf request into a domain call
(``play``, ``bots.hints``, ``tournament``, ``ladder``, ``archive``) and its result into a
response
(``messages``); ``status`` admits requests and maps errors onto status codes."""

from __future__ import annotations

import contextlib
import logging

import grpc

from gamehost.v1 import gamehost_pb2 as pb
from gamehost.v1 import gamehost_pb2_grpc as pb_grpc
from games import engine_build
from services.accounts import wire as account_wire
from services.accounts.accounts import Account, AccountKind
from services.accounts.challenges import ChallengeService
from services.accounts.events import PlayerEvents
from services.accounts.service import AccountService
from services.api import record_pages
from services.api.messages import (
    SharedEvents,
    game_record,
    game_state,
    game_summary,
    hint_response,
    seat_messages,
    timer_from,
)
from services.api.status import lenient, streaming, unary
from services.archive.export import ExportQuery, export_lines
from services.archive.listing import ListQuery
from services.bots.hints import HintService
from services.errors import (
    FailedPrecondition,
    InvalidArgument,
    NotFound,
)
from services.kinds import (
    GameStatus,
    SeatKind,
)
from services.ladder import schema as ladder_schema
from services.ladder import wire as ladder_wire
from services.ladder.service import LadderService
from services.ladder.sessions import Sessions
from services.limits import access, quotas
from services.matchmaking.service import QuickPlay
from services.play import seating
from services.play.host import GameHost, Joiner, SeatSpec
from services.stores import Snapshot
from services.tournament import wire
from services.tournament.service import TournamentService

log = logging.getLogger(__name__)


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
            request_deserializer=lenient(request_class.FromString),
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


class GameHostServicer(pb_grpc.GameHostServicer):
    def __init__(
        self,
        host: GameHost,
        tournaments: TournamentService | None = None,
        hints: HintService | None = None,
        ladder: LadderService | None = None,
        sessions: Sessions | None = None,
        accounts: AccountService | None = None,
        quick_play: QuickPlay | None = None,
    ) -> None:
        self.accounts = accounts
        # An account's event stream and its challenges live where accounts do.
        self.players = None if accounts is None else PlayerEvents(host, accounts)
        self.challenges = (
            None if self.players is None else ChallengeService(host, accounts, self.players)
        )
        self.quick_play = quick_play
        self.host = host
        self.tournaments = tournaments
        self.hints = hints
        self.ladder = ladder
        self.sessions = sessions
        self._events = SharedEvents()  # WatchGame's messages, shared between streams

    @unary
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
            engine_build=engine_build(),
        )

    @unary
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
            rated=request.rated,
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

    @unary
    async def JoinGame(self, request, context):
        key = _bot_key(request.key, context)
        joiner = None
        if key:
            account = await self._accounts().authenticate(key)
            joiner = Joiner(account.name, account.kind.value, account.seat_secret)
        seat, token = await self.host.join_game(
            request.game_id,
            request.seat if request.HasField("seat") else None,
            request.name,
            request.invite_code,
            joiner,
        )
        if joiner is not None:
            await self._tell_started(joiner.name, request.game_id, seat)
        return pb.JoinGameResponse(game_id=request.game_id, seat=seat, token=token)

    async def _tell_started(self, account: str, game_id: str, seat: int) -> None:
        """The account's event stream records its new game now, stream or no stream, so
        its end is told even if no stream of it is open meanwhile. The seat is taken
        already: a failure here (the archive is down) leaves it to the account's next
        stream, which finds the game while it is live."""
        assert self.players is not None
        try:
            game_type = (await self.host.load(game_id)).info.game_type
            await self.players.started(account, game_id, game_type, seat)
        except Exception as exc:
            log.warning(
                "%s's start in %s not recorded: %s: %s", account, game_id, type(exc).__name__, exc
            )

    @unary
    async def ListGames(self, request, context):
        status = {pb.IN_PROGRESS: GameStatus.IN_PROGRESS, pb.FINISHED: GameStatus.FINISHED}
        account, mine = request.account, ""
        if request.mine:
            holder = await self._accounts().authenticate(_bot_key(request.key, context))
            if account and account.casefold() != holder.name.casefold():
                raise InvalidArgument(
                    "mine lists the games of the key's account: send no account", field="account"
                )
            account = mine = holder.name
        games, next_token = await self.host.list_games(
            ListQuery(
                game_type=request.game_type,
                player=request.player,
                account=account,
                tournament=request.tournament,
                bot_level=request.bot_level,
                finished_after=request.finished_after or None,
                finished_before=request.finished_before or None,
                page_size=request.page_size or request.limit or 100,
                page_token=request.page_token,
                status=status.get(request.status, ""),
            )
        )
        if mine:  # live games first (the archive's pages hold finished ones alone)
            games = sorted(games, key=lambda g: g.status != GameStatus.IN_PROGRESS)
        summaries = [game_summary(g) for g in games]
        if mine:
            for game, summary in zip(games, summaries, strict=True):
                summary.your_turn = isinstance(game, Snapshot) and self.host.to_move(game, mine)
        return pb.ListGamesResponse(games=summaries, next_page_token=next_token)

    @unary
    async def GetState(self, request, context):
        return game_state(await self.host.get_state(request.game_id, request.token))

    @unary
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

    @unary
    async def SubmitAction(self, request, context):
        which = request.WhichOneof("action")
        done = await self.host.submitting.submit_action(
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

    @streaming
    async def WatchGame(self, request, context):
        # aclosing: a cancelled stream leaves its feed at once, not when collected.
        async with contextlib.aclosing(
            self.host.reading.watch(request.game_id, request.token, request.after_event_id)
        ) as events:
            async for stored, data in events:
                yield self._events.message(stored, data)

    @unary
    async def GetRecord(self, request, context):
        offset = record_pages.offset_of(request.page_token, request.game_id, request.include_views)
        record = await self.host.reading.record(
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
    @unary
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

    @unary
    async def HandOverSeat(self, request, context):
        changed = await self.host.seating.hand_over(
            request.game_id, request.token, request.bot_level, request.for_good, request.request_id
        )
        return _seat_changed(changed)

    @unary
    async def TakeBackSeat(self, request, context):
        changed = await self.host.seating.take_back(
            request.game_id, request.token, request.request_id
        )
        return _seat_changed(changed)

    @unary
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

    @unary
    async def CreateTournament(self, request, context):
        definition = wire.definition_from(request.definition)
        return wire.tournament_message(await self._tournaments().create(definition))

    @unary
    async def GetTournament(self, request, context):
        view = await self._tournaments().get(request.name, request.include_exports)
        return wire.tournament_message(view)

    @unary
    async def ListTournaments(self, request, context):
        views = await self._tournaments().list(request.limit)
        return pb.ListTournamentsResponse(tournaments=[wire.summary_message(v) for v in views])

    @streaming
    async def ExportGames(self, request, context):
        archive = self.host.archive
        if archive is None:
            raise FailedPrecondition(
                "this server keeps no archive of finished games (serve --archive URL)"
            )
        fields = {"game": request.game_type, "since": request.since, "player": request.player}
        fields["tournament"] = request.tournament
        fields["bot"] = request.bot
        query = ExportQuery.parse({k: v for k, v in fields.items() if v})  # BadExportQuery
        async for line in export_lines(archive, query, ladder_schema.games_of):
            yield pb.ExportedGame(json=line.rstrip("\n"))

    @streaming
    async def WatchTournament(self, request, context):
        async with contextlib.aclosing(
            self._tournaments().watch(request.name, request.after_event_id, request.entrant_token)
        ) as events:
            async for stored, data in events:
                yield wire.event_message(stored.event_id, data)

    @unary
    async def JoinTournament(self, request, context):
        token = await self._tournaments().join(request.name, request.entrant)
        return pb.JoinTournamentResponse(
            name=request.name, entrant=request.entrant, entrant_token=token
        )

    @unary
    async def ListTournamentSeats(self, request, context):
        seats = await self._tournaments().seats(request.name, request.entrant_token)
        return pb.ListTournamentSeatsResponse(seats=[pb.TournamentSeat(**s) for s in seats])

    @unary
    async def CancelTournament(self, request, context):
        return wire.tournament_message(await self._tournaments().cancel(request.name))

    # ------------------------------------------------------------------ the ladder
    def _ladder(self) -> LadderService:
        if self.ladder is None:
            raise FailedPrecondition(
                "this server runs no ladder (gamehost serve --ladder GAME:PLAYERS)"
            )
        return self.ladder

    @unary
    async def RegisterBot(self, request, context):
        account, key = await self._ladder().register(
            request.name, request.game_type, request.players, quotas.caller_of(context)
        )
        info = ladder_wire.bot_info(account)
        return pb.RegisterBotResponse(bot=account.name, key=key, info=info)

    @unary
    async def ListBots(self, request, context):
        found = await self._ladder().list(request.game_type, request.players)
        return pb.ListBotsResponse(bots=[ladder_wire.bot_info(a) for a in found])

    @unary
    async def RevokeBot(self, request, context):
        caller = quotas.caller_of(context)
        account = await self._ladder().revoke(request.name, _bot_key(request.key, context), caller)
        self._sessions().let_go(account.name)
        return ladder_wire.bot_info(account)

    @unary
    async def GetBot(self, request, context):
        page = await self._ladder().page(request.name, request.limit)
        message = pb.BotPage(
            bot=ladder_wire.bot_info(page.account),
            games=[ladder_wire.bot_game(g) for g in page.games],
        )
        if page.standing is not None:
            message.standing.CopyFrom(ladder_wire.standing(page.standing))
        return message

    @unary
    async def GetLadder(self, request, context):
        ladder = self._ladder()
        game_type, players = request.game_type, request.players
        if not game_type and not players:
            game_type, players = ladder.config.ladders[0].game, ladder.config.ladders[0].players
        rows = await ladder.standings(game_type, players)
        return pb.Ladder(
            game_type=game_type,
            players=players,
            standings=[ladder_wire.standing(r) for r in rows],
            house=list(ladder.config.house),
            standings_text=ladder_wire.standings_text(rows),
            ladders=[spec.name for spec in ladder.config.ladders],
        )

    def _sessions(self) -> Sessions:
        self._ladder()
        assert self.sessions is not None
        return self.sessions

    @streaming
    async def ConnectBot(self, request, context):
        if request.protocol not in (0, 1):
            raise FailedPrecondition(
                f"this server speaks bot protocol 1, not {request.protocol}", field="protocol"
            )
        async with contextlib.aclosing(
            self._sessions().connect(_bot_key(request.key, context), request.concurrency)
        ) as directives:
            async for directive in directives:
                yield ladder_wire.directive(directive)

    @unary
    async def BotReply(self, request, context):
        answered = await self._sessions().reply(
            _bot_key(request.key, context),
            request.game_id,
            request.version,
            request.line,
            request.error,
        )
        return ladder_wire.answered(answered)

    # ------------------------------------------------------------------ accounts
    def _accounts(self) -> AccountService:
        if self.accounts is None:
            raise FailedPrecondition(
                "this server keeps no accounts: they live in the archive (--archive URL)"
            )
        return self.accounts

    async def _account_message(self, account: Account) -> pb.Account:
        """The account with its ratings (one per game and player count, a bot's ladder
        among them, each with its newest rated games' points); games played: a bot's rated ladder games, a human's archived games."""
        service = self._accounts()
        rated = await service.ratings(account.name)
        history = await service.history(account.name, [r.ladder for r in rated])
        ratings = [
            pb.AccountRating(
                game_type=r.game_type,
                players=r.players,
                mu=r.mu,
                sigma=r.sigma,
                ordinal=r.ordinal,
                games=r.games,
                history=[
                    pb.RatingPoint(
                        game_id=p.game_id,
                        rated_at=p.rated_at,
                        mu=p.mu,
                        sigma=p.sigma,
                        ordinal=p.ordinal,
                    )
                    for p in history[r.ladder]
                ],
            )
            for r in rated
        ]
        if account.kind == AccountKind.BOT and self.ladder is not None:
            page = await self.ladder.page(account.name, 1)
            return account_wire.account(account, ratings, page.account.games)
        archive = self.host.archive
        played = 0 if archive is None else await archive.played(account.name)
        return account_wire.account(account, ratings, played)

    @unary
    async def CreateAccount(self, request, context):
        account, key = await self._accounts().create(request.name, quotas.caller_of(context))
        info = await self._account_message(account)
        return pb.CreateAccountResponse(account=account.name, key=key, info=info)

    @unary
    async def GetAccount(self, request, context):
        account = await self._accounts().get(request.name)
        return await self._account_message(account)

    @unary
    async def RotateAccountKey(self, request, context):
        account, key = await self._accounts().rotate(request.name, _bot_key(request.key, context))
        info = await self._account_message(account)
        return pb.CreateAccountResponse(account=account.name, key=key, info=info)

    @unary
    async def GetMySeat(self, request, context):
        account = await self._accounts().authenticate(_bot_key(request.key, context))
        snapshot = await self.host.load(request.game_id)
        seats = snapshot.info.seats
        seat = next((i for i, s in enumerate(seats) if s.account == account.name), None)
        if seat is None:
            raise NotFound(
                f"account {account.name} holds no seat in game {request.game_id}",
                field="game_id",
            )
        token = access.account_seat_token(account.seat_secret, snapshot.game_id, seat)
        access.reader(snapshot, token, required=True)  # the one read check: still its seat
        return pb.JoinGameResponse(game_id=snapshot.game_id, seat=seat, token=token)

    # ------------------------------------------------------------------ quick play
    def _quick_play(self) -> QuickPlay:
        self._accounts()
        assert self.quick_play is not None
        return self.quick_play

    @unary
    async def Matchmake(self, request, context):
        quick = self._quick_play()
        account = await self._accounts().authenticate(_bot_key(request.key, context))
        matched = await quick.matchmake(
            account, request.game_type, request.players, quotas.caller_of(context)
        )
        snapshot = await self.host.load(matched.game_id)
        access.reader(snapshot, matched.token, required=True)  # the one read check
        return pb.MatchmakeResponse(
            game_id=matched.game_id,
            seat=matched.seat,
            token=matched.token,
            bots=matched.bots,
            rated=True,
        )

    @unary
    async def LeaveQueue(self, request, context):
        quick = self._quick_play()
        account = await self._accounts().authenticate(_bot_key(request.key, context))
        game_type, players = await quick.leave(account, quotas.caller_of(context))
        return pb.LeaveQueueResponse(game_type=game_type, players=players)

    @unary
    async def RevokeAccount(self, request, context):
        account = await self._accounts().revoke(request.name, _bot_key(request.key, context))
        return await self._account_message(account)

    @streaming
    async def WatchPlayer(self, request, context):
        self._accounts()
        assert self.players is not None
        async with contextlib.aclosing(
            self.players.watch(_bot_key(request.key, context), request.after_event_id)
        ) as events:
            async for event in events:
                yield account_wire.player_event(event)

    @unary
    async def Challenge(self, request, context):
        self._accounts()
        assert self.challenges is not None
        made = await self.challenges.challenge(
            _bot_key(request.key, context), request.name, request.game_type, dict(request.options)
        )
        return account_wire.challenge(made)

    @unary
    async def AnswerChallenge(self, request, context):
        self._accounts()
        assert self.challenges is not None
        answered = await self.challenges.answer(
            _bot_key(request.key, context), request.challenge_id, request.accept
        )
        return account_wire.challenge(answered)


def _bot_key(field: str, context: grpc.aio.ServicerContext) -> str:
    """An account's key (a bot's too): ``authorization: Bearer KEY`` metadata (over HTTP the gateway
    binds the header to the field), else the request's ``key`` field, where protocol 1
    runners send it (a body, never a URL); both only when they agree."""
    metadata = dict(context.invocation_metadata() or ())
    bearer = access.bearer_of(metadata.get("authorization", ""))
    if bearer and field and bearer != field:
        raise InvalidArgument(
            "two different bot keys: send it once, as 'authorization: Bearer <key>' metadata",
            field="key",
        )
    return bearer or field


def _seat_changed(changed: seating.SeatChanged) -> pb.SeatChangeResponse:
    return pb.SeatChangeResponse(
        game_id=changed.snapshot.game_id,
        now=seat_messages(changed.snapshot)[changed.seat],
        version=changed.version,
        duplicate=changed.duplicate,
    )
