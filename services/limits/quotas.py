"""Per-client quotas at the gRPC edge: request rate, failed authentications and API keys.

Rate limits are token buckets kept in each replica's memory, so with N replicas a
client may get up to N times the rate; the live-games cap is counted in the store
and holds across replicas (see ``GameHost.create_game``).

A client is its API key only when the key is one this server checks (``--api-keys``);
otherwise the ``x-api-key`` header is ignored and the client is its address, so a
made-up key per call opens no bucket of its own. With keys configured, an unknown key
is refused UNAUTHENTICATED before any bucket is touched.
"""

from __future__ import annotations

import contextlib
import contextvars
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import grpc

from services.limits.access import api_key_of, client_id

_SERVICE_PREFIX = "/gamehost.v1.GameHost/"
_NEEDS_KEY = {
    _SERVICE_PREFIX + "CreateGame",
    _SERVICE_PREFIX + "CreateTournament",
    _SERVICE_PREFIX + "RegisterBot",
}
_MAX_CLIENTS = 100_000  # buckets kept (least recently used dropped)
# The running unary call's client id, as the interceptor admitted it (CreateGame's
# live-games cap counts against it): one home for who a caller is.
_CALLER: contextvars.ContextVar[str] = contextvars.ContextVar("gamehost_caller", default="")


def caller_of(context: grpc.aio.ServicerContext) -> str:
    """Who the running call's client is for quotas: as the AccessInterceptor admitted
    it, else (a servicer run without it) its address; never an unchecked API key."""
    return _CALLER.get() or client_id("", context.peer() or "")


@dataclass
class _Bucket:
    tokens: float
    stamp: float


class TokenBuckets:
    """One token bucket per client: ``rate`` tokens a second, at most ``burst``."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self._buckets: OrderedDict[str, _Bucket] = OrderedDict()

    def _bucket(self, client: str) -> _Bucket:
        now = time.monotonic()
        bucket = self._buckets.pop(client, None) or _Bucket(self.burst, now)
        bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.stamp) * self.rate)
        bucket.stamp = now
        self._buckets[client] = bucket
        while len(self._buckets) > _MAX_CLIENTS:
            self._buckets.popitem(last=False)
        return bucket

    def has_tokens(self, client: str) -> bool:
        return self.rate <= 0 or self._bucket(client).tokens >= 1

    def seconds_until_token(self, client: str) -> float:
        """How long until the bucket holds a token again (0: it holds one now)."""
        if self.rate <= 0:
            return 0.0
        return max(0.0, (1 - self._bucket(client).tokens) / self.rate)

    def take(self, client: str) -> bool:
        """Spend one token; False (and nothing spent) when the bucket is empty."""
        if self.rate <= 0:
            return True
        bucket = self._bucket(client)
        if bucket.tokens < 1:
            return False
        bucket.tokens -= 1
        return True


class AccessInterceptor(grpc.aio.ServerInterceptor):
    """Checks API keys and rate limits before a GameHost call runs, and counts the
    call's failed authentications (a wrong seat token) against its client."""

    def __init__(
        self,
        api_keys: dict[str, str] | None,
        requests: TokenBuckets,
        failed_auth: TokenBuckets,
    ) -> None:
        self.api_keys = api_keys or {}
        self.requests = requests
        self.failed_auth = failed_auth
        # (method, API key or refusal) -> (handler, its wrapper): built once, not on every
        # RPC (it showed in profiles). Only no key, known keys and the refusals are kept,
        # so no client can grow it.
        self._wrapped: dict[
            tuple[str, str], tuple[grpc.RpcMethodHandler, grpc.RpcMethodHandler]
        ] = {}

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(details)
        if handler is None or not details.method.startswith(_SERVICE_PREFIX):
            return handler  # health, reflection: never limited
        api_key = api_key_of(dict(details.invocation_metadata or ()))
        if not self.api_keys:
            api_key = ""  # a key this server does not check is no identity: the peer is
        refusal = self._refusal(details.method, api_key)
        if refusal is not None:
            key, make = (details.method, refusal[1]), lambda: _refusing(handler, *refusal)
        else:  # no key, or a known one
            key, make = (details.method, api_key), lambda: _counted(handler, self, api_key)
        cached = self._wrapped.get(key)
        if cached is None or cached[0] is not handler:
            cached = self._wrapped[key] = (handler, make())
        return cached[1]

    def _refusal(self, method: str, api_key: str) -> tuple[grpc.StatusCode, str] | None:
        if not self.api_keys:
            return None
        if api_key and api_key not in self.api_keys:
            return grpc.StatusCode.UNAUTHENTICATED, "unknown API key (metadata 'x-api-key')"
        if not api_key and method in _NEEDS_KEY:
            return (
                grpc.StatusCode.UNAUTHENTICATED,
                "this server needs an API key to create games: send it as metadata 'x-api-key'",
            )
        return None

    async def admit(self, context: grpc.aio.ServicerContext, api_key: str) -> str:
        """The caller's client id, or abort with RESOURCE_EXHAUSTED."""
        client = client_id(api_key, context.peer() or "")
        if not self.failed_auth.has_tokens(client):
            await context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                "too many failed authentications from this client: wait a few seconds",
            )
        if not self.requests.take(client):
            await context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"rate limit: at most {self.requests.rate:g} requests a second "
                f"(bursts of {self.requests.burst:g}) per client; slow down and retry",
            )
        return client

    def settle(self, context: grpc.aio.ServicerContext, client: str) -> None:
        if context.code() == grpc.StatusCode.UNAUTHENTICATED:
            self.failed_auth.take(client)


def _refusing(handler: grpc.RpcMethodHandler, code: grpc.StatusCode, message: str):
    async def refuse(request, context):
        await context.abort(code, message)

    async def refuse_stream(request, context):
        await context.abort(code, message)
        yield  # pragma: no cover - makes this an async generator

    return _rebuild(handler, refuse, refuse_stream)


def _counted(handler: grpc.RpcMethodHandler, limits: AccessInterceptor, api_key: str):
    async def unary(request, context):
        client = await limits.admit(context, api_key)
        caller = _CALLER.set(client)
        try:
            return await handler.unary_unary(request, context)
        finally:
            _CALLER.reset(caller)
            limits.settle(context, client)

    async def stream(request, context):
        client = await limits.admit(context, api_key)
        try:
            async with contextlib.aclosing(handler.unary_stream(request, context)) as items:
                async for item in items:
                    yield item
        finally:
            limits.settle(context, client)

    return _rebuild(handler, unary, stream)


def _rebuild(handler: grpc.RpcMethodHandler, unary, stream) -> grpc.RpcMethodHandler:
    if handler.unary_unary is not None:
        return grpc.unary_unary_rpc_method_handler(
            unary, handler.request_deserializer, handler.response_serializer
        )
    if handler.unary_stream is not None:
        return grpc.unary_stream_rpc_method_handler(
            stream, handler.request_deserializer, handler.response_serializer
        )
    return handler
