"""Server CPU per call: a bare gRPC echo against gamehost's RPCs on Redis.

    python benchmarks/studies/call_cpu.py [--redis URL] [--seconds S] [--threads N]
                                  [--without-layers] [--plain-pool]
                                  [--stub-submit {empty,ping,raw-ping}]

Starts the echo server and one serving process (as the load test does), drives each
RPC from N closed-loop threads for S seconds, and prints each one's calls a second
and the serving process's CPU time per call (all its threads).
CPU per call is what bounds one process's throughput, whatever the client.

Experiments (they change the server started here, never gamehost itself):
``--without-layers`` serves without the metrics and access interceptors and the
request checks; ``--plain-pool`` gives the store redis-py's non-blocking pool and
hiredis's command packer. ``--stub-submit`` replaces the SubmitAction handler's work
(token check, game step, commit) to find the floor under it: ``empty`` answers at
once; ``ping`` sends one Redis PING through the store's redis-py client first;
``raw-ping`` sends it over one connection of a few lines of asyncio instead, with
concurrent calls' pings pipelined on it (what redis-py's own per-command work costs).
"""

from __future__ import annotations

import argparse
import os
import sys
import urllib.parse
import uuid
from collections.abc import Callable

import grpc
import redis

from gamehost.v1 import gamehost_pb2 as pb
from gamehost.v1 import gamehost_pb2_grpc as pb_grpc
from loadtest.driver import ScriptedGames, start_process, stop, store_secret, throughput
from loadtest.echo import FULL_METHOD
from loadtest.parts import free_port, process_cpu_seconds

WITHOUT_LAYERS = """
import grpc.aio, services.api.status as status
_server = grpc.aio.server
grpc.aio.server = lambda *a, **k: _server(*a, **{**k, "interceptors": None})
status._admit = lambda request: None
"""
PLAIN_POOL = """
import redis.asyncio as aioredis, redis.asyncio.connection as rac
from redis.connection import HiredisRespSerializer
from services.stores.redis_store import RedisStore
_packer = HiredisRespSerializer()
rac.AbstractConnection.pack_command = lambda self, *args: _packer.pack(*args)
def _from_url(cls, url, prefix="gamehost", request_ttl=86400.0):
    pool = aioredis.ConnectionPool.from_url(url, max_connections=100)
    return cls(aioredis.Redis.from_pool(pool), prefix, request_ttl)
RedisStore.from_url = classmethod(_from_url)
"""
STUB_SUBMIT = {
    "empty": "",
    "ping": "    await self.store._redis.ping()\n",
    "raw-ping": "    await _raw_ping()\n",
}
STUB = """
import asyncio, collections, services.play.host as host, services.play.submitting as submitting

class _Pings(asyncio.Protocol):
    # Replies come in the order the pings went out: one FIFO of waiters.
    def __init__(self):
        self.waiting, self.buffer = collections.deque(), b""
    def data_received(self, data):
        *replies, self.buffer = (self.buffer + data).split(b"\\r\\n")
        for _ in replies:
            self.waiting.popleft().set_result(None)

_connection = []

async def _raw_ping():
    loop = asyncio.get_running_loop()
    if not _connection:
        _connection.append(await loop.create_connection(_Pings, {host!r}, {port}))
    transport, pings = _connection[0]
    waiter = loop.create_future()
    pings.waiting.append(waiter)
    transport.write(b"*1\\r\\n$4\\r\\nPING\\r\\n")
    await waiter

async def _stub(self, game_id, token, **_):
{work}    return submitting.Submitted(version=1, action=0, notation="", duplicate=False)

submitting.Submitting.submit_action = _stub
"""


def measure(
    name: str, pid: int, make: Callable[[], Callable[[], object]], threads: int, seconds: float
) -> None:
    """``threads`` closed-loop callers (``make`` builds one each, before the CPU reading:
    their set-up is not counted) for ``seconds``; calls a second and server CPU per call."""
    callers = iter([make() for _ in range(threads)])
    before = process_cpu_seconds(pid)
    rate = throughput(callers.__next__, threads, seconds)
    used = process_cpu_seconds(pid) - before
    print(f"{name:14} {rate:8,.0f}/s   server CPU per call {used / (rate * seconds) * 1e6:6.0f} us")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--redis", default=os.environ.get("GAMEHOST_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
    )
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--without-layers", action="store_true")
    parser.add_argument("--plain-pool", action="store_true")
    parser.add_argument("--stub-submit", choices=sorted(STUB_SUBMIT))
    args = parser.parse_args()

    prefix = f"gamehost-bench-{uuid.uuid4().hex[:8]}"
    patch = (WITHOUT_LAYERS if args.without_layers else "") + (
        PLAIN_POOL if args.plain_pool else ""
    )
    if args.stub_submit:
        where = urllib.parse.urlsplit(args.redis)
        patch += STUB.format(
            host=where.hostname or "127.0.0.1",
            port=where.port or 6379,
            work=STUB_SUBMIT[args.stub_submit],
        )
    port, echo_port = free_port(), free_port()
    serve = [
        sys.executable, "-c",
        patch + "import sys; from gamehost.cli import main; sys.exit(main(sys.argv[1:]))",
        "serve", "--port", str(port), "--redis", args.redis, "--redis-prefix", prefix,
        "--bot-workers", "1", "--rate-limit", "0", "--live-games-per-client", "0",
    ]  # fmt: skip
    procs = [
        start_process(serve, port),
        start_process([sys.executable, "-m", "loadtest.echo", str(echo_port)], echo_port),
    ]
    try:
        server, echo = procs
        secret = store_secret(args.redis, prefix)
        echo_call = grpc.insecure_channel(f"127.0.0.1:{echo_port}").unary_unary(FULL_METHOD)
        stub = pb_grpc.GameHostStub(grpc.insecure_channel(f"127.0.0.1:{port}"))
        game_id = ScriptedGames(f"127.0.0.1:{port}", seed=1, games=1, secret=secret).games[0][0]
        seeds = iter(range(1000, 10**9, 1000))
        t, s = args.threads, args.seconds
        print(f"{t} closed-loop threads per RPC, {s:g} s each")
        measure("echo", echo.pid, lambda: lambda: echo_call(b"x" * 600), t, s)
        measure("ListGameTypes", server.pid,
                lambda: lambda: stub.ListGameTypes(pb.ListGameTypesRequest()), t, s)  # fmt: skip
        measure("GetState", server.pid,
                lambda: lambda: stub.GetState(pb.GetStateRequest(game_id=game_id)), t, s)  # fmt: skip
        measure("SubmitAction", server.pid,
                lambda: ScriptedGames(f"127.0.0.1:{port}", next(seeds), 15, secret).step, t, s)  # fmt: skip
    finally:
        stop(procs)
        client = redis.Redis.from_url(args.redis)
        for key in client.scan_iter(match=f"{prefix}:*", count=500):
            client.delete(key)
        client.close()


if __name__ == "__main__":
    main()
