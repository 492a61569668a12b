"""Locust users that speak gRPC: grpc's gevent integration (so blocking calls yield to
the other users) and a client interceptor that reports every call to Locust as one
request event named after its RPC (``SubmitAction``, ``WatchGame``...).

A server stream is reported once, when its first message arrives (time to first
event), and again as a failure if it ends with an error other than a cancel."""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from typing import Any, ClassVar

import grpc
from grpc.experimental import gevent as grpc_gevent

grpc_gevent.init_gevent()  # before any channel exists

import gevent  # noqa: E402
from locust import User  # noqa: E402

from gamehost.v1 import gamehost_pb2_grpc as pb_grpc  # noqa: E402

CHANNELS_PER_TARGET = 4
# Each channel with calls open holds one thread of gevent's pool, which also resolves
# names (the metrics scrapes): room for every channel of two targets and the echo server.
gevent.get_hub().threadpool.maxsize = 32


def _size(message: Any) -> int:
    return message.ByteSize() if hasattr(message, "ByteSize") else len(message or b"")


class LocustInterceptor(grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor):
    """Fires Locust's request event for every call made through the channel."""

    def __init__(self, events: Any) -> None:
        self.events = events

    def _fire(self, name: str, started: float, length: int, error: BaseException | None) -> None:
        self.events.request.fire(
            request_type="grpc",
            name=name,
            response_time=(time.perf_counter() - started) * 1000,
            response_length=length,
            exception=error,
            context={},
        )

    def intercept_unary_unary(self, continuation, details, request):
        name = details.method.rsplit("/", 1)[-1]
        started = time.perf_counter()
        call = continuation(details, request)
        try:
            self._fire(name, started, _size(call.result()), None)
        except grpc.RpcError as exc:
            self._fire(name, started, 0, exc)
        return call

    def intercept_unary_stream(self, continuation, details, request):
        name = details.method.rsplit("/", 1)[-1]
        return _ReportedStream(continuation(details, request), name, time.perf_counter(), self)


class _ReportedStream:
    """A server stream that reports its first message (or its error) to Locust."""

    def __init__(self, call: Any, name: str, started: float, reporter: LocustInterceptor):
        self._call, self._name, self._started, self._reporter = call, name, started, reporter
        self._first = True

    def __iter__(self) -> Iterator[Any]:
        return self

    def __next__(self) -> Any:
        try:
            message = next(self._call)
        except grpc.RpcError as exc:
            if exc.code() != grpc.StatusCode.CANCELLED:
                self._reporter._fire(self._name, self._started, 0, exc)
            raise
        if self._first:
            self._first = False
            self._reporter._fire(self._name, self._started, _size(message), None)
        return message

    def cancel(self) -> bool:
        return self._call.cancel()


class GrpcUser(User):
    """A user calling one of ``targets`` (round robin over the users: the client-side
    balancing a headless Service gives), through the Locust interceptor.

    Users share a few channels per target, as the threads of one application would:
    under gevent every channel with calls in flight holds a thread of gevent's pool
    (grpc's channel-spin thread), so a channel per user starves the pool and stalls,
    and one channel for hundreds of streams serialises them on one thread."""

    abstract = True
    targets: ClassVar[list[str]] = []
    _next_target: ClassVar[Iterator[int]] = itertools.count()
    _next_channel: ClassVar[Iterator[int]] = itertools.count()
    _channels: ClassVar[dict[tuple[str, int, int], tuple[grpc.Channel, grpc.Channel]]] = {}

    def __init__(self, environment: Any) -> None:
        super().__init__(environment)
        if not self.targets:
            raise ValueError(f"{type(self).__name__}.targets is empty: set the servers to load")
        self.target = self.targets[next(GrpcUser._next_target) % len(self.targets)]
        key = (self.target, id(environment), next(GrpcUser._next_channel) % CHANNELS_PER_TARGET)
        if key not in self._channels:
            plain = grpc.insecure_channel(self.target)
            self._channels[key] = (
                plain,
                grpc.intercept_channel(plain, LocustInterceptor(environment.events)),
            )
        self.channel = self._channels[key][1]
        self.stub = pb_grpc.GameHostStub(self.channel)

    @classmethod
    def close_channels(cls) -> None:
        """Close every shared channel (after a run's users have stopped)."""
        for plain, _ in cls._channels.values():
            plain.close()
        cls._channels.clear()
