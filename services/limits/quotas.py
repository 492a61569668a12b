"""Per-client quotas at the gRPC edge: request rate, failed authentications, anonymous
exports and API keys; the same counters serve the hint rate and the ladder's bots.

Every rate is counted by the ``limits`` library's moving window, in the store's Redis
when the server runs on one (keys under the server's prefix, expiring with their
window), so the limits hold across replicas; with the in-memory store, in the
process. The live-games cap is counted in the store itself (``GameHost.create_game``).

A client is its API key only when the key is one this server checks (``--api-keys``);
otherwise the ``x-api-key`` header is ignored and the client is its address, so a
made-up key per call opens no counter of its own. With keys configured, an unknown key
is refused UNAUTHENTICATED before any counter is touched.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import math
import time
from collections.abc import Awaitable, Callable

import grpc
from limits import RateLimitItem, RateLimitItemPerMinute, RateLimitItemPerSecond
from limits.aio.strategies import MovingWindowRateLimiter

from services.errors import is_infrastructure_error
from services.limits.access import api_key_of, client_id
from services.stores import Limits

log = logging.getLogger(__name__)

_SERVICE_PREFIX = "/gamehost.v1.GameHost/"
_NEEDS_KEY = {
    _SERVICE_PREFIX + "CreateGame",
    _SERVICE_PREFIX + "CreateTournament",
    _SERVICE_PREFIX + "RegisterBot",
}
_EXPORT = _SERVICE_PREFIX + "ExportGames"
# Not counted as requests: a bot's answers are bounded per bot instead (one played per
# act, and its answers that play nothing: services/ladder/sessions.py), so a fast bot is
# never refused an answer in time. Failed authentications still count.
_BOT_REPLY = _SERVICE_PREFIX + "BotReply"
# The running unary call's client id, as the interceptor admitted it (CreateGame's
# live-games cap counts against it); everything else reads the caller from here.
_CALLER: contextvars.ContextVar[str] = contextvars.ContextVar("gamehost_caller", default="")


# The running call's count of a failed authentication, set by the interceptor: the
# status mapping awaits it before the refusal goes out (``count_failed_authentication``),
# so the count is in the store before the client can call again, on any replica.
_COUNT_FAILED_AUTH: contextvars.ContextVar[Callable[[], Awaitable[None]] | None] = (
    contextvars.ContextVar("gamehost_count_failed_auth", default=None)
)


async def count_failed_authentication() -> None:
    """Count the running call's failed authentication against its client, once."""
    count = _COUNT_FAILED_AUTH.get()
    if count is not None:
        _COUNT_FAILED_AUTH.set(None)
        await count()


def caller_of(context: grpc.aio.ServicerContext) -> str:
    """Who the running call's client is for quotas: as the AccessInterceptor admitted
    it, else (a servicer run without it) its address; never an unchecked API key."""
    return _CALLER.get() or client_id("", context.peer() or "")


def counters_for(store: Limits) -> MovingWindowRateLimiter:
    """The moving-window counters beside ``store``: in its Redis, on its connections
    (Sentinel followed, Cluster's nodes), under its key prefix; else in this process."""
    return MovingWindowRateLimiter(store.limit_storage())


def per_second(rate: float, burst: float, name: str) -> RateLimitItem | None:
    """``rate`` a second in bursts of ``burst``, as a moving window: at most ``burst``
    hits in any ``burst / rate`` seconds (rounded up to a whole second, the library's
    unit). None (no limit) when ``rate`` is 0."""
    if rate <= 0:
        return None
    amount = max(1, int(burst))
    return RateLimitItemPerSecond(amount, max(1, math.ceil(amount / rate)), namespace=name)


def per_minute(count: int, name: str) -> RateLimitItem | None:
    """At most ``count`` hits in any minute; None (no limit) when ``count`` is 0."""
    return RateLimitItemPerMinute(count, 1, namespace=name) if count > 0 else None


class RateLimit:
    """One limit (``item``: None for none), counted per key on shared ``counters``."""

    def __init__(self, counters: MovingWindowRateLimiter, item: RateLimitItem | None) -> None:
        self.counters, self.item = counters, item

    def describe(self, what: str) -> str:
        """The limit as people read it: "20 wrong tokens in any 4 s"."""
        if self.item is None:
            return f"any number of {what}"
        return f"{self.item.amount} {what} in any {self.item.get_expiry()} s"

    async def hit(self, key: str) -> bool:
        """Count one hit; False (and nothing counted) when the window is full."""
        return self.item is None or await self.counters.hit(self.item, key)

    async def test(self, key: str) -> bool:
        """Whether one more hit would be admitted (nothing counted)."""
        return self.item is None or await self.counters.test(self.item, key)

    async def retry_in(self, key: str) -> float:
        """Seconds until the window admits a hit again (0: it does now)."""
        if self.item is None:
            return 0.0
        stats = await self.counters.get_window_stats(self.item, key)
        return 0.0 if stats.remaining > 0 else max(0.0, stats.reset_time - time.time())


class AccessInterceptor(grpc.aio.ServerInterceptor):
    """Checks API keys and rate limits before a GameHost call runs, and counts the
    call's failed authentications (a wrong seat token) against its client."""

    def __init__(
        self,
        api_keys: dict[str, str] | None,
        requests: RateLimit,
        failed_auth: RateLimit,
        anonymous_exports: RateLimit,
    ) -> None:
        self.api_keys = api_keys or {}
        self.requests = requests
        self.failed_auth = failed_auth
        self.anonymous_exports = anonymous_exports  # ExportGames without an API key
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
            key, make = (
                (details.method, api_key),
                lambda: _counted(handler, self, details.method, api_key),
            )
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

    async def admit(self, context: grpc.aio.ServicerContext, method: str, api_key: str) -> str:
        """The caller's client id, or abort: RESOURCE_EXHAUSTED over a limit, UNAVAILABLE
        when the counters' Redis does not answer (nothing is decided without them)."""
        client = client_id(api_key, context.peer() or "")
        try:
            refusal = await self._over_limit(client, method, api_key)
        except Exception as exc:
            if not is_infrastructure_error(exc):
                raise
            log.warning("rate limits: the store does not answer (%s): UNAVAILABLE", exc)
            refusal = None
            await context.abort(
                grpc.StatusCode.UNAVAILABLE,
                "the rate limits' store (Redis) is not answering; retry in a few seconds",
            )
        if refusal is not None:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, refusal)
        return client

    async def _over_limit(self, client: str, method: str, api_key: str) -> str | None:
        """What refuses this call (None: nothing); counts it when nothing does."""
        if not await self.failed_auth.test(client):
            wait = await self.failed_auth.retry_in(client)
            return (
                "too many failed authentications from this client (at most "
                f"{self.failed_auth.describe('wrong tokens')}); retry in {math.ceil(wait)} s"
            )
        if method != _BOT_REPLY and not await self.requests.hit(client):
            wait = await self.requests.retry_in(client)
            return (
                f"rate limit: at most {self.requests.describe('requests')} per client; "
                f"slow down and retry in {math.ceil(wait)} s"
            )
        if method == _EXPORT and not api_key and not await self.anonymous_exports.hit(client):
            wait = await self.anonymous_exports.retry_in(client)
            return (
                "anonymous export limit: at most "
                f"{self.anonymous_exports.describe('exports')} per client address without "
                f"an API key; retry in {math.ceil(wait)} s"
            )
        return None

    async def count_failed(self, client: str) -> None:
        """Count one failed authentication of ``client``."""
        try:
            await self.failed_auth.hit(client)
        except Exception as exc:  # the call has its answer: keep it, if the store failed
            if not is_infrastructure_error(exc):
                raise
            log.warning("rate limits: a failed authentication went uncounted (%s)", exc)


def _refusing(handler: grpc.RpcMethodHandler, code: grpc.StatusCode, message: str):
    async def refuse(request, context):
        await context.abort(code, message)

    async def refuse_stream(request, context):
        await context.abort(code, message)
        yield  # pragma: no cover - makes this an async generator

    return _rebuild(handler, refuse, refuse_stream)


def _counted(handler: grpc.RpcMethodHandler, limits: AccessInterceptor, method: str, api_key: str):
    async def unary(request, context):
        client = await limits.admit(context, method, api_key)
        caller = _CALLER.set(client)
        counting = _COUNT_FAILED_AUTH.set(lambda: limits.count_failed(client))
        try:
            return await handler.unary_unary(request, context)
        finally:
            _COUNT_FAILED_AUTH.reset(counting)
            _CALLER.reset(caller)

    async def stream(request, context):
        client = await limits.admit(context, method, api_key)
        _COUNT_FAILED_AUTH.set(lambda: limits.count_failed(client))  # this call's task only
        async with contextlib.aclosing(handler.unary_stream(request, context)) as items:
            async for item in items:
                yield item

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
