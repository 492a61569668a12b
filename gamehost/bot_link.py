"""A bot runner's connection to the ladder on asyncio (grpc.aio), as ``gamehost bot
run`` holds it: ConnectBot's directives in, and each answer out as a BotReply call
(docs/bot-protocol.md), the key as ``authorization: Bearer`` metadata. The same two
calls are ``GET /v1/bots:connect`` (SSE) and ``POST /v1/bots:reply`` over HTTP.

One task reads ``directives()``; any task may ``reply()``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc
import tenacity
from tenacity.wait import wait_base

from gamehost.errors import GameError
from gamehost.v1 import gamehost_pb2 as pb
from gamehost.v1 import gamehost_pb2_grpc as pb_grpc

# A reply refused for a reason that is not the bot's: the server's store away
# (UNAVAILABLE), a rate limit (RESOURCE_EXHAUSTED), a write
# that met another (ABORTED). Sent again: the server plays an answer once at most.
RETRIED_REPLIES = (
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
    grpc.StatusCode.ABORTED,
)


def _retried(exc: BaseException) -> bool:
    return isinstance(exc, grpc.aio.AioRpcError) and exc.code() in RETRIED_REPLIES


def _stop_past(due: float) -> Callable[[tenacity.RetryCallState], bool]:
    """Stop when the next try would start at ``due`` (time.monotonic()) or later."""
    return lambda state: time.monotonic() + state.upcoming_sleep >= due


class BotLink:
    def __init__(
        self,
        channel: grpc.aio.Channel,
        key: str,
        concurrency: int,
        metadata: Any,
        timeout: float,
        retries: int = 0,
        wait: wait_base | None = None,
    ):
        self._stub = pb_grpc.GameHostStub(channel)
        self._connect = pb.ConnectBotRequest(concurrency=concurrency, protocol=1)
        # The key travels as a bearer token, as over HTTP, not in the requests.
        self._metadata = (*(metadata or ()), ("authorization", f"Bearer {key}"))
        self._timeout = timeout
        self._retries = retries  # replies refused with RETRIED_REPLIES are sent again
        self._wait = wait or tenacity.wait_none()  # before each retry (gamehost.retry)
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
        self,
        game_id: str,
        version: int,
        line: str = "",
        error: str = "",
        due: float | None = None,
    ) -> pb.BotReplyResponse:
        """BotReply's answer to the act at ``version``; its refusal as GameError. One
        refused with RETRIED_REPLIES is sent again: until ``due`` (time.monotonic(): the
        act's clock), else up to ``retries`` times. Never a refusal that is the bot's
        (an illegal or stale move is an answer, not a refusal)."""
        request = pb.BotReplyRequest(game_id=game_id, version=version, line=line, error=error)
        # Within the act's clock when it is known, else ``retries`` times.
        stop = tenacity.stop_after_attempt(self._retries + 1) if due is None else _stop_past(due)
        retrying = tenacity.AsyncRetrying(
            stop=stop,
            wait=self._wait,
            retry=tenacity.retry_if_exception(_retried),
            sleep=asyncio.sleep,
            reraise=True,
        )

        async def send() -> pb.BotReplyResponse:  # a coroutine, as tenacity awaits
            return await self._stub.BotReply(
                request, metadata=self._metadata, timeout=self._timeout
            )

        try:
            return await retrying(send)
        except grpc.aio.AioRpcError as exc:
            raise GameError(exc.code(), exc.details()) from None

    def close(self) -> None:
        """End the connection (``directives`` returns)."""
        if self._call is not None:
            self._call.cancel()
