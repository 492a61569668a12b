"""Calling a GameHost RPC in-process, exactly as the gRPC server would: the same method
handlers behind the same interceptors (metrics, API keys, rate limits), with a context
that tells them who the HTTP client really is.

Why not a loopback gRPC channel: every call would come from 127.0.0.1 (one client for
the rate limits), and telling the servicer the real address would take a header that
a remote gRPC client could forge. Here the peer is the HTTP connection's own socket
address, which no header can change.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import grpc

from services.errors import FIELD_METADATA
from services.gateway.routes import SERVICE
from services.limits.access import API_KEY_HEADER

Write = Callable[[Any], Awaitable[None]]


class CallFailed(Exception):
    """The RPC ended with a status other than OK."""

    def __init__(self, code: grpc.StatusCode, message: str, field: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field  # the request field it is about (services.errors.FIELD_METADATA)


@dataclass(frozen=True)
class _CallDetails(grpc.HandlerCallDetails):
    method: str
    invocation_metadata: tuple[tuple[str, str], ...]


class HttpCallContext:
    """The part of ``grpc.aio.ServicerContext`` that gamehost's handlers use."""

    def __init__(self, peer: str, metadata: tuple[tuple[str, str], ...], write: Write | None):
        self._peer = peer
        self._metadata = metadata
        self._write = write
        self._code: grpc.StatusCode | None = None
        self._details = ""
        self._trailing: tuple[tuple[str, str], ...] = ()

    def peer(self) -> str:
        return self._peer

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return self._metadata

    async def abort(self, code: grpc.StatusCode, details: str = "", trailing_metadata=()):
        self._code, self._details, self._trailing = code, details, tuple(trailing_metadata)
        raise grpc.aio.AbortError(details)

    def set_code(self, code: grpc.StatusCode) -> None:
        self._code = code

    def set_details(self, details: str) -> None:
        self._details = details

    def code(self) -> grpc.StatusCode | None:
        return self._code

    def details(self) -> str:
        return self._details

    async def write(self, message: Any) -> None:
        if self._write is None:
            raise RuntimeError("write() on a unary call")
        await self._write(message)

    def failure(self) -> CallFailed:
        code = self._code if self._code not in (None, grpc.StatusCode.OK) else None
        field = dict(self._trailing).get(FIELD_METADATA, "")
        return CallFailed(code or grpc.StatusCode.UNKNOWN, self._details or "call failed", field)


def peer_of(address: Any) -> str:
    """A socket's peer address in grpc's spelling ("ipv4:1.2.3.4:5678"), which
    services.limits.access.client_id turns into the client's identity."""
    if isinstance(address, (tuple, list)) and len(address) >= 2:
        host, port = address[0], address[1]
        return f"ipv6:[{host}]:{port}" if ":" in str(host) else f"ipv4:{host}:{port}"
    return f"unix:{address}" if address else "unknown"


def metadata_of(headers: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """The gRPC metadata an HTTP request carries: its API key, nothing else."""
    key = headers.get(API_KEY_HEADER, "")
    return ((API_KEY_HEADER, key),) if key else ()


class Dispatcher:
    """Runs RPCs through ``interceptors`` (outermost first, as grpc.aio.server applies
    them) onto ``handlers`` (method name -> grpc.RpcMethodHandler)."""

    def __init__(
        self,
        handlers: Mapping[str, grpc.RpcMethodHandler],
        interceptors: Sequence[grpc.aio.ServerInterceptor],
    ) -> None:
        self._handlers = dict(handlers)
        self._interceptors = list(interceptors)

    async def _handler(self, details: _CallDetails, at: int = 0) -> grpc.RpcMethodHandler | None:
        if at == len(self._interceptors):
            return self._handlers.get(details.method.rsplit("/", 1)[-1])
        return await self._interceptors[at].intercept_service(
            lambda inner: self._handler(inner, at + 1), details
        )

    async def call(
        self, rpc: str, request: Any, peer: str, metadata: tuple[tuple[str, str], ...]
    ) -> Any:
        """A unary RPC's response, or CallFailed."""
        handler, context = await self._prepare(rpc, peer, metadata, None)
        try:
            return await handler.unary_unary(request, context)
        except grpc.aio.AbortError:
            raise context.failure() from None

    async def stream(
        self,
        rpc: str,
        request: Any,
        peer: str,
        metadata: tuple[tuple[str, str], ...],
        write: Write,
    ) -> None:
        """Run a server-streaming RPC, handing each message to ``write``; returns when
        the stream ends, raises CallFailed. Cancelling the caller's task ends the RPC
        (and releases its subscription) at once."""
        handler, context = await self._prepare(rpc, peer, metadata, write)
        try:
            replies = handler.unary_stream(request, context)
            if hasattr(replies, "__aiter__"):  # a yielding handler (no metrics wrapper)
                async with contextlib.aclosing(replies):
                    async for reply in replies:
                        await write(reply)
            else:  # a writing handler: the metrics interceptor's shape
                await replies
        except grpc.aio.AbortError:
            raise context.failure() from None

    async def _prepare(self, rpc, peer, metadata, write):
        details = _CallDetails(f"/{SERVICE.full_name}/{rpc}", metadata)
        handler = await self._handler(details)
        if handler is None:
            raise CallFailed(grpc.StatusCode.UNIMPLEMENTED, f"{rpc} is not served here")
        return handler, HttpCallContext(peer, metadata, write)
