"""gRPC server metrics under the names the ecosystem uses (go-grpc-prometheus,
py-grpc-prometheus): ``grpc_server_started_total``, ``grpc_server_handled_total``,
``grpc_server_handling_seconds``, ``grpc_server_msg_received_total`` and
``grpc_server_msg_sent_total``, labelled ``grpc_service``, ``grpc_method``,
``grpc_type`` (and ``grpc_code`` once handled).

Written here because no library we know of fits: py-grpc-prometheus's interceptor is
for the threaded ``grpc.server``, not a ``grpc.aio.ServerInterceptor``, and
grpc-interceptor's aio base class exports no metrics (from their documentation as we
know it; this machine's package index carries neither, so neither was tried). Server-streaming
RPCs also count as open streams (``gamehost_open_streams``) while they run.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
from prometheus_client import Counter, Histogram

from services import metrics

_LABELS = ["grpc_type", "grpc_service", "grpc_method"]
# The layer below (limits.AccessInterceptor) builds a handler per call only for API keys
# the server does not check: past this many, further handlers are wrapped and not kept.
_MAX_WRAPPED = 1024

STARTED = Counter("grpc_server_started_total", "RPCs started on the server", _LABELS)
HANDLED = Counter(
    "grpc_server_handled_total", "RPCs completed on the server", [*_LABELS, "grpc_code"]
)
HANDLING_SECONDS = Histogram(
    "grpc_server_handling_seconds",
    "Time from an RPC's start to its completion on the server",
    _LABELS,
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
MSG_RECEIVED = Counter("grpc_server_msg_received_total", "Messages received from clients", _LABELS)
MSG_SENT = Counter("grpc_server_msg_sent_total", "Messages sent to clients", _LABELS)


def _split(full_method: str) -> tuple[str, str]:
    """'/pkg.Service/Method' -> ('pkg.Service', 'Method')."""
    _, service, method = full_method.split("/", 2)
    return service, method


def _code_of(context: grpc.aio.ServicerContext, error: BaseException | None) -> str:
    """The status the client sees: an abort's code, else OK, else UNKNOWN."""
    code = context.code()
    if code is not None:
        return code.name if isinstance(code, grpc.StatusCode) else grpc.StatusCode(code).name
    if error is None:
        return "OK"
    if isinstance(error, grpc.aio.AbortError):
        return "UNKNOWN"  # an abort without a code: grpc answers UNKNOWN
    # A client that hangs up cancels the handler (or closes its generator).
    return "CANCELLED" if isinstance(error, (asyncio.CancelledError, GeneratorExit)) else "UNKNOWN"


class _Series:
    """One method's labelled series, looked up once: ``labels()`` validates and locks
    on every call, which showed in profiles of the SubmitAction path."""

    def __init__(self, labels: tuple[str, str, str]) -> None:
        self.labels = labels
        self.started = STARTED.labels(*labels)
        self.received = MSG_RECEIVED.labels(*labels)
        self.sent = MSG_SENT.labels(*labels)
        self.seconds = HANDLING_SECONDS.labels(*labels)
        self._handled: dict[str, Any] = {}

    def handled(self, code: str) -> Any:
        counter = self._handled.get(code)
        if counter is None:
            counter = self._handled[code] = HANDLED.labels(*self.labels, code)
        return counter


_series: dict[tuple[str, str], _Series] = {}


def _series_of(grpc_type: str, full_method: str) -> _Series:
    found = _series.get((grpc_type, full_method))
    if found is None:
        found = _series[grpc_type, full_method] = _Series((grpc_type, *_split(full_method)))
    return found


class _Call:
    """The bookkeeping of one RPC."""

    def __init__(self, grpc_type: str, full_method: str) -> None:
        self.series = _series_of(grpc_type, full_method)
        self.labels = self.series.labels
        self.started = time.perf_counter()
        self.series.started.inc()

    def received(self) -> None:
        self.series.received.inc()

    def sent(self) -> None:
        self.series.sent.inc()

    def done(self, context: grpc.aio.ServicerContext, error: BaseException | None) -> None:
        self.series.handled(_code_of(context, error)).inc()
        self.series.seconds.observe(time.perf_counter() - self.started)


class PrometheusServerInterceptor(grpc.aio.ServerInterceptor):
    """Counts and times every unary and server-streaming RPC (the two kinds gamehost
    serves); client- and bidi-streaming handlers pass through untouched."""

    def __init__(self) -> None:
        # Wrapped handlers by the handler they wrap (kept alive here, so its id stays
        # its own): building two closures and a handler on every RPC showed in profiles.
        self._wrapped: dict[int, tuple[grpc.RpcMethodHandler, grpc.RpcMethodHandler]] = {}

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(details)
        if handler is None or handler.request_streaming:
            return handler
        cached = self._wrapped.get(id(handler))
        if cached is not None and cached[0] is handler:
            return cached[1]
        wrapped = self._wrap(handler, details.method)
        if len(self._wrapped) < _MAX_WRAPPED:
            self._wrapped[id(handler)] = (handler, wrapped)
        return wrapped

    @staticmethod
    def _wrap(handler: grpc.RpcMethodHandler, method: str) -> grpc.RpcMethodHandler:
        if handler.unary_unary is not None:
            return grpc.unary_unary_rpc_method_handler(
                _unary(handler.unary_unary, method),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        if handler.unary_stream is not None:
            return grpc.unary_stream_rpc_method_handler(
                _server_stream(handler.unary_stream, method),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        return handler


def _unary(behavior: Callable[..., Any], method: str) -> Callable[..., Awaitable[Any]]:
    async def wrapper(request: Any, context: grpc.aio.ServicerContext) -> Any:
        call = _Call("unary", method)
        call.received()
        error: BaseException | None = None
        try:
            reply = behavior(request, context)
            if hasattr(reply, "__await__"):
                reply = await reply
            call.sent()
            return reply
        except BaseException as exc:
            error = exc
            raise
        finally:
            call.done(context, error)

    return wrapper


def _server_stream(behavior: Callable[..., Any], method: str) -> Callable[..., Awaitable[None]]:
    # A coroutine that writes, not a generator that yields: when the client cancels,
    # grpc cancels this task, so the CancelledError lands here and ``aclosing`` ends the
    # handler's generators at once. A yielding wrapper would stay suspended at its
    # ``yield`` until the garbage collector found it, keeping the stream's resources.
    async def wrapper(request: Any, context: grpc.aio.ServicerContext) -> None:
        call = _Call("server_stream", method)
        call.received()
        streams = metrics.OPEN_STREAMS.labels(call.labels[2])
        streams.inc()
        error: BaseException | None = None
        try:
            replies = behavior(request, context)
            if hasattr(replies, "__aiter__"):
                async with contextlib.aclosing(replies):
                    async for reply in replies:
                        await context.write(reply)
                        call.sent()
            else:  # a handler that writes with context.write() and returns nothing
                await replies
        except BaseException as exc:
            error = exc
            raise
        finally:
            streams.dec()
            call.done(context, error)

    return wrapper
