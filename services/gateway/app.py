"""The gateway's aiohttp application: API routes under /v1/, the OpenAPI document,
server-sent event streams, CORS when asked for, and the web client's files at /."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import socket
import ssl
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from aiohttp import web
from google.protobuf import json_format
from google.protobuf.message import Message

from gamehost.v1 import gamehost_pb2 as pb
from services import metrics
from services.api.status import MalformedRequest
from services.gateway import sse
from services.gateway.binding import MAX_BODY, BadRequest, bind
from services.gateway.calls import CallFailed, Dispatcher, metadata_of, peer_of
from services.gateway.errors import HTTP_STATUS, error_body
from services.gateway.openapi import openapi_document
from services.gateway.routes import ROUTES, Route, find
from services.gateway.static import StaticFiles

log = logging.getLogger(__name__)

_CORS_HEADERS = "Authorization, Content-Type, Last-Event-ID, X-Api-Key"


@dataclass
class GatewayConfig:
    web_dir: Path | None = None  # None: a placeholder page at /
    cors_origins: Sequence[str] = ()  # empty: no CORS headers (same-origin pages only)
    heartbeat: float = 15.0  # seconds between SSE keep-alive comments
    open_after: float = 1.0  # seconds an SSE stream with nothing to send waits to answer 200


def to_json(message: Message) -> str:
    """protobuf's JSON mapping; fields without presence are written even when default
    (``"seat": 0``), so a browser need not know the defaults."""
    return json.dumps(
        json_format.MessageToDict(message, always_print_fields_with_no_presence=True),
        separators=(",", ":"),
    )


def _error(
    code: grpc.StatusCode, message: str, status: int | None = None, field: str = "", **headers: str
) -> web.Response:
    return web.json_response(
        error_body(code, message, field), status=status or HTTP_STATUS[code], headers=headers
    )


@dataclass
class HttpGateway:
    dispatcher: Dispatcher
    config: GatewayConfig = field(default_factory=GatewayConfig)

    def __post_init__(self) -> None:
        self._streams: set[asyncio.Task] = set()
        self._runner: web.AppRunner | None = None
        self.tls = False
        self._openapi = json.dumps(openapi_document(ROUTES), indent=1)
        self.app = web.Application(client_max_size=MAX_BODY)
        self.app.router.add_get("/v1/openapi.json", self._openapi_json)
        self.app.router.add_route("*", "/v1", self._api)
        # [\s\S]: a decoded path may hold a newline ("%0A"), which "." does not match;
        # every path must reach our handlers, so even those get the JSON error body.
        self.app.router.add_route("*", "/v1/{tail:[\\s\\S]*}", self._api)
        self.app.router.add_route("*", "/{tail:[\\s\\S]*}", StaticFiles(self.config.web_dir).handle)
        self.app.on_response_prepare.append(self._cors)

    # ------------------------------------------------------------------ serving
    async def start(self, host: str, port: int, ssl_context: ssl.SSLContext | None = None) -> int:
        """Listen (SO_REUSEPORT: processes of one group share the port); the bound port."""
        # handler_cancellation: a browser that goes away cancels its handler, so an
        # event stream releases its subscription at once.
        self._runner = web.AppRunner(
            self.app, handler_cancellation=True, access_log=None, shutdown_timeout=1
        )
        await self._runner.setup()
        family = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM)[0][0]
        listener = socket.create_server((host, port), family=family, reuse_port=True)
        await web.SockSite(self._runner, listener, ssl_context=ssl_context).start()
        self.tls = ssl_context is not None
        return listener.getsockname()[1]

    async def stop(self) -> None:
        for task in list(self._streams):
            task.cancel()
        if self._runner is not None:
            await self._runner.cleanup()

    # ------------------------------------------------------------------ handlers
    async def _openapi_json(self, request: web.Request) -> web.Response:
        return web.Response(text=self._openapi, content_type="application/json")

    async def _api(self, request: web.Request) -> web.StreamResponse:
        path = request.raw_path.split("?", 1)[0]
        if request.method == "OPTIONS":  # a CORS preflight: _cors adds the headers
            return web.Response(status=204)
        match = find(request.method, path)
        route = match.route
        if route is None:
            if match.allowed:  # the path exists with another verb
                return self._count(
                    "unrouted",
                    _error(
                        grpc.StatusCode.UNIMPLEMENTED,
                        f"{path} takes {', '.join(match.allowed)}, not {request.method}",
                        status=405,
                        Allow=", ".join(match.allowed),
                    ),
                )
            return self._count(
                "unrouted",
                _error(
                    grpc.StatusCode.NOT_FOUND,
                    f"no API route {request.method} {path[:100]}: see /v1/openapi.json",
                ),
            )
        try:
            response = await self._call(request, route, match.path_values)
        except asyncio.CancelledError:  # the client went away (gRPC's CANCELLED)
            metrics.HTTP_RESPONSES.labels(route.template, "499").inc()
            raise
        except Exception:  # never a traceback to the client; it is a bug: log it
            log.exception("HTTP %s %s failed", request.method, route.template)
            response = _error(grpc.StatusCode.INTERNAL, "internal error; it is logged")
        return self._count(route.template, response)

    async def _call(
        self, request: web.Request, route: Route, path_values: dict[str, str]
    ) -> web.StreamResponse:
        message = getattr(pb, route.method.input_type.name)()
        try:
            body = await request.read() if route.body else b""
            bind(route, message, path_values, request.query.items(), body, request.headers)
            call_request: Any = message
        except web.HTTPRequestEntityTooLarge:
            call_request = MalformedRequest("too large", f"the body is over {MAX_BODY} bytes")
        except BadRequest as exc:
            # Still a call: the rate limits and metrics see it as they see a bad gRPC one.
            call_request = MalformedRequest("JSON", str(exc), exc.field)
        peer = peer_of(request.transport.get_extra_info("peername") if request.transport else None)
        metadata = metadata_of(request.headers)
        if route.ndjson:
            return await self._ndjson(request, route, call_request, peer, metadata)
        if route.streaming:
            return await self._stream(request, route, call_request, peer, metadata)
        try:
            reply = await self.dispatcher.call(route.rpc, call_request, peer, metadata)
        except CallFailed as failed:
            return _error(failed.code, failed.message, field=failed.field)
        return web.Response(text=to_json(reply), content_type="application/json")

    async def _stream(self, request, route, call_request, peer, metadata) -> web.StreamResponse:
        """An event stream. The 200 goes out with the first event (or after
        ``open_after`` seconds of nothing to send), so a refusal at the start (unknown
        game, bad token) is a plain HTTP error; a failure later is an ``rpc-error``
        message. A browser that goes away cancels the call, as a gRPC client's hang-up
        does (aiohttp cancels the handler; a failed write does the same)."""
        response = web.StreamResponse(
            headers={
                "Content-Type": "text/event-stream; charset=utf-8",
                "Cache-Control": "no-cache",
                "X-Accel-Buffering": "no",  # nginx: pass events on as they come
            }
        )
        name = sse.event_name(route.method.output_type)
        lock = asyncio.Lock()

        async def send(data: bytes) -> None:
            async with lock:
                if not response.prepared:
                    await response.prepare(request)
                    await response.write(sse.RETRY)
                await response.write(data)

        async def write(message: Message) -> None:
            try:
                await send(sse.frame(name, to_json(message), sse.event_id(message)))
            except ConnectionError:
                raise asyncio.CancelledError from None  # metrics: CANCELLED, as in gRPC

        task = asyncio.current_task()
        assert task is not None
        beats = asyncio.create_task(self._heartbeats(send, task))
        self._streams.add(task)
        try:
            await self.dispatcher.stream(route.rpc, call_request, peer, metadata, write)
            await send(sse.END)
        except CallFailed as failed:
            if not response.prepared:
                return _error(failed.code, failed.message, field=failed.field)
            body = error_body(failed.code, failed.message, failed.field)
            await send(sse.frame(sse.FAILED, json.dumps(body)))
        except ConnectionError:
            pass  # the browser went away while the end was written
        finally:
            beats.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await beats
            self._streams.discard(task)
        return response

    async def _ndjson(self, request, route, call_request, peer, metadata) -> web.StreamResponse:
        """A stream as NDJSON (ExportGames: each message's ``json``, one a line). A
        refusal before the first line is a plain HTTP error; a failure later ends the
        stream early (the lines sent are whole)."""
        response = web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})

        async def write(message: Message) -> None:
            try:
                if not response.prepared:
                    await response.prepare(request)
                await response.write(message.json.encode() + b"\n")
            except ConnectionError:
                raise asyncio.CancelledError from None  # metrics: CANCELLED, as in gRPC

        try:
            await self.dispatcher.stream(route.rpc, call_request, peer, metadata, write)
        except CallFailed as failed:
            if not response.prepared:
                return _error(failed.code, failed.message, field=failed.field)
            log.warning("%s ended early: %s", route.template, failed.message)
        if not response.prepared:
            await response.prepare(request)  # nothing matched: an empty answer
        await response.write_eof()
        return response

    async def _heartbeats(self, send, stream: asyncio.Task) -> None:
        try:
            await asyncio.sleep(self.config.open_after)
            await send(b"")  # answers 200 (and retry:) if no event has yet
            while True:
                await send(sse.HEARTBEAT)
                await asyncio.sleep(self.config.heartbeat)
        except (ConnectionError, RuntimeError):
            stream.cancel()  # the browser is gone: end the call and its subscription

    # ------------------------------------------------------------------ CORS, metrics
    async def _cors(self, request: web.Request, response: web.StreamResponse) -> None:
        origins = self.config.cors_origins
        origin = request.headers.get("Origin")
        if not origins or not origin or not request.path.startswith("/v1/"):
            return
        if "*" not in origins and origin not in origins:
            return
        response.headers["Access-Control-Allow-Origin"] = "*" if "*" in origins else origin
        response.headers["Vary"] = "Origin"
        if request.method == "OPTIONS":
            response.headers["Access-Control-Allow-Methods"] = "GET, POST, DELETE, OPTIONS"
            response.headers["Access-Control-Allow-Headers"] = _CORS_HEADERS
            response.headers["Access-Control-Max-Age"] = "600"

    @staticmethod
    def _count(route: str, response: web.StreamResponse) -> web.StreamResponse:
        metrics.HTTP_RESPONSES.labels(route, str(response.status)).inc()
        return response
