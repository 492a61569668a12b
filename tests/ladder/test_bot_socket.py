"""The bot socket (``serve --bot-port``, services/gateway/bot_socket.py) on a real ladder
server, spoken to byte by byte as a runner in another language would: length-prefixed
PlayBot messages; bad input ends the connection with a status a developer can act on,
as the gRPC call would; GetLadder says the port; a stopping server ends connections
UNAVAILABLE (connect again)."""

from __future__ import annotations

import asyncio
import json
import re
import socket
import struct
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from gamehost import Client
from gamehost.v1 import gamehost_pb2 as pb
from services.server import ServerConfig, ServerThread
from tests.certificates import self_signed
from tests.ladder.conftest import ladder_server

ROOT = Path(__file__).resolve().parents[2]
FRAME = struct.Struct("!I")
WAIT = 60.0  # seconds: only a broken server takes this long


@pytest.fixture
def served(sqlite_url) -> Iterator[tuple[ServerThread, Client]]:
    with ladder_server(sqlite_url, bot_port=0) as server, Client(server.target) as client:
        yield server, client


def _connect(server: ServerThread) -> socket.socket:
    assert server.running is not None and server.running.bot_port
    connection = socket.create_connection(("127.0.0.1", server.running.bot_port), WAIT)
    connection.settimeout(WAIT)
    return connection


def _send(connection: socket.socket, request: pb.PlayBotRequest) -> None:
    body = request.SerializeToString()
    connection.sendall(FRAME.pack(len(body)) + body)


def _read_exactly(connection: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        piece = connection.recv(size - len(data))
        if not piece:
            raise EOFError(f"the server closed the connection after {len(data)} of {size} bytes")
        data += piece
    return data


def _read(connection: socket.socket) -> pb.PlayBotResponse:
    (size,) = FRAME.unpack(_read_exactly(connection, FRAME.size))
    return pb.PlayBotResponse.FromString(_read_exactly(connection, size))


def _end(connection: socket.socket) -> pb.PlayBotEnd:
    """The connection's last message (messages before it skipped), then its close."""
    while True:
        message = _read(connection)
        if message.WhichOneof("message") == "end":
            assert connection.recv(1) == b"", "nothing after the end"
            return message.end


def _code(end: pb.PlayBotEnd) -> str:
    return next(c.name for c in grpc.StatusCode if c.value[0] == end.code)


def test_get_ladder_says_the_bot_port(served):
    server, client = served
    assert client.ladder("cite", 2).bot_port == server.running.bot_port > 0


def test_a_server_without_a_socket_says_port_0(sqlite_url):
    with ladder_server(sqlite_url) as server, Client(server.target) as client:
        assert server.running.bot_socket is None
        assert client.ladder("cite", 2).bot_port == 0


def test_a_socket_without_a_ladder_is_refused_at_start():
    thread = ServerThread(ServerConfig(port=0, bot_port=0))
    with pytest.raises(ValueError, match="--bot-port serves the ladder's bots"), thread:
        pass


def test_a_registered_bot_is_welcomed_and_its_answers_are_matched(served):
    server, client = served
    key = client.register_bot("sock", "cite", 2).key
    with _connect(server) as connection:
        _send(connection, pb.PlayBotRequest(connect=pb.ConnectBotRequest(key=key, protocol=1)))
        welcome = _read(connection).directive
        assert (welcome.kind, welcome.bot) == (pb.BotDirective.WELCOME, "sock")
        # A reply for a game it does not play: refused in its answer; the stream goes on.
        reply = pb.BotReplyRequest(game_id="no-such-game", version=1, line='{"id": 0}')
        _send(connection, pb.PlayBotRequest(reply=reply))
        while (message := _read(connection)).WhichOneof("message") != "answer":
            pass
        answer = message.answer
        assert (answer.game_id, answer.version) == ("no-such-game", 1)
        assert answer.code != 0 and answer.message, answer
        _send(connection, pb.PlayBotRequest(reply=reply))  # still open: answered again
        while (message := _read(connection)).WhichOneof("message") != "answer":
            pass
        assert message.answer.game_id == "no-such-game"


def test_a_wrong_key_ends_the_connection_unauthenticated(served):
    server, _ = served
    with _connect(server) as connection:
        _send(connection, pb.PlayBotRequest(connect=pb.ConnectBotRequest(key="ghb_wrong")))
        end = _end(connection)
    assert _code(end) == "UNAUTHENTICATED" and "key" in end.message, end


def test_a_reply_before_connect_is_invalid_argument(served):
    server, _ = served
    with _connect(server) as connection:
        _send(connection, pb.PlayBotRequest(reply=pb.BotReplyRequest(game_id="g", version=1)))
        end = _end(connection)
    assert _code(end) == "INVALID_ARGUMENT" and "must be `connect`" in end.message, end


def test_bytes_that_are_no_request_are_invalid_argument(served):
    server, _ = served
    with _connect(server) as connection:
        connection.sendall(FRAME.pack(4) + b"\xff\xff\xff\xff")
        end = _end(connection)
    assert _code(end) == "INVALID_ARGUMENT" and "not a serialized PlayBotRequest" in end.message


def test_a_frame_too_big_for_a_request_is_refused_unread(served):
    server, _ = served
    with _connect(server) as connection:
        # A line of text where the length should be: "GET " read as 1,195,725,856 bytes.
        connection.sendall(b"GET / HTTP/1.1\r\n\r\n")
        end = _end(connection)
    assert _code(end) == "INVALID_ARGUMENT", end
    assert "1195725856 bytes" in end.message and "4 bytes, big-endian" in end.message


def test_a_stopping_server_ends_its_connections_unavailable(sqlite_url):
    server = ladder_server(sqlite_url, bot_port=0)
    with server, Client(server.target) as client:
        key = client.register_bot("leaving", "cite", 2).key
        connection = _connect(server)
        _send(connection, pb.PlayBotRequest(connect=pb.ConnectBotRequest(key=key, protocol=1)))
        assert _read(connection).directive.kind == pb.BotDirective.WELCOME
    with connection:  # the server has stopped (the ServerThread's exit)
        end = _end(connection)
    assert _code(end) == "UNAVAILABLE" and "connect again" in end.message, end


def test_the_docs_runner_plays_a_game_on_the_socket(served, tmp_path):
    """docs/bot-socket.md's runner, as written there but for the port and key."""
    server, client = served
    doc = (ROOT / "docs" / "bot-socket.md").read_text()
    (block,) = re.findall(r"^```python\n(.*?)^```", doc, re.MULTILINE | re.DOTALL)
    key = client.register_bot("doc-runner", "cite", 2).key
    script = block.replace("50053", str(server.running.bot_port)).replace("ghb_...", key)
    (tmp_path / "runner.py").write_text(script)
    done = subprocess.run(
        [sys.executable, str(tmp_path / "runner.py")],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    end = json.loads(done.stdout.strip().splitlines()[-1])
    assert end["type"] == "end" and len(end["returns"]) == 2, end
    game = client.state(end["game_id"])  # its validation game, over
    assert game.status == pb.FINISHED and "doc-runner" in [s.name for s in game.seats], game


@pytest.fixture(scope="module")
def certificate(tmp_path_factory) -> tuple[str, str]:
    return self_signed(tmp_path_factory.mktemp("tls"))


def test_with_a_certificate_the_socket_is_tls_and_the_client_trusts_it(sqlite_url, certificate):
    cert, key_file = certificate
    server = ladder_server(sqlite_url, bot_port=0, tls_cert=cert, tls_key=key_file)
    with server, Client(server.target, tls=True, ca_file=cert) as client:
        key = client.register_bot("secure", "cite", 2).key
        port = client.ladder("cite", 2).bot_port

        async def welcome() -> pb.BotDirective:
            link = client.aio_bot_socket(port, key)
            try:
                return await anext(link.directives())
            finally:
                link.close()

        first = asyncio.run(asyncio.wait_for(welcome(), WAIT))
        assert (first.kind, first.bot) == (pb.BotDirective.WELCOME, "secure")
        # Plain frames get no frame back: a TLS alert (record type 21) or a closed socket.
        with _connect(server) as plain:
            _send(plain, pb.PlayBotRequest(connect=pb.ConnectBotRequest(key=key)))
            reply = plain.recv(64)
        assert reply == b"" or reply[:1] == b"\x15", reply
