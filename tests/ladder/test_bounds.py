"""Bounds of a runner's connection on the server (docs/bot-protocol.md): a client that
connects a bot, never reads its stream and floods BotReply leaves the server's memory
where it was, and other bots are still served meanwhile; a connection whose client
takes no directive for ``Sessions.STALL_SECONDS`` is closed."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from gamehost import Client
from gamehost.v1 import gamehost_pb2 as pb
from gamehost.v1 import gamehost_pb2_grpc as pb_grpc
from services.ladder.sessions import Sessions
from tests.fixtures.metrics import scrape
from tests.ladder.conftest import ladder_server
from tests.procs import Replica, free_port

D = pb.BotDirective
REPLIES = 200_000
WARM_UP = 5_000  # replies before the baseline: gRPC's and the allocator's own caches
IN_FLIGHT = 8  # concurrent calls on the flooder's one connection
GROWTH_MB = 50


def _rss_mb(pid: int) -> float:
    """The process's resident memory (VmRSS), in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmRSS for process {pid}")


async def _flood(target: str, body: Path, count: int) -> None:
    """``count`` BotReply calls on one HTTP/2 connection, IN_FLIGHT at a time, sent by
    h2load (nghttp2's load generator, in C): the flood costs the server what a hostile
    client costs it, while a Python gRPC client spent as much CPU again as the server."""
    h2load = shutil.which("h2load")
    assert h2load, "this test needs h2load on PATH (Debian's nghttp2-client)"
    sent = await asyncio.create_subprocess_exec(
        h2load,
        *("-n", str(count), "-c", "1", "-m", str(IN_FLIGHT), "-d", str(body)),
        *("-H", "content-type: application/grpc", "-H", "te: trailers"),
        f"http://{target}/gamehost.v1.GameHost/BotReply",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    out = (await sent.communicate())[0].decode(errors="replace")
    # Each call is answered (its gRPC status in the trailers, counted by the server).
    assert sent.returncode == 0 and f"{count} succeeded, 0 failed" in out, out[-2000:]


def _answered(metrics_port: int) -> dict[str, float]:
    """The server's BotReply calls by the status it answered (grpc_server_handled_total)."""
    codes: dict[str, float] = {}
    for family in text_string_to_metric_families(scrape(metrics_port)):
        for sample in family.samples:
            if (
                sample.name == "grpc_server_handled_total"
                and sample.labels.get("grpc_method") == "BotReply"
            ):
                codes[sample.labels["grpc_code"]] = sample.value
    return codes


async def _served(stub: pb_grpc.GameHostStub, key: str) -> pb.BotDirective:
    """A second bot's connection: its first act (its validation game's)."""
    call = stub.ConnectBot(pb.ConnectBotRequest(key=key, concurrency=1, protocol=1))
    try:
        async for directive in call:
            if directive.kind == D.ACT:
                return directive
        raise AssertionError("the second bot's stream ended before its first act")
    finally:
        call.cancel()


@pytest.mark.slow
def test_a_client_that_never_reads_its_stream_leaves_the_servers_memory_bounded(
    sqlite_url, tmp_path
):
    upgrade = subprocess.run(
        [sys.executable, "-m", "gamehost.cli", "db", "upgrade", "--archive", sqlite_url],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert upgrade.returncode == 0, upgrade.stderr
    flags = ["--archive", sqlite_url, "--bot-workers", "1", "--ladder", "cite:2"]
    # Every client here is one address: no per-client request limit, so the other bot
    # is not refused for the flooder's calls.
    flags += ["--ladder-house", "random,greedy", "--rate-limit", "0"]
    # No sets among house levels alone: the second bot's validation game still has
    # them, and the flood is the server's only load (those sets keep a core 15% busy).
    flags += ["--ladder-house-tables", "0"]
    metrics_port = free_port()
    flags += ["--metrics-port", str(metrics_port)]
    server = Replica(tmp_path / "server.log", flags).start()
    try:
        server.wait_serving()
        with Client(server.target) as client:
            flooder = client.register_bot("flooder", "cite", 2).key
            other = client.register_bot("other", "cite", 2).key
        # An answer to an act that does not exist, as one gRPC frame (uncompressed).
        reply = pb.BotReplyRequest(key=flooder, game_id="0" * 32, version=1, line='{"id": 0}')
        body = tmp_path / "reply.grpc"
        payload = reply.SerializeToString()
        body.write_bytes(b"\0" + struct.pack(">I", len(payload)) + payload)
        asyncio.run(_run(server, flooder, other, body))
        codes = _answered(metrics_port)
    finally:
        server.kill_group()
    assert sum(codes.values()) == WARM_UP + REPLIES, codes
    assert not {"UNKNOWN", "INTERNAL"} & codes.keys(), codes


async def _run(server: Replica, flooder: str, other: str, body: Path) -> None:
    async with grpc.aio.insecure_channel(server.target) as channel:
        stub = pb_grpc.GameHostStub(channel)
        # Connected, and never read: its directives wait on the server.
        unread = stub.ConnectBot(pb.ConnectBotRequest(key=flooder, concurrency=1, protocol=1))
        await unread.initial_metadata()
        await _flood(server.target, body, WARM_UP)
        before = _rss_mb(server.pid)
        flood = asyncio.create_task(_flood(server.target, body, REPLIES))
        # Meanwhile another bot connects and is sent its act, and the ladder answers.
        async with asyncio.timeout(300):
            act = await _served(stub, other)
            ladder = await stub.GetLadder(pb.GetLadderRequest(game_type="cite", players=2))
        assert act.version > 0 and "random" in ladder.house
        await flood
        after = _rss_mb(server.pid)
        unread.cancel()
    assert server.alive(), server.output()[-4000:]
    assert after - before <= GROWTH_MB, (before, after)


def test_a_connection_whose_client_takes_no_directive_is_closed(sqlite_url, monkeypatch):
    monkeypatch.setattr(Sessions, "STALL_SECONDS", 0.5)
    stalled = "gamehost_ladder_stalled_connections_total"
    with ladder_server(sqlite_url) as server, Client(server.target) as client:
        key = client.register_bot("stalled", "cite", 2).key
        sessions = server.running.sessions
        before = REGISTRY.get_sample_value(stalled)

        async def transport() -> None:
            """A call's transport that takes the welcome and the game's start, and then
            never completes a send (as a client that does not read)."""
            directives = sessions.connect(key, 1)
            try:
                assert (await anext(directives)).kind == "welcome"
                assert (await anext(directives)).kind == "start"
                await asyncio.Event().wait()
            finally:
                await directives.aclose()

        async def closed() -> bool:
            task = asyncio.create_task(transport())
            with contextlib.suppress(asyncio.CancelledError):
                async with asyncio.timeout(60):
                    await task
            return task.cancelled()

        assert server.call(closed(), timeout=90)
        assert before is not None and REGISTRY.get_sample_value(stalled) == before + 1
        # The bot connects again as after any break.
        assert next(iter(client.connect_bot(key))).kind == D.WELCOME
