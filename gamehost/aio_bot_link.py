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
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc

from gamehost.bot_link import outcome, reply_request
from gamehost.errors import GameError
from gamehost.v1 import gamehost_pb2 as pb
from gamehost.v1 import gamehost_pb2_grpc as pb_grpc


class AioBotLink:
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
        self._call = pb_grpc.GameHostStub(channel).PlayBot(metadata=metadata)
        self._connect = pb.ConnectBotRequest(key=key, concurrency=concurrency, protocol=1)
        self._timeout = timeout
        self._retries = retries  # answers UNAVAILABLE sent again, as BotReply calls are
        self._delay = delay  # the wait before retry ``attempt`` (0, 1, ...)
        # gRPC takes one message at a time on a call: copies that answer together queue.
        self._writing = asyncio.Lock()
        self._waiting: dict[tuple[str, int], list[asyncio.Future[pb.BotAnswer]]] = {}
        self._ended: GameError | None = None

    async def directives(self) -> AsyncIterator[pb.BotDirective]:
        """The server's directives until the stream ends (not retried: connect again;
        the server sends start again for games in progress). Errors as GameError."""
        ended = GameError(grpc.StatusCode.UNAVAILABLE, "the PlayBot stream ended before the answer")
        try:
            await self._write(pb.PlayBotRequest(connect=self._connect))
            while True:
                message = await self._call.read()
                if message is grpc.aio.EOF:
                    return
                if message.HasField("answer"):
                    self._answered(message.answer)
                else:
                    yield message.directive
        except grpc.aio.AioRpcError as exc:
            ended = GameError(exc.code(), exc.details())
            if exc.code() != grpc.StatusCode.CANCELLED:
                raise ended from None
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
            try:
                await self._call.write(request)
            except grpc.aio.AioRpcError as exc:
                raise GameError(exc.code(), exc.details()) from None
            except asyncio.InvalidStateError:  # the call is over (closed, or ended)
                raise self._ended or GameError(
                    grpc.StatusCode.UNAVAILABLE, "the PlayBot stream ended before the answer"
                ) from None

    def close(self) -> None:
        self._call.cancel()
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
