"""The bot socket (``serve --bot-port``): PlayBot's messages on a plain TCP connection
(TLS when the server has a certificate), for `gamehost bot run` and any runner that
can frame protobuf (docs/bot-socket.md).

Each message is a frame: its length as 4 bytes (big-endian), then the serialized
message. The runner sends PlayBotRequests (``connect`` first, then ``reply``s), the
server PlayBotResponses, the last of them ``end`` with the status a PlayBot call would
have ended with. The call runs in-process through the gRPC server's own handler and
interceptors (``calls.Dispatcher``, as the HTTP gateway's: the same rules, rate limits
and metrics).

Why: on this path a message costs the server's event loop one socket read and one
write, where grpc.aio takes several turns of the loop and its poller thread, and on a
2-core machine that was most of an answer's round trip beyond the bot's own time
(`benchmarks/round_trip_floor.py --transport`: docs/ladder.md, "An answer's way").
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
import struct
from collections.abc import AsyncIterator

import grpc
from google.protobuf.message import DecodeError

from gamehost.v1 import gamehost_pb2 as pb
from services.errors import InvalidArgument
from services.gateway.calls import CallFailed, Dispatcher, peer_of

FRAME = struct.Struct("!I")  # a frame's length, before its bytes
# A request is a key and an answer line of at most 1024 characters: a bigger frame is
# no runner's (refused INVALID_ARGUMENT before it is read).
MAX_REQUEST_BYTES = 64 * 1024
STOPPING = "the server is stopping: connect again"


def frame(message: bytes) -> bytes:
    return FRAME.pack(len(message)) + message


def end_frame(code: grpc.StatusCode, message: str) -> bytes:
    end = pb.PlayBotResponse(end=pb.PlayBotEnd(code=code.value[0], message=message))
    return frame(end.SerializeToString())


class _Gone(Exception):
    """The runner closed the connection (or it broke)."""


async def _read_request(reader: asyncio.StreamReader) -> pb.PlayBotRequest:
    try:
        head = await reader.readexactly(FRAME.size)
    except (asyncio.IncompleteReadError, ConnectionError) as exc:
        raise _Gone() from exc
    (size,) = FRAME.unpack(head)
    if size > MAX_REQUEST_BYTES:
        raise InvalidArgument(
            f"a bot socket frame of {size} bytes: a PlayBotRequest is at most "
            f"{MAX_REQUEST_BYTES} (is each frame's length 4 bytes, big-endian?)"
        )
    try:
        body = await reader.readexactly(size)
    except (asyncio.IncompleteReadError, ConnectionError) as exc:
        raise _Gone() from exc
    try:
        return pb.PlayBotRequest.FromString(body)
    except DecodeError:
        raise InvalidArgument(
            f"a bot socket frame of {size} bytes is not a serialized PlayBotRequest"
        ) from None


class BotSocket:
    def __init__(self, dispatcher: Dispatcher, tls: ssl.SSLContext | None = None) -> None:
        self._dispatcher = dispatcher
        self._tls = tls
        self._server: asyncio.Server | None = None
        self._connections: set[asyncio.Task] = set()
        self._stopping = False

    async def start(self, host: str, port: int) -> int:
        """Listen on ``host:port`` (0: a free port); the port it listens on."""
        # reuse_port: the processes of `serve --processes N` share it, as gRPC's port.
        self._server = await asyncio.start_server(
            self._serve, host, port, ssl=self._tls, reuse_port=True
        )
        return self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        """Stop listening and end every connection with UNAVAILABLE (connect again)."""
        self._stopping = True
        if self._server is not None:
            self._server.close()
        for task in list(self._connections):
            task.cancel()
        await asyncio.gather(*self._connections, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        gone = False

        async def requests() -> AsyncIterator[pb.PlayBotRequest]:
            nonlocal gone
            while True:
                try:
                    request = await _read_request(reader)
                except _Gone:
                    # As gRPC cancels a call whose client went away: its games' feed ends
                    # (their clocks play on; the bot connects again).
                    gone = True
                    if asyncio.current_task() is not task:  # else its call ends anyway
                        task.cancel()
                    return
                yield request

        async def write(message: pb.PlayBotResponse) -> None:
            if writer.is_closing():
                raise ConnectionResetError("the runner closed the connection")
            writer.write(frame(message.SerializeToString()))
            await writer.drain()  # at once unless the runner is not reading

        peer = peer_of(writer.get_extra_info("peername"))
        end: bytes | None = end_frame(grpc.StatusCode.OK, "")
        try:
            await self._dispatcher.duplex("PlayBot", requests(), peer, (), write)
        except CallFailed as exc:
            end = end_frame(exc.code, exc.message)
        except asyncio.CancelledError:
            if not (gone or self._stopping):
                raise
            end = None if gone else end_frame(grpc.StatusCode.UNAVAILABLE, STOPPING)
        except ConnectionError:
            end = None
        finally:
            self._connections.discard(task)
        if end is not None and not writer.is_closing():
            with contextlib.suppress(ConnectionError):
                writer.write(end)
                await writer.drain()
        writer.close()
        with contextlib.suppress(ConnectionError, ssl.SSLError):
            await writer.wait_closed()
