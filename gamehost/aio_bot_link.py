"""A bot runner's PlayBot call on asyncio (grpc.aio), as ``gamehost bot run`` holds it:
the server's directives in, the bot's answers out, each answer's outcome matched back
to the task that sent it. ``BotLink`` (gamehost/bot_link.py) is the same call for
threaded code.

Why asyncio: a synchronous gRPC stream hands every message between threads (the
channel's poller, the request iterator's consumer, the reader), and on a busy machine
each hand-over waits for the scheduler; on one event loop a move's way through the
runner is one thread (docs/ladder.md, "An answer's way").

One task reads ``directives()``; any task may ``reply()``, which waits until its
outcome comes back on the stream (or the stream ends, or ``timeout`` passes).

The same messages go on either way to the server: the PlayBot call (``AioBotLink``) or
the server's bot socket (``SocketBotLink``: a plain TCP connection, each message a
length-prefixed frame; docs/bot-socket.md), which costs both ends less per message.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
import struct
from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc

from gamehost.bot_link import outcome, reply_request, status_code
from gamehost.errors import GameError
from gamehost.v1 import gamehost_pb2 as pb
from gamehost.v1 import gamehost_pb2_grpc as pb_grpc


class _BotLink:
    """What both ways share: the connect, the directives, each answer matched to its
    reply. A way reads and writes PlayBot's messages (``_read``: None at the end;
    errors as GameError)."""

    def __init__(
        self,
        key: str,
        concurrency: int,
        timeout: float,
        retries: int = 0,
        delay: Callable[[int], float] = lambda attempt: 0.0,
    ):
        self._connect = pb.ConnectBotRequest(key=key, concurrency=concurrency, protocol=1)
        self._timeout = timeout
        self._retries = retries  # answers UNAVAILABLE sent again, as BotReply calls are
        self._delay = delay  # the wait before retry ``attempt`` (0, 1, ...)
        # One message at a time on a connection: copies that answer together queue.
        self._writing = asyncio.Lock()
        self._waiting: dict[tuple[str, int], list[asyncio.Future[pb.BotAnswer]]] = {}
        self._ended: GameError | None = None
        self.opened = False  # the connection was made (the server may still refuse it)
        self.way = ""  # how it reaches the server, in words

    async def _open(self) -> None:
        """Make the connection (the first thing ``directives`` does)."""

    async def _read(self) -> pb.PlayBotResponse | None:
        raise NotImplementedError

    async def _send(self, request: pb.PlayBotRequest) -> None:
        raise NotImplementedError

    def _cancel(self) -> None:
        raise NotImplementedError

    async def directives(self) -> AsyncIterator[pb.BotDirective]:
        """The server's directives until the stream ends (not retried: connect again;
        the server sends start again for games in progress). Errors as GameError."""
        ended = GameError(grpc.StatusCode.UNAVAILABLE, "the PlayBot stream ended before the answer")
        try:
            await self._open()
            self.opened = True
            await self._write(pb.PlayBotRequest(connect=self._connect))
            while True:
                message = await self._read()
                if message is None:
                    return
                which = message.WhichOneof("message")
                if which == "answer":
                    self._answered(message.answer)
                elif which == "directive":
                    yield message.directive
                elif which == "end":  # the bot socket's last message: how it ended
                    if message.end.code != 0:
                        raise GameError(status_code(message.end.code), message.end.message)
                    return
        except GameError as exc:
            ended = exc
            if exc.code != grpc.StatusCode.CANCELLED:
                raise
        finally:
            self._end(ended)

    async def reply(
        self,
        game_id: str,
        version: int,
        line: str = "",
        error: str = "",
        last_round_trip_ms: float = 0.0,
    ) -> pb.BotReplyResponse:
        """BotReply's answer to one act, over the stream; its refusal as GameError.
        An UNAVAILABLE answer (the server's store did not answer) is sent again, up to
        ``retries`` times: the server plays an answer once, whoever asks twice."""
        for attempt in range(self._retries + 1):
            try:
                return await self._reply_once(game_id, version, line, error, last_round_trip_ms)
            except GameError as exc:
                if exc.code != grpc.StatusCode.UNAVAILABLE or attempt == self._retries:
                    raise
                if self._ended is not None:
                    raise
                await asyncio.sleep(self._delay(attempt))
        raise AssertionError("unreachable")

    async def _reply_once(
        self, game_id: str, version: int, line: str, error: str, last_round_trip_ms: float
    ) -> pb.BotReplyResponse:
        if self._ended is not None:
            raise self._ended
        waiting: asyncio.Future[pb.BotAnswer] = asyncio.get_running_loop().create_future()
        waits = self._waiting.setdefault((game_id, version), [])
        waits.append(waiting)
        try:
            await self._write(reply_request(game_id, version, line, error, last_round_trip_ms))
            async with asyncio.timeout(self._timeout):
                answer = await waiting
        except TimeoutError:
            raise GameError(
                grpc.StatusCode.DEADLINE_EXCEEDED,
                f"no answer to the reply for {game_id} at version {version} "
                f"within {self._timeout:g} s",
            ) from None
        finally:
            if waiting.done() and not waiting.cancelled():
                waiting.exception()  # retrieved: an end that came first is raised above
            if waiting in waits:
                waits.remove(waiting)
            if not waits:
                self._waiting.pop((game_id, version), None)
        return outcome(answer)

    async def _write(self, request: pb.PlayBotRequest) -> None:
        async with self._writing:
            if self._ended is not None:
                raise self._ended
            await self._send(request)

    def close(self) -> None:
        self._cancel()
        self._end(GameError(grpc.StatusCode.CANCELLED, "the runner closed its connection"))

    def _answered(self, answer: pb.BotAnswer) -> None:
        for waiting in self._waiting.get((answer.game_id, answer.version), []):
            if not waiting.done():  # the first still waiting; one that gave up is skipped
                waiting.set_result(answer)
                return

    def _end(self, error: GameError) -> None:
        if self._ended is None:
            self._ended = error
        for waits in self._waiting.values():
            for waiting in waits:
                if not waiting.done():
                    waiting.set_exception(self._ended)


class AioBotLink(_BotLink):
    """The PlayBot call on ``channel`` (grpc.aio)."""

    def __init__(
        self,
        channel: grpc.aio.Channel,
        key: str,
        concurrency: int,
        metadata: Any,
        timeout: float,
        retries: int = 0,
        delay: Callable[[int], float] = lambda attempt: 0.0,
    ):
        super().__init__(key, concurrency, timeout, retries, delay)
        self._call = pb_grpc.GameHostStub(channel).PlayBot(metadata=metadata)
        self.way = "PlayBot over gRPC"

    async def _read(self) -> pb.PlayBotResponse | None:
        try:
            message = await self._call.read()
        except grpc.aio.AioRpcError as exc:
            raise GameError(exc.code(), exc.details()) from None
        return None if message is grpc.aio.EOF else message

    async def _send(self, request: pb.PlayBotRequest) -> None:
        try:
            await self._call.write(request)
        except grpc.aio.AioRpcError as exc:
            raise GameError(exc.code(), exc.details()) from None
        except asyncio.InvalidStateError:  # the call is over (closed, or ended)
            raise self._ended or GameError(
                grpc.StatusCode.UNAVAILABLE, "the PlayBot stream ended before the answer"
            ) from None

    def _cancel(self) -> None:
        self._call.cancel()


FRAME = struct.Struct("!I")  # a bot socket frame's length, before its bytes
# How long a connect to the bot socket may take: a firewall that drops the packets is
# found out in this long (then `bot run` goes to PlayBot), not in a call's timeout.
CONNECT_SECONDS = 5.0
MAX_FRAME_BYTES = 64 * 1024 * 1024  # what a runner reads of one server message, at most


class SocketBotLink(_BotLink):
    """PlayBot's messages on the server's bot socket at ``host:port``: a TCP
    connection (TLS with ``tls``), each message a length-prefixed frame."""

    def __init__(
        self,
        host: str,
        port: int,
        tls: ssl.SSLContext | None,
        key: str,
        concurrency: int,
        timeout: float,
        retries: int = 0,
        delay: Callable[[int], float] = lambda attempt: 0.0,
    ):
        super().__init__(key, concurrency, timeout, retries, delay)
        self.address = f"{host}:{port}"
        self.way = f"the bot socket {self.address}"
        self._host, self._port, self._tls = host, port, tls
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def _open(self) -> None:
        try:
            async with asyncio.timeout(min(self._timeout, CONNECT_SECONDS)):
                self._reader, self._writer = await asyncio.open_connection(
                    self._host, self._port, ssl=self._tls
                )
        except (OSError, TimeoutError) as exc:
            raise GameError(
                grpc.StatusCode.UNAVAILABLE,
                f"cannot connect to the bot socket {self.address}: {exc}",
            ) from None

    async def _read(self) -> pb.PlayBotResponse | None:
        assert self._reader is not None
        try:
            (size,) = FRAME.unpack(await self._reader.readexactly(FRAME.size))
            if size > MAX_FRAME_BYTES:
                raise GameError(
                    grpc.StatusCode.INTERNAL,
                    f"the bot socket {self.address} sent a frame of {size} bytes: not a "
                    "gamehost bot socket?",
                )
            return pb.PlayBotResponse.FromString(await self._reader.readexactly(size))
        except (asyncio.IncompleteReadError, OSError) as exc:
            raise GameError(
                grpc.StatusCode.UNAVAILABLE, f"the bot socket {self.address} closed: {exc}"
            ) from None

    async def _send(self, request: pb.PlayBotRequest) -> None:
        writer = self._writer
        if writer is None or writer.is_closing():
            raise self._ended or GameError(
                grpc.StatusCode.UNAVAILABLE, "the bot socket closed before the answer"
            )
        body = request.SerializeToString()
        try:
            writer.write(FRAME.pack(len(body)) + body)
            await writer.drain()
        except OSError as exc:
            raise GameError(
                grpc.StatusCode.UNAVAILABLE, f"the bot socket {self.address} closed: {exc}"
            ) from None

    def _cancel(self) -> None:
        if self._writer is not None:
            with contextlib.suppress(RuntimeError):  # its event loop has closed
                self._writer.close()
