"""A bot runner's side of the ladder on the server: its connection (ConnectBot), which
streams the protocol's lines for the bot's games, and its answers (BotReply).

**The connection.** The key names the bot; the runner becomes the bot's runner (a
newer connection replaces an older one at its next heartbeat) and stays connected
while it heartbeats (``accounts.heartbeats``: one write per replica for all its
runners). Every ``POLL`` seconds (at once after the matchmaker here made games) one
read of the ledger finds the games every connected bot is playing; each new one gets
a feeder that watches the
game with the bot's seat token (the same watch a client gets, through the watch hub)
and puts ``start``, then an ``act`` whenever the bot's seat is to move at a version
not yet asked, then ``end``. A runner that reconnects (to any replica) is sent
``start`` again for every game in progress, then the act it owes.

**An answer** is handled on whichever replica it reaches, from the store alone: it
must be for a version where the bot's own seat is to move (anything else is STALE:
nothing played, nothing counted). A playable answer is submitted with the seat's
token like any client's action (request id ``ladder:<version>``, so a retry is
answered, never played twice); anything else (late, garbage, illegal, missing) is
played at once by the fallback level, marked as a timeout with its fault, under the
clock's own request key, and counted against the bot; ``max_faults`` in a row pause
it. A seat whose answer never comes at all still gets its fallback move from the
game's turn timer (``services.turns.clock``), like any timed seat.

There is no rate of answers per bot, nor per client (the gRPC edge does not count
BotReply): the game plays one answer per act, so a bot moves no faster than its games
ask, and an answer in time is never refused. What is bounded is the answers that play
nothing (STALE, or for a game not the bot's): ``stale_answers_per_second`` per bot;
over it, BotReply is refused RESOURCE_EXHAUSTED before any read. An answer that
reached this handler before its act's clock ran out but lost to the clock's fallback
is a server fault ("overruled"): logged and counted in
``gamehost_ladder_overruled_answers_total``.

**Bounds.** A connection's directives wait in a queue of ``QUEUE`` (its games' feeds
wait when it is full), and a connection whose client has not taken a directive for
``STALL_SECONDS`` (the stream's send does not complete: gRPC flow control, or the
HTTP write buffer not draining) is closed."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

from google.protobuf import json_format

from services import metrics, times
from services.accounts.feed import END, START, Feeds, SeatNews, seat_news
from services.bots import bot_turns
from services.errors import (
    Aborted,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    ResourceExhausted,
    Unauthenticated,
)
from services.kinds import GameStatus
from services.ladder import protocol
from services.ladder.accounts import BotAccount
from services.ladder.model import FALLBACK, BotStatus, Fault
from services.ladder.seats import seat_token
from services.ladder.service import LadderService
from services.limits import quotas
from services.play.host import GameHost
from services.stores import CommitOutcome
from services.sweeps import Wake
from services.turns import steps
from services.views import view_of

log = logging.getLogger(__name__)

ACT, WELCOME, PAUSED = "act", "welcome", "paused"  # START and END: the feed's


@dataclass(frozen=True)
class Directive:
    """One message of a connection: a protocol line for the bot, or a word for the runner."""

    kind: str
    line: str = ""
    game_id: str = ""
    version: int = 0
    ms_left: int = 0
    bot: str = ""
    message: str = ""


@dataclass(frozen=True)
class Answered:
    """What became of one answer."""

    outcome: str  # "played", "fallback" or "stale"
    fault: str = ""
    notation: str = ""
    version: int = 0
    paused: bool = False
    message: str = ""
    duplicate: bool = False  # a retry of an answer already played: not counted again


@dataclass
class _Connection:
    """A runner connected to this replica: its bot's games being played (as the poll
    last read them) and the directives waiting to be sent (None: look again)."""

    name: str
    session: str
    key: str
    account: BotAccount
    playing: dict[str, int] = field(default_factory=dict)  # game id -> the bot's seat
    gone: bool = False  # no longer the bot's runner (another connected; paused; revoked)
    queue: asyncio.Queue[Directive | None] = field(
        default_factory=lambda: asyncio.Queue(maxsize=Sessions.QUEUE)
    )
    handler: asyncio.Task | None = None  # the call's task: cancelled when its client stalls
    sending_since: float | None = None  # time.monotonic() since a directive is being sent

    def nudge(self) -> None:
        """Look again (a full queue is about to be looked at anyway)."""
        with contextlib.suppress(asyncio.QueueFull):
            self.queue.put_nowait(None)


class _AnyId:
    """Every id: an answer's form is checked before the game is read (its legality by
    the submission itself)."""

    def __contains__(self, action: object) -> bool:
        return True


class Sessions:
    POLL = times.LADDER_GAMES_POLL_SECONDS
    HEARTBEAT = times.LADDER_CONNECTION_HEARTBEAT_SECONDS
    PRESENCE = times.LADDER_RUNNER_PRESENCE_SECONDS
    KEY_CACHE = times.LADDER_KEY_CACHE_SECONDS
    FLUSH = times.LADDER_MOVES_FLUSH_SECONDS
    QUEUE = 256  # directives waiting per connection, at most (its feeds wait beyond)
    OVERRULED_LOOKBACK = 64  # events read back to judge a stale answer overruled
    STALL_SECONDS = times.LADDER_STALL_SECONDS

    def __init__(
        self,
        service: LadderService,
        host: GameHost,
        on_finished: Callable[[], None] | None = None,
        counters: quotas.MovingWindowRateLimiter | None = None,
    ) -> None:
        """``counters``: the server's rate-limit counters (None: the store's own)."""
        self.service = service
        self.host = host
        # A game fed here has finished: archive it now (the ladder rates it from the
        # archive, and its set's place goes to the next only then).
        self._on_finished = on_finished or (lambda: None)
        self.accounts = service.accounts
        # Per bot (its name, so per key), whoever sends them, on any replica: answers
        # that play nothing (stale, or not in its games; the module's docstring), and
        # connections.
        config, counters = service.config, counters or quotas.counters_for(host.store)
        rate = config.stale_answers_per_second
        self.stale = quotas.RateLimit(counters, quotas.per_second(rate, 5 * rate, "stale"))
        self.connects = quotas.RateLimit(
            counters, quotas.per_second(config.connects_per_second, 5.0, "connects")
        )
        self._keys: OrderedDict[str, tuple[float, BotAccount]] = OrderedDict()
        self._seats: OrderedDict[tuple[str, str], list[int]] = OrderedDict()
        self._moves: dict[str, tuple[int, bool]] = {}  # name -> (moves, ends its row)
        self._flusher: asyncio.Task | None = None
        self._connections: dict[str, _Connection] = {}  # session -> its connection here
        self._poller: asyncio.Task | None = None
        self._wake = Wake()

    # ------------------------------------------------------------------ connection
    async def connect(self, key: str, concurrency: int) -> AsyncIterator[Directive]:
        account = await self.service.authenticate(key)
        if not await self.connects.hit(account.name):
            raise ResourceExhausted(
                f"bot {account.name} connects too often; wait a few seconds before reconnecting"
            )
        session = secrets.token_hex(8)
        slots = min(max(concurrency, 1), self.service.config.bot_concurrency)
        joined = await asyncio.to_thread(
            self.accounts.connect, account.name, session, slots, time.time() + self.PRESENCE
        )
        if joined is None:
            raise PermissionDenied(f"bot {account.name} was revoked: its key no longer works")
        name = joined.name
        yield Directive(
            WELCOME,
            bot=name,
            message=f"connected as {name} to ladder {joined.ladder}: {joined.status} ({joined.reason})",
        )
        connection = _Connection(name, session, key, joined, handler=asyncio.current_task())
        self._connections[session] = connection
        self.kick()
        # The per-account feed WatchPlayer runs too (services.accounts.feed): a game
        # rated since is never fed again, one whose feed broke off is fed again.
        feeders = Feeds(lambda game_id, seat: self._feed(game_id, seat, connection.queue))
        try:
            while True:
                if connection.gone:
                    yield await self._let_go(name)
                    return
                feeders.follow(connection.playing)
                waiting: list[Directive | None] = []
                if connection.queue.empty():
                    # One timer, not asyncio.wait_for's task and timer per directive.
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(self.POLL * 4):
                            waiting.append(await connection.queue.get())
                while not connection.queue.empty():
                    waiting.append(connection.queue.get_nowait())
                for item in waiting:
                    if item is not None:  # None: the poll read the bot's games again
                        # Until the transport takes it: the poll closes a stalled client.
                        connection.sending_since = time.monotonic()
                        yield item
                        connection.sending_since = None
        finally:
            # The bot stays present until its last heartbeat runs out (PRESENCE): a
            # runner that connects again by then finds its games going on.
            self._connections.pop(session, None)
            await feeders.close()

    def let_go(self, name: str) -> None:
        """``name`` was paused or revoked here: its runners here are let go and its key
        is looked up again at once, so no answer of it is played from now on. (Another
        replica learns it at its next heartbeat, within HEARTBEAT seconds.)"""
        for connection in self._connections.values():
            if connection.name == name:
                connection.gone = True
                connection.nudge()
        for key in [k for k, (_, account) in self._keys.items() if account.name == name]:
            del self._keys[key]

    def kick(self) -> None:
        """New ladder games may seat a connected bot: read now, not at the next poll."""
        if self._connections and (self._poller is None or self._poller.done()):
            self._poller = asyncio.get_running_loop().create_task(self._poll())
        self._wake.set()

    async def _poll(self) -> None:
        """One loop per replica for all its connections: every POLL seconds one read of
        the games their bots are playing, and every HEARTBEAT seconds one write that
        keeps them connected (and finds those that are no longer their bot's runner)."""
        beat = 0.0
        while self._connections:
            connections = list(self._connections.values())
            try:
                if time.monotonic() >= beat:
                    pairs = [(c.name, c.session) for c in connections]
                    until = time.time() + self.PRESENCE
                    alive = await asyncio.to_thread(self.accounts.heartbeats, pairs, until)
                    for connection in connections:
                        if (connection.name, connection.session) not in alive:
                            connection.gone = True
                    beat = time.monotonic() + self.HEARTBEAT
                names = {c.name for c in connections if not c.gone}
                playing = await asyncio.to_thread(self.service.ledger.playing, names)
                for connection in connections:
                    found = playing.get(connection.name, [])
                    before = connection.playing
                    connection.playing = {game_id: seat for game_id, seat, _ in found}
                    held: dict[str, list[int]] = {}
                    for game_id, seat, _ in found:
                        held.setdefault(game_id, []).append(seat)
                    for game_id, seats in held.items():  # its answers need no read of their own
                        self._remember_seats(game_id, connection.name, seats)
                    # Look again only for news: fifty runners woken twice a second for
                    # nothing hold the event loop a few ms at a stretch (a feed broken
                    # off meanwhile is fed again at the connection's own timeout).
                    if connection.gone or connection.playing.keys() != before.keys():
                        connection.nudge()
                self._close_stalled(connections)
            except Exception as exc:  # the archive is down: the connections wait
                log.warning("ladder: presence poll failed: %s: %s", type(exc).__name__, exc)
            await self._wake.clear_and_wait(self.POLL)

    def _close_stalled(self, connections: list[_Connection]) -> None:
        """Cancel the calls whose client has taken no directive for STALL_SECONDS: what
        waits for them (their queue, their games' feeds) is let go."""
        now = time.monotonic()
        for connection in connections:
            since, handler = connection.sending_since, connection.handler
            if since is not None and now - since > self.STALL_SECONDS and handler is not None:
                log.warning(
                    "ladder: bot %s's connection read nothing for %g s: closed",
                    connection.name,
                    self.STALL_SECONDS,
                )
                metrics.LADDER_STALLED_CONNECTIONS.inc()
                connection.handler = None
                handler.cancel()

    async def _let_go(self, name: str) -> Directive:
        """This connection is no longer the bot's runner: paused or revoked (the last
        directive says so), or replaced by a newer connection (an error)."""
        account = await asyncio.to_thread(self.accounts.get, name)
        if account is not None and account.status in (BotStatus.PAUSED, BotStatus.REVOKED):
            return Directive(PAUSED, bot=name, message=f"{account.status}: {account.reason}")
        raise FailedPrecondition(
            f"another runner connected as bot {name}: this connection is let go"
        )

    async def _feed(self, game_id: str, seat: int, queue: asyncio.Queue[Directive | None]) -> bool:
        """One game's lines for the bot: start, each act it owes, end
        (``services.accounts.feed.seat_news`` as protocol lines). False when the feed
        broke off before the game's end (to be fed again). A seat handed to the fallback
        level for good is no longer the bot's: no start when it was handed over already,
        else an end with no returns (the game goes on without the bot)."""
        try:
            token = seat_token(await self.host.store.secret(), game_id, seat)
            async with contextlib.aclosing(seat_news(self.host, game_id, token, seat)) as news:
                async for item in news:
                    if item.kind == START:
                        info = item.snapshot.info
                        line = protocol.start_line(
                            game_id, info.game_type, info.players, seat, info.options
                        )
                        await queue.put(Directive(START, line, game_id))
                    elif item.kind == END:
                        if not item.lost:
                            self._on_finished()
                        line = protocol.end_line(game_id, item.returns)
                        await queue.put(Directive(END, line, game_id))
                        return True
                    else:
                        await queue.put(self._act(game_id, seat, item))
            return True  # handed over for good before the feed began: nothing to tell
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the store is down: the next poll feeds the game again
            log.info("ladder feed of %s ended: %s: %s", game_id, type(exc).__name__, exc)
        return False

    @staticmethod
    def _act(game_id: str, seat: int, turn: SeatNews) -> Directive:
        """The act line of the bot's ``turn``: the view in the HTTP API's JSON (GetState's
        cite/catan/endeavor field), the legal actions and the time left."""
        snapshot = turn.snapshot
        view_message = view_of(snapshot.info.game_type, turn.view.state, seat)
        state = {}
        if view_message is not None:  # the gateway's spelling (services/gateway/app.py)
            state = json_format.MessageToDict(
                view_message, always_print_fields_with_no_presence=True
            )
        left = turn.seconds_left
        ms_left = max(0, int((left if left is not None else 0.0) * 1000))
        line = protocol.act_line(game_id, seat, state, turn.legal, ms_left)
        return Directive(ACT, line, game_id, snapshot.version, ms_left)

    # ------------------------------------------------------------------ answers
    async def reply(
        self,
        key: str,
        game_id: str,
        version: int,
        line: str,
        error: str,
    ) -> Answered:
        """The outcome of a bot's answer to its act at ``version`` (BotReply)."""
        with metrics.LADDER_ANSWER_SECONDS.time():
            return await self._reply(key, game_id, version, line, error)

    async def _reply(
        self,
        key: str,
        game_id: str,
        version: int,
        line: str,
        error: str,
    ) -> Answered:
        arrived = time.time()
        name = (await self._account(key)).name
        if not await self.stale.test(name):
            raise ResourceExhausted(
                f"bot {name} sent more than {self.stale.describe('answers that played nothing')}"
                " (stale, or for games not its own); answer only the acts it is sent"
            )
        try:
            answered = await self._judge(name, game_id, version, line, error, arrived)
        except PermissionDenied:  # not its game
            await self.stale.hit(name)
            raise
        if answered.outcome == "stale":
            await self.stale.hit(name)
        return answered

    async def _judge(
        self, name: str, game_id: str, version: int, line: str, error: str, arrived: float
    ) -> Answered:
        """The outcome of ``name``'s answer, which ``arrived`` (time.time()) then."""
        seats = await self._seats_of(game_id, name)
        if not seats:
            raise PermissionDenied(
                f"game {game_id} has no seat of bot {name}: a bot acts only in its own seats"
            )
        if not error and len(seats) == 1:
            # The common case first: a playable answer, submitted on one read of the game
            # (SubmitAction's own). Anything it refuses is judged on a fresh read below.
            action, _ = protocol.read_answer(line, _AnyId())
            if action is not None:
                played = await self._submit(game_id, seats[0], version, action)
                if played is not None:
                    if not played.duplicate:
                        self._count_move(name)
                    return played
        try:
            snapshot = await self.host.load(game_id)
        except NotFound:
            return Answered("stale", message=f"game {game_id} is over and gone")
        state = steps.load_state(snapshot)
        seat = state.current_player()
        if (
            snapshot.status == GameStatus.FINISHED
            or snapshot.version != version
            or seat not in seats
            or snapshot.info.seats[seat].is_bot
        ):
            if snapshot.version > version:
                await self._check_overruled(
                    game_id, version, seats, arrived, snapshot.last_event_id
                )
            return Answered("stale", version=snapshot.version, message="the game has moved on")
        fault: Fault | None
        if error:
            fault = Fault.LATE if error.startswith(Fault.LATE) else Fault.MISSING
            action = None
        else:
            action, fault = protocol.read_answer(line, state.legal_actions())
        if action is not None:
            played = await self._submit(game_id, seat, version, action)
            if played is None:
                await self._check_overruled(
                    game_id, version, seats, arrived, snapshot.last_event_id
                )
                return Answered("stale", message="the game moved on before the answer")
            if not played.duplicate:
                self._count_move(name)
            return played
        assert fault is not None
        result, notation = await bot_turns.commit_fallback(
            self.host.store, snapshot, state, seat, FALLBACK, fault.value
        )
        if result.outcome is not CommitOutcome.APPLIED:
            return Answered("stale", message="the game moved on before the answer")
        self.host.runner.kick(game_id)  # a house bot may be to move next
        pending = self._moves.pop(name, None)
        if pending is not None:  # moves made before this fault end the row before it
            await asyncio.to_thread(self.accounts.record_moves, {name: pending})
        in_row, paused = await asyncio.to_thread(
            self.accounts.record_fault, name, fault, self.service.config.max_faults
        )
        message = f"{fault.value}: the fallback level played {notation} ({in_row} in a row)"
        if paused:
            self.let_go(name)
            message += f"; bot {name} is paused"
            log.info("ladder: bot %s paused after %d faults in a row", name, in_row)
        return Answered("fallback", fault.value, notation, result.version, paused, message)

    async def _check_overruled(
        self, game_id: str, version: int, seats: list[int], arrived: float, last_event_id: int
    ) -> None:
        """Count (and log) an answer overruled: it ``arrived`` before the clock of the act
        at ``version`` ran out, yet the clock's fallback was played there. Read from the
        game's last events (the act's clock is on the event that made ``version``, the
        fallback is the move after it, marked as a timeout without a fault of the bot)."""
        after = max(0, last_event_id - self.OVERRULED_LOOKBACK)
        events = await self.host.store.events(game_id, after, self.OVERRULED_LOOKBACK)
        deadline = fallback = None
        for event in events:
            data = event.data
            if data.get("version") == version and (data.get("clock") or {}).get("seat") in seats:
                deadline = data["clock"]["deadline"]
            if data.get("version") == version + 1 and data.get("timeout"):
                fallback = data
        if deadline is None or fallback is None or "fault" in fallback:
            return  # no clock's fallback at that act, or an old one (not looked for)
        if arrived < deadline:
            metrics.LADDER_OVERRULED_ANSWERS.inc()
            log.warning(
                "ladder: an answer for %s at version %d came %.3f s before its deadline "
                "but the clock's fallback was played (overruled: a server fault)",
                game_id,
                version,
                deadline - arrived,
            )

    async def _submit(self, game_id: str, seat: int, version: int, action: int) -> Answered | None:
        """The bot's move, submitted with its seat's token as any client's action (a
        retry of the same version is answered, never played twice); None when refused."""
        token = seat_token(await self.host.store.secret(), game_id, seat)
        try:
            done = await self.host.submitting.submit_action(
                game_id,
                token,
                expected_version=version,
                action=action,
                request_id=f"ladder:{version}",
            )
        except (Aborted, FailedPrecondition, InvalidArgument, NotFound):
            return None
        except (PermissionDenied, Unauthenticated):
            return None  # the seat was handed to the fallback level for good: stale
        return Answered(
            "played", notation=done.notation, version=done.version, duplicate=done.duplicate
        )

    async def _account(self, key: str) -> BotAccount:
        """The bot of ``key``: a runner's connected here with it (its heartbeats say it
        is still the bot's runner, so neither paused nor revoked), else looked up at
        most every KEY_CACHE seconds."""
        for connection in self._connections.values():
            if connection.key == key and not connection.gone:
                return connection.account
        cached = self._keys.get(key)
        now = time.monotonic()
        if cached is not None and now - cached[0] < self.KEY_CACHE:
            return cached[1]
        account = await self.service.authenticate(key)
        self._keys[key] = (now, account)
        self._keys.move_to_end(key)
        while len(self._keys) > 10_000:
            self._keys.popitem(last=False)
        return account

    async def _seats_of(self, game_id: str, name: str) -> list[int]:
        """The seats ``name`` holds in ``game_id`` (none: not its game). A game's seats
        never change: kept once found (a miss is asked again)."""
        cached = self._seats.get((game_id, name))
        if cached is None:
            cached = await asyncio.to_thread(self.service.ledger.seats_of, game_id, name)
            if cached:
                self._seats[(game_id, name)] = cached
                self._trim_seats()
        return cached

    def _remember_seats(self, game_id: str, name: str, seats: list[int]) -> None:
        if (game_id, name) not in self._seats:
            self._seats[(game_id, name)] = seats
            self._trim_seats()

    def _trim_seats(self) -> None:
        while len(self._seats) > 100_000:
            self._seats.popitem(last=False)

    def _count_move(self, name: str) -> None:
        moves, _ = self._moves.get(name, (0, True))
        self._moves[name] = (moves + 1, True)
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush_soon())

    async def _flush_soon(self) -> None:
        await asyncio.sleep(self.FLUSH)
        moves, self._moves = self._moves, {}
        try:
            await asyncio.to_thread(self.accounts.record_moves, moves)
        except Exception as exc:  # the archive is down: these counts are lost, play goes on
            log.warning("ladder: moves not counted: %s: %s", type(exc).__name__, exc)

    async def close(self) -> None:
        if self._poller is not None:
            self._poller.cancel()
            await asyncio.gather(self._poller, return_exceptions=True)
        if self._flusher is not None:
            with contextlib.suppress(Exception):
                await self._flusher
