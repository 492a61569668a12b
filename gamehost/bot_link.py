"""A bot runner's connection to the ladder on asyncio (grpc.aio), as ``gamehost bot
run`` holds it: ConnectBot's directives in, and each answer out as a BotReply call
(docs/bot-protocol.md), the key as ``authorization: Bearer`` metadata. The same two
calls are ``GET /v1/bots:connect`` (SSE) and ``POST /v1/bots:reply`` over HTTP.

One task reads ``directives()``; any task may ``reply()``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc

from gamehost.errors import GameError
from gamehost.v1 import gamehost_pb2 as pb
from gamehost.v1 import gamehost_pb2_grpc as pb_grpc


class BotLink:
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
        self._stub = pb_grpc.GameHostStub(channel)
        self._connect = pb.ConnectBotRequest(concurrency=concurrency, protocol=1)
        # The key travels as a bearer token, as over HTTP, not in the requests.
        self._metadata = (*(metadata or ()), ("authorization", f"Bearer {key}"))
        self._timeout = timeout
        self._retries = retries  # replies that meet UNAVAILABLE are sent again
        self._delay = delay  # the wait before retry ``attempt`` (0, 1, ...)
        self._call: Any = None

    async def directives(self) -> AsyncIterator[pb.BotDirective]:
        """ConnectBot's directives until the stream ends (not retried: connect again;
        the server sends start again for games in progress). Errors as GameError; a
        stream that ``close`` cancelled ends."""
        self._call = self._stub.ConnectBot(self._connect, metadata=self._metadata)
        try:
            async for directive in self._call:
                yield directive
        except grpc.aio.AioRpcError as exc:
            if exc.code() != grpc.StatusCode.CANCELLED:
                raise GameError(exc.code(), exc.details()) from None

    async def reply(
        self, game_id: str, version: int, line: str = "", error: str = ""
    ) -> pb.BotReplyResponse:
        """BotReply's answer to the act at ``version``; its refusal as GameError. An
        UNAVAILABLE one is sent again, up to ``retries`` times: the server plays an
        answer once, however often it is sent."""
        request = pb.BotReplyRequest(game_id=game_id, version=version, line=line, error=error)
        for attempt in range(self._retries + 1):
            try:
                return await self._stub.BotReply(
                    request, metadata=self._metadata, timeout=self._timeout
                )
            except grpc.aio.AioRpcError as exc:
                if exc.code() != grpc.StatusCode.UNAVAILABLE or attempt == self._retries:
                    raise GameError(exc.code(), exc.details()) from None
            await asyncio.sleep(self._delay(attempt))
        raise AssertionError("unreachable")

    def close(self) -> None:
        """End the connection (``directives`` returns)."""
        if self._call is not None:
            self._call.cancel()
