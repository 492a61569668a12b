"""A thin synchronous client over the gamehost.v1 gRPC API (grpcio and the generated
``gamehost.v1`` code only: it never imports the engines)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import tenacity

from gamehost import retry
from gamehost.bot_link import BotLink
from gamehost.errors import GameError
from gamehost.v1 import gamehost_pb2 as pb
from gamehost.v1 import gamehost_pb2_grpc as pb_grpc


@dataclass(frozen=True)
class Seat:
    game_id: str
    seat: int
    token: str


def seat_spec(spec: str | pb.SeatSpec) -> pb.SeatSpec:
    """ "human", "human:Ann", "bot" or "bot:<level>" as a SeatSpec."""
    if isinstance(spec, pb.SeatSpec):
        return spec
    kind, _, rest = spec.partition(":")
    if kind == "human":
        return pb.SeatSpec(kind=pb.HUMAN, name=rest)
    if kind == "bot":
        return pb.SeatSpec(kind=pb.BOT, bot_level=rest or "random")
    raise ValueError(f"seat spec {spec!r}: use 'human[:name]' or 'bot[:level]'")


def turn_timer(
    move_seconds: float,
    *,
    bank_seconds: float = 0.0,
    fallback_level: str = "",
    max_timeouts: int | None = None,
) -> pb.TurnTimer:
    """Turn timers for ``create_game``: seconds per move, a bank per seat, the level that
    plays a timed-out move (random when empty), and the timeouts in a row that hand
    the seat to it for good (None: the server's default, 3; 0: never)."""
    return pb.TurnTimer(
        move_seconds=move_seconds,
        bank_seconds=bank_seconds,
        fallback_level=fallback_level,
        max_timeouts=max_timeouts,
    )


def seat_of(actor: pb.Actor) -> int | None:
    """The seat an ``Actor`` names, or None for chance and nobody."""
    return actor.seat if actor.kind == pb.Actor.SEAT else None


def describe_actor(actor: pb.Actor) -> str:
    """``seat 0``, ``chance`` or ``nobody``: for logs and terminals."""
    if actor.kind == pb.Actor.SEAT:
        return f"seat {actor.seat}"
    return "chance" if actor.kind == pb.Actor.CHANCE else "nobody"


# A record with views (GetRecord include_views) of a long game is several megabytes,
# over gRPC's default 4 MiB receive limit.
MAX_RECEIVE_BYTES = 64 * 1024 * 1024
_OPTIONS = [("grpc.max_receive_message_length", MAX_RECEIVE_BYTES)]


def _channel(target: str, tls: bool, ca_file: str | None, aio: bool = False) -> Any:
    kind = grpc.aio if aio else grpc
    if not tls:
        return kind.insecure_channel(target, options=_OPTIONS)
    ca = Path(ca_file).read_bytes() if ca_file else None  # None: the system roots
    credentials = grpc.ssl_channel_credentials(root_certificates=ca)
    return kind.secure_channel(target, credentials, options=_OPTIONS)


def _unavailable(exc: BaseException) -> bool:
    """A call worth trying again: the server (or its store) is away for now."""
    return isinstance(exc, grpc.RpcError) and exc.code() == grpc.StatusCode.UNAVAILABLE


class Client:
    """Calls that are safe to repeat (reads, and SubmitAction thanks to its request id)
    are retried on UNAVAILABLE, the status of infrastructure faults, with exponential
    backoff and full jitter: ``retries`` more tries, waits up to ``backoff`` doubling to
    ``max_backoff`` seconds. CreateGame and JoinGame are not retried: a retry after a
    reply was lost would create a second game or take a second seat.

    ``api_key`` is sent with every call (metadata ``x-api-key``); ``tls`` connects over
    TLS, trusting ``ca_file`` (PEM) or the system's certificate authorities."""

    def __init__(
        self,
        target: str,
        *,
        timeout: float = 30.0,
        retries: int = 5,
        backoff: float = 0.1,
        max_backoff: float = 2.0,
        api_key: str | None = None,
        tls: bool = False,
        ca_file: str | None = None,
        key: str | None = None,
    ) -> None:
        self.target = target
        self.key = key or ""  # an account's key: every call's bearer unless one is given
        self._tls = tls or bool(ca_file)
        self._ca_file = ca_file
        self._channel = _channel(target, self._tls, ca_file)
        self._stub = pb_grpc.GameHostStub(self._channel)
        self._metadata = (("x-api-key", api_key),) if api_key else ()
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        # Full jitter: clients that failed together do not retry together.
        self._wait = retry.doubling(backoff, max_backoff, jitter=True)

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._channel.close()

    def wait_ready(self, timeout: float = 30.0) -> None:
        """Wait until the channel connects; GameError(UNAVAILABLE) if it does not in time."""
        try:
            grpc.channel_ready_future(self._channel).result(timeout=timeout)
        except grpc.FutureTimeoutError:
            raise GameError(
                grpc.StatusCode.UNAVAILABLE,
                f"no gamehost server answers at {self.target} (waited {timeout:g} s)",
            ) from None

    def _stream(self, method, request, key: str = "") -> Iterator[Any]:
        """A server stream's replies, its errors as GameError (a client's own cancel
        ends it quietly), cancelled when the caller stops reading."""
        stream = method(request, metadata=self._with_key(key))
        try:
            yield from stream
        except grpc.RpcError as exc:
            if exc.code() != grpc.StatusCode.CANCELLED:
                raise GameError(exc.code(), exc.details()) from None
        finally:
            stream.cancel()

    def _with_key(self, key: str) -> tuple[tuple[str, str], ...]:
        """The call's metadata, with a bot's key (else the account's) as its bearer token."""
        key = key or self.key
        return (*self._metadata, ("authorization", f"Bearer {key}")) if key else self._metadata

    def _call(self, method, request, retry: bool = False, key: str = ""):
        retrying = tenacity.Retrying(
            stop=tenacity.stop_after_attempt(self.retries + 1 if retry else 1),
            wait=self._wait,
            retry=tenacity.retry_if_exception(_unavailable),
            sleep=time.sleep,
            reraise=True,
        )
        try:
            return retrying(method, request, timeout=self.timeout, metadata=self._with_key(key))
        except grpc.RpcError as exc:
            raise GameError(exc.code(), exc.details()) from None

    # ------------------------------------------------------------------ calls
    def game_types(self) -> pb.ListGameTypesResponse:
        return self._call(self._stub.ListGameTypes, pb.ListGameTypesRequest(), retry=True)

    def create_game(
        self,
        game_type: str,
        seats: Sequence[str | pb.SeatSpec],
        options: Mapping[str, object] | None = None,
        seed: int | None = None,
        *,
        private: bool = False,
        spectators: bool | None = None,
        bots_by_anyone: bool = False,
        rejoin_handed_seats: bool = False,
        timer: pb.TurnTimer | None = None,
        rated: bool = False,
    ) -> pb.CreateGameResponse:
        """A private game answers with ``invite_codes`` (one per human seat) that
        ``join`` needs; ``spectators=False`` refuses calls without a seat token. The
        answer's ``creator_token`` lets you ``add_bot`` (anyone may, with
        ``bots_by_anyone``); ``rejoin_handed_seats`` lets people join seats handed to a
        bot for good; ``timer`` (e.g. ``turn_timer(30, bank_seconds=120)``) gives human
        seats a time per move; ``rated``: the seats' ratings move once it is over, when
        every seat is an account's or a house level's."""
        request = pb.CreateGameRequest(
            game_type=game_type,
            seats=[seat_spec(s) for s in seats],
            options={k: str(v) for k, v in (options or {}).items()},
            seed=seed,
            private=private,
            spectators=spectators,
            bots_by_anyone=bots_by_anyone,
            rejoin_handed_seats=rejoin_handed_seats,
            timer=timer,
            rated=rated,
        )
        # Not retried: a lost reply would make a retry create a second game.
        return self._call(self._stub.CreateGame, request)

    def join(
        self, game_id: str, seat: int | None = None, name: str = "", invite_code: str = ""
    ) -> Seat:
        reply = self._call(
            self._stub.JoinGame,
            pb.JoinGameRequest(game_id=game_id, seat=seat, name=name, invite_code=invite_code),
        )
        return Seat(reply.game_id, reply.seat, reply.token)

    def my_seat(self, game_id: str) -> Seat:
        """This client's account's seat in ``game_id`` and its token, from any device
        (``Client(key=...)``)."""
        reply = self._call(self._stub.GetMySeat, pb.GetMySeatRequest(game_id=game_id), retry=True)
        return Seat(reply.game_id, reply.seat, reply.token)

    def my_games(self, limit: int = 100, **filters: Any) -> list[pb.GameSummary]:
        """This client's account's games (``Client(key=...)``), live ones first, each
        with ``your_turn``; ``filters`` as for ``list_games``."""
        return self.list_games(limit, mine=True, **filters)

    def list_games(self, limit: int = 100, **filters: Any) -> list[pb.GameSummary]:
        """One page of games; ``filters``: ListGamesRequest fields (game_type, status,
        player, account, tournament, bot_level, finished_after, finished_before,
        page_token)."""
        return list(self.list_games_page(page_size=limit, **filters).games)

    def list_games_page(self, **fields: Any) -> pb.ListGamesResponse:
        """ListGames with any ListGamesRequest fields; the answer has next_page_token."""
        request = pb.ListGamesRequest(**fields)
        return self._call(self._stub.ListGames, request, retry=True)

    def state(self, game_id: str, token: str = "") -> pb.GameState:
        return self._call(
            self._stub.GetState, pb.GetStateRequest(game_id=game_id, token=token), retry=True
        )

    def legal_actions(self, game_id: str, token: str) -> list[pb.LegalAction]:
        return list(self.state(game_id, token).legal_actions)

    def submit(
        self,
        game_id: str,
        token: str,
        action: int | str,
        *,
        expected_version: int | None = None,
        request_id: str | None = None,
        seat: int | None = None,
    ) -> pb.SubmitActionResponse:
        """Play an action (id or notation). Retries on UNAVAILABLE reuse one request id,
        so the service applies the action at most once."""
        request = pb.SubmitActionRequest(
            game_id=game_id,
            token=token,
            expected_version=expected_version,
            request_id=request_id or uuid.uuid4().hex,
            seat=seat,
        )
        if isinstance(action, str):
            request.notation = action
        else:
            request.action_id = action
        return self._call(self._stub.SubmitAction, request, retry=True)

    def watch(self, game_id: str, token: str = "", after: int = 0) -> Iterator[pb.GameEvent]:
        """Events as they happen (ends after the game finishes). Each says who is to
        move after it; the newest one that leaves you to move carries your legal
        actions. A stream is not retried: on UNAVAILABLE, watch again with ``after`` =
        the last event id received."""
        yield from self._stream(
            self._stub.WatchGame,
            pb.WatchGameRequest(game_id=game_id, token=token, after_event_id=after),
        )

    def record(
        self, game_id: str, token: str = "", *, include_views: bool = False, page_size: int = 0
    ) -> pb.GameRecord:
        """The game's whole log, read page by page (``page_size`` entries a call; 0:
        the server's default), as one GameRecord; with ``include_views``, your view
        after every entry too (what ``replay_record`` needs). Status, returns and version
        are those of the last page read."""
        request = pb.GetRecordRequest(
            game_id=game_id, token=token, include_views=include_views, page_size=page_size
        )
        record = self._call(self._stub.GetRecord, request, retry=True)
        while record.next_page_token:
            request.page_token = record.next_page_token
            page = self._call(self._stub.GetRecord, request, retry=True)
            record.entries.extend(page.entries)
            record.seat_changes.extend(page.seat_changes)
            record.status, record.version = page.status, page.version
            record.returns[:] = page.returns
            record.next_page_token = page.next_page_token
        return record

    # ------------------------------------------------------------------ seats on demand
    def add_bot(
        self,
        game_id: str,
        seat: int,
        level: str = "random",
        *,
        creator_token: str = "",
        name: str = "",
        request_id: str | None = None,
    ) -> pb.SeatChangeResponse:
        """Put a bot of ``level`` on free human seat ``seat``; it plays when the seat is
        to move. Needs the game's ``creator_token`` unless it allows anyone."""
        request = pb.AddBotRequest(
            game_id=game_id,
            seat=seat,
            bot_level=level,
            name=name,
            creator_token=creator_token,
            request_id=request_id or uuid.uuid4().hex,
        )
        return self._call(self._stub.AddBot, request, retry=True)

    def hand_over(
        self,
        game_id: str,
        token: str,
        level: str = "random",
        *,
        for_good: bool = False,
        request_id: str | None = None,
    ) -> pb.SeatChangeResponse:
        """Hand your seat to a bot of ``level``: away (``take_back`` returns it; your
        token stays valid), or ``for_good`` (your token is revoked)."""
        request = pb.HandOverSeatRequest(
            game_id=game_id,
            token=token,
            bot_level=level,
            for_good=for_good,
            request_id=request_id or uuid.uuid4().hex,
        )
        return self._call(self._stub.HandOverSeat, request, retry=True)

    def take_back(
        self, game_id: str, token: str, *, request_id: str | None = None
    ) -> pb.SeatChangeResponse:
        """Come back from away mode: your seat is yours to play again."""
        request = pb.TakeBackSeatRequest(
            game_id=game_id, token=token, request_id=request_id or uuid.uuid4().hex
        )
        return self._call(self._stub.TakeBackSeat, request, retry=True)

    def set_seat_options(
        self, game_id: str, token: str, *, decline_offers: bool, request_id: str | None = None
    ) -> pb.SeatChangeResponse:
        """Your seat's options: ``decline_offers`` declines every domestic trade offer
        made to it without asking you."""
        request = pb.SetSeatOptionsRequest(
            game_id=game_id,
            token=token,
            decline_offers=decline_offers,
            request_id=request_id or uuid.uuid4().hex,
        )
        return self._call(self._stub.SetSeatOptions, request, retry=True)

    # ------------------------------------------------------------------ tournaments
    def create_tournament(
        self, definition: pb.TournamentDefinition | None = None, **fields: object
    ) -> pb.Tournament:
        """Create a tournament (``definition``, or its fields as keywords: ``name``,
        ``game_type``, ``players``, ``entrants`` [(name, level) pairs, level "" for an
        external entrant], ``format``, ``games``, ``seed``, ...). The same definition
        under an existing name answers that tournament, so a retry is harmless."""
        if definition is None:
            entrants = [
                e
                if isinstance(e, pb.TournamentEntrant)
                else pb.TournamentEntrant(name=e[0], level=e[1])
                for e in fields.pop("entrants", ())  # type: ignore[union-attr]
            ]
            definition = pb.TournamentDefinition(entrants=entrants, **fields)  # type: ignore[arg-type]
        request = pb.CreateTournamentRequest(definition=definition)
        # Retried: creating again with the same definition is the same tournament.
        return self._call(self._stub.CreateTournament, request, retry=True)

    def tournament(self, name: str, *, include_exports: bool = False) -> pb.Tournament:
        """Definition, progress, standings, crosstable and tables; with
        ``include_exports``, the report's files (standings.csv, crosstable.csv, games.jsonl)."""
        request = pb.GetTournamentRequest(name=name, include_exports=include_exports)
        return self._call(self._stub.GetTournament, request, retry=True)

    def list_tournaments(self, limit: int = 100) -> list[pb.TournamentSummary]:
        request = pb.ListTournamentsRequest(limit=limit)
        return list(self._call(self._stub.ListTournaments, request, retry=True).tournaments)

    def watch_tournament(
        self, name: str, after: int = 0, entrant_token: str = ""
    ) -> Iterator[pb.TournamentEvent]:
        """Tables started and finished, standings updated; ends after the tournament's
        end. With an entrant token, a started table that seats you carries your seat
        and seat token. Not retried: watch again with ``after`` = the last event id."""
        yield from self._stream(
            self._stub.WatchTournament,
            pb.WatchTournamentRequest(name=name, after_event_id=after, entrant_token=entrant_token),
        )

    def export_games(self, **filters: str) -> Iterator[str]:
        """Archived games as export lines (docs/export.md), newest first; ``filters``:
        game_type, since, player, tournament, bot. Not retried."""
        for game in self._stream(self._stub.ExportGames, pb.ExportGamesRequest(**filters)):
            yield game.json

    def join_tournament(self, name: str, entrant: str) -> str:
        """Register as the external entrant ``entrant``; returns its entrant token
        (not retried: the token is given once)."""
        request = pb.JoinTournamentRequest(name=name, entrant=entrant)
        return self._call(self._stub.JoinTournament, request).entrant_token

    def tournament_seats(self, name: str, entrant_token: str) -> list[pb.TournamentSeat]:
        """The tables your entrant was seated at, each with its game id and seat token."""
        request = pb.ListTournamentSeatsRequest(name=name, entrant_token=entrant_token)
        return list(self._call(self._stub.ListTournamentSeats, request, retry=True).seats)

    def cancel_tournament(self, name: str) -> pb.Tournament:
        request = pb.CancelTournamentRequest(name=name)
        return self._call(self._stub.CancelTournament, request)

    # ------------------------------------------------------------------ the ladder
    def register_bot(self, name: str, game_type: str, players: int) -> pb.RegisterBotResponse:
        """Register a ladder bot; the answer's key is shown once (not retried: a lost
        answer would leave a bot whose key nobody has)."""
        request = pb.RegisterBotRequest(name=name, game_type=game_type, players=players)
        return self._call(self._stub.RegisterBot, request)

    def list_bots(self, game_type: str = "", players: int = 0) -> list[pb.BotInfo]:
        request = pb.ListBotsRequest(game_type=game_type, players=players)
        return list(self._call(self._stub.ListBots, request, retry=True).bots)

    def revoke_bot(self, name: str, key: str = "") -> pb.BotInfo:
        request = pb.RevokeBotRequest(name=name)
        return self._call(self._stub.RevokeBot, request, retry=True, key=key)

    def bot_page(self, name: str, limit: int = 0) -> pb.BotPage:
        return self._call(self._stub.GetBot, pb.GetBotRequest(name=name, limit=limit), retry=True)

    def create_account(self, name: str) -> pb.CreateAccountResponse:
        """Create a human account; the answer's key is shown once (not retried: a lost
        answer would leave an account whose key nobody has)."""
        return self._call(self._stub.CreateAccount, pb.CreateAccountRequest(name=name))

    def account(self, name: str) -> pb.Account:
        request = pb.GetAccountRequest(name=name)
        return self._call(self._stub.GetAccount, request, retry=True)

    def rotate_account_key(self, name: str, key: str = "") -> pb.CreateAccountResponse:
        """A new key for ``name`` (``key``, else this client's, stops working)."""
        request = pb.RotateAccountKeyRequest(name=name)
        return self._call(self._stub.RotateAccountKey, request, key=key)

    def revoke_account(self, name: str, key: str = "") -> pb.Account:
        request = pb.RevokeAccountRequest(name=name)
        return self._call(self._stub.RevokeAccount, request, retry=True, key=key)

    def watch_me(self, after: int = 0, key: str = "") -> Iterator[pb.PlayerEvent]:
        """This client's account's events (``Client(key=...)``, or ``key``'s): games
        started, its turns, games finished, challenges. Pass the last ``event_id`` seen
        as ``after`` to resume where a broken stream left off."""
        request = pb.WatchPlayerRequest(after_event_id=after)
        yield from self._stream(self._stub.WatchPlayer, request, key)

    def challenge(
        self, name: str, game_type: str, options: dict[str, str] | None = None
    ) -> pb.ChallengeInfo:
        """Challenge the account ``name`` to a two-seat game (not retried: a lost answer
        leaves a pending challenge, which expires)."""
        request = pb.ChallengeRequest(name=name, game_type=game_type, options=options or {})
        return self._call(self._stub.Challenge, request)

    def answer_challenge(self, challenge_id: str, accept: bool) -> pb.ChallengeInfo:
        """Accept (the answer's ``game_id`` is the game, this account in seat 1: its
        token from ``my_seat``) or decline a challenge sent to this client's account."""
        request = pb.AnswerChallengeRequest(challenge_id=challenge_id, accept=accept)
        return self._call(self._stub.AnswerChallenge, request, retry=True)

    def matchmake(
        self, game_type: str, players: int, wait_timeout: float = 300.0
    ) -> pb.MatchmakeResponse:
        """Quick play: queue this client's account (``Client(key=...)``) and wait, up
        to ``wait_timeout`` seconds, until it is matched; the answer's ``seat`` and
        ``token`` play the game. Not retried: a call that drops leaves the queue, so
        call again."""
        request = pb.MatchmakeRequest(game_type=game_type, players=players)
        try:
            return self._stub.Matchmake(request, timeout=wait_timeout, metadata=self._with_key(""))
        except grpc.RpcError as exc:
            raise GameError(exc.code(), exc.details()) from None

    def leave_queue(self) -> pb.LeaveQueueResponse:
        """Leave the quick play queue (the answer names it); GameError NOT_FOUND when the
        account is in none."""
        return self._call(self._stub.LeaveQueue, pb.LeaveQueueRequest())

    def ladder(self, game_type: str, players: int) -> pb.Ladder:
        request = pb.GetLadderRequest(game_type=game_type, players=players)
        return self._call(self._stub.GetLadder, request, retry=True)

    def connect_bot(self, key: str, concurrency: int = 1) -> Iterator[pb.BotDirective]:
        """A runner's connection: the protocol's lines for the bot's games (not retried:
        connect again; the server sends start again for games in progress)."""
        request = pb.ConnectBotRequest(concurrency=concurrency, protocol=1)
        yield from self._stream(self._stub.ConnectBot, request, key)

    def aio_channel(self) -> grpc.aio.Channel:
        """A grpc.aio channel to the same server, secured the same way, for asyncio code
        (``bot_link``); made inside the running event loop, closed by the caller."""
        return _channel(self.target, self._tls, self._ca_file, aio=True)

    def bot_link(self, channel: grpc.aio.Channel, key: str, concurrency: int = 1) -> BotLink:
        """``gamehost bot run``'s connection on ``channel`` (from ``aio_channel``):
        ConnectBot's directives, and each answer a BotReply call (an UNAVAILABLE one
        sent again, with ``retries``)."""
        return BotLink(
            channel,
            key,
            concurrency,
            self._metadata,
            self.timeout,
            retries=self.retries,
            wait=self._wait,
        )

    def bot_reply(
        self,
        key: str,
        game_id: str,
        version: int,
        line: str = "",
        error: str = "",
    ) -> pb.BotReplyResponse:
        """One act's answer (retried: the server plays it once, whoever asks twice)."""
        request = pb.BotReplyRequest(game_id=game_id, version=version, line=line, error=error)
        return self._call(self._stub.BotReply, request, retry=True, key=key)

    # ------------------------------------------------------------------ hints
    def hint(
        self,
        game_id: str,
        token: str = "",
        level: str = "",
        *,
        version: int | None = None,
        seat: int | None = None,
    ) -> pb.HintResponse:
        """What the search at ``level`` (empty: the server's default, mcts-fast) would
        play for a seat, with its most visited actions and their win shares. During a
        game: your seat (``token``), now. Once it is over: any ``version`` of its
        record, for the seat to move there (``seat`` optional, ``token`` not needed)."""
        request = pb.HintRequest(
            game_id=game_id, token=token, bot_level=level, version=version, seat=seat
        )
        return self._call(self._stub.Hint, request, retry=True)


@dataclass(frozen=True)
class Position:
    """One step of a replay: the entry that led here (None for the initial position),
    the view after it and who acts next."""

    entry: pb.RecordEntry | None
    view: pb.GameView
    to_move: pb.Actor


def replay_record(record: pb.GameRecord) -> list[Position]:
    """Every position of a record, initial one first, from the views the server put in
    it (``Client.record(..., include_views=True)``): no engine needed."""
    if not record.HasField("initial_view"):
        raise ValueError("this record has no views: fetch it with include_views=True")
    positions = [Position(None, record.initial_view, record.initial_to_move)]
    positions.extend(Position(entry, entry.view, entry.to_move) for entry in record.entries)
    return positions
