"""The floor under a ladder move's round trip (docs/ladder.md, "The floor"): the
processes and hops of `gamehost bot run` against a ladder server, with no gamehost
code on the way. What it measures is what this machine and this stack (Python, gRPC,
Redis, a bot program on a pipe) cost a move before gamehost adds anything.

    .venv/bin/python benchmarks/round_trip_floor.py [--bots 50] [--seconds 120]
        [--rate 200] [--busy 0.0] [--burst-ms 0.1-0.6] [--thread-busy 0.0]
        [--runner aio|threads|one-thread]
        [--redis URL] [--rounds 1]

- a server process: a grpc.aio server on uvloop with one bidirectional stream per
  runner, handled as PlayBot is (services/api/play_bot.py): each reply in a task of
  its own, the answers and acts through one queue. It sends each runner an act (a
  line of an act's size), and answers each reply after one Redis script on redis-py's
  asyncio client, as a commit is: the version compared and set, the position written,
  the move's event appended to the game's stream. The runner's next act follows
  after a random wait (the opponent's move), so that all runners together answer
  about ``--rate`` acts a second. ``--busy F`` keeps the server's event loop busy
  about that fraction of the time besides (as a ladder server's other games do), in
  bursts of ``--burst-ms`` (a range: each burst's length drawn evenly from it).
- ``--bots`` runner processes, each with one copy of the example bot
  (examples/bots/random_bot.py) on its stdin and stdout, and one stream to the server.
  ``--runner aio`` (the default), as `gamehost bot run` does it: one uvloop event loop
  reads the stream (grpc.aio), writes each act to the bot, reads its line, and sends
  it. ``--runner threads``, as `bot run` did it before: a synchronous gRPC stream (the
  requests from a queue), the act handed from the stream's reader thread to a copy's
  thread, the bot's line from its reader thread, the answer back from the stream's.
  ``--runner one-thread``: a synchronous stream, one thread doing the rest.

Left out, each of which only adds: the watch that finds the next act, the seat's view,
the matchmaker, ratings and the archive (PostgreSQL), house bots, the Celery worker.

It prints, over all runners, p50/p90/p99 of: the round trip (an act's arrival at the
runner to the answer back, less the bot's own time), the answer (the reply sent to the
answer back) and the server's handler (its Redis script); and CPU in % of one core
(server, runners with their bots, the whole machine of all its cores).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import pathlib
import queue
import random
import struct
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Awaitable, Callable

import grpc
import psutil
import redis.asyncio as aioredis
import uvloop

ROOT = pathlib.Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.answer_paths import _busy, _identity  # noqa: E402
from benchmarks.peer_server import _delete_prefix, cpu_seconds, free_port, quantile  # noqa: E402

BOT = ROOT / "examples" / "bots" / "random_bot.py"
SERVICE = "bench.Floor"
ACT, REPLY, ANSWER = b"A", b"R", b"N"
VERSION = struct.Struct("!I")
SECONDS = struct.Struct("!d")
POSITION = b"p" * 2000  # about what a cite position is in the store

# The commit: compare the version, write the position, append the move's event.
COMMIT = """
local version = tonumber(redis.call('GET', KEYS[1]) or '0')
if version ~= tonumber(ARGV[1]) then return -version - 1 end
redis.call('SET', KEYS[1], version + 1)
redis.call('SET', KEYS[2], ARGV[2])
redis.call('XADD', KEYS[3], 'MAXLEN', '~', '64', '*', 'event', ARGV[3])
return version + 1
"""


def act_line(game_id: str, version: int) -> str:
    """A line of an act's size and shape (the state stands in for a cite view)."""
    state = {"board": "x" * 700, "hand": list(range(12)), "version": version}
    legal = [{"id": i, "notation": f"move {i}"} for i in range(6)]
    message = {"type": "act", "game_id": game_id, "seat": 0, "state": state, "legal": legal}
    return json.dumps({**message, "ms_left": 10_000}, separators=(",", ":"))


def _thread_work(fraction: float) -> None:
    """A thread that runs Python ``fraction`` of the time in stretches of 1-6 ms, between
    waits with the GIL let go: as a replica's PostgreSQL work (SQLAlchemy) does."""
    while True:
        work = random.uniform(1.0, 6.0)
        _busy(work)
        time.sleep(work * (1 - fraction) / fraction / 1000)


async def _background(fraction: float, burst_ms: tuple[float, float]) -> None:
    """Four tasks that hold the loop ``fraction`` of the time in bursts of ``burst_ms``."""

    async def one() -> None:
        while True:
            work = random.uniform(*burst_ms)
            _busy(work)
            await asyncio.sleep(work * 4 * (1 - fraction) / fraction / 1000)

    await asyncio.gather(*(one() for _ in range(4)))


class Floor:
    def __init__(self, store: aioredis.Redis, prefix: str, gap: float) -> None:
        self.commit = store.register_script(COMMIT)
        self.prefix = prefix
        self.gap = gap  # mean seconds between an answer and the runner's next act

    async def play(self, requests, context):
        loop = asyncio.get_running_loop()
        game = uuid.uuid4().hex[:12]
        keys = [f"{self.prefix}:{game}:{k}" for k in ("version", "position", "events")]
        out: asyncio.Queue[bytes] = asyncio.Queue()
        answering: set[asyncio.Task] = set()

        def send_act(version: int) -> None:
            out.put_nowait(ACT + VERSION.pack(version) + act_line(game, version).encode())

        async def answer(version: int, line: bytes) -> None:
            started = time.perf_counter()
            written = await self.commit(keys=keys, args=[version, POSITION, line])
            took = time.perf_counter() - started
            out.put_nowait(ANSWER + VERSION.pack(max(0, written)) + SECONDS.pack(took))
            loop.call_later(random.expovariate(1 / self.gap), send_act, max(0, written))

        async def read() -> None:
            async for request in requests:
                (version,) = VERSION.unpack_from(request, 1)
                task = asyncio.create_task(answer(version, request[1 + VERSION.size :]))
                answering.add(task)
                task.add_done_callback(answering.discard)

        reader = asyncio.create_task(read())
        loop.call_later(random.uniform(0, self.gap), send_act, 0)
        try:
            while True:
                yield await out.get()
        finally:
            reader.cancel()
            for task in answering:
                task.cancel()


FRAME = struct.Struct("!I")


async def _read_frame(reader: asyncio.StreamReader) -> bytes:
    (size,) = FRAME.unpack(await reader.readexactly(FRAME.size))
    return await reader.readexactly(size)


def _write_frame(writer: asyncio.StreamWriter, message: bytes) -> None:
    writer.write(FRAME.pack(len(message)) + message)


async def _tcp_frames(reader: asyncio.StreamReader):
    try:
        while True:
            yield await _read_frame(reader)
    except asyncio.IncompleteReadError:
        return


async def _listen_grpc(floor: Floor, port: int) -> Callable[[], Awaitable[object]]:
    """The floor's handler on a grpc.aio server; what waits for its end."""
    server = grpc.aio.server()
    handler = grpc.stream_stream_rpc_method_handler(floor.play, _identity, _identity)
    generic = grpc.method_handlers_generic_handler(SERVICE, {"Play": handler})
    server.add_generic_rpc_handlers((generic,))
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    return server.wait_for_termination


async def _listen_tcp(floor: Floor, port: int) -> Callable[[], Awaitable[object]]:
    """The same handler behind a plain TCP socket, each message a length-prefixed frame:
    the floor without gRPC."""

    async def connected(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            async for message in floor.play(_tcp_frames(reader), None):
                _write_frame(writer, message)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(connected, "127.0.0.1", port)
    return server.serve_forever


async def _serve(
    transport: str,
    port: int,
    url: str,
    prefix: str,
    gap: float,
    busy: float,
    burst_ms: tuple[float, float],
    threaded: float,
    ready,
) -> None:
    store = aioredis.Redis.from_url(url)
    floor = Floor(store, prefix, gap)
    until_stopped = await (_listen_tcp if transport == "tcp" else _listen_grpc)(floor, port)
    background = asyncio.ensure_future(_background(busy, burst_ms)) if busy > 0 else None
    if threaded > 0:
        threading.Thread(target=_thread_work, args=(threaded,), daemon=True).start()
    ready.set()
    try:
        await until_stopped()
    finally:
        if background is not None:
            background.cancel()
        await store.aclose()


def _server(*args) -> None:
    uvloop.install()
    asyncio.run(_serve(*args))


def _bot() -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(BOT)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        bufsize=1,
    )


def _stream(channel: grpc.Channel, requests: queue.SimpleQueue):
    """The runner's one call: its requests from ``requests`` (None ends them)."""
    play = channel.stream_stream(f"/{SERVICE}/Play", _identity, _identity)
    return play(iter(requests.get, None))


def _move(
    arrived: float, written: float, returned: float, now: float, answer: bytes
) -> tuple[float, float, float]:
    """A move's figures in ms: the round trip less the bot's own time (``written`` to
    ``returned``), the answer (its line sent to the answer back), the server's handler."""
    (handled,) = SECONDS.unpack_from(answer, 1 + VERSION.size)
    bot = returned - written
    return (now - arrived - bot) * 1000, (now - returned) * 1000, handled * 1000


def _runner(port: int, seconds: float, results) -> None:
    """One runner and its bot, one thread: (round trip, answer, handler) in ms per move."""
    bot = _bot()
    assert bot.stdin is not None and bot.stdout is not None
    moves: list[tuple[float, float, float]] = []
    requests: queue.SimpleQueue = queue.SimpleQueue()
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        call = _stream(channel, requests)
        end = time.monotonic() + seconds
        arrived = written = returned = 0.0
        for message in call:
            now = time.perf_counter()
            if message[:1] == ACT:
                if time.monotonic() >= end:
                    break
                arrived = now
                version = message[1 : 1 + VERSION.size]
                written = time.perf_counter()
                bot.stdin.write(message[1 + VERSION.size :].decode() + "\n")
                bot.stdin.flush()
                line = bot.stdout.readline()
                returned = time.perf_counter()
                requests.put(REPLY + version + line.strip().encode())
            elif message[:1] == ANSWER:
                moves.append(_move(arrived, written, returned, now, message))
        requests.put(None)
        call.cancel()
    bot.stdin.close()
    bot.wait(10)
    results.put(moves)


def _threaded_runner(port: int, seconds: float, results) -> None:
    """As `bot run` handed a move around before it ran on asyncio: the stream's reader
    thread queues each act for the copy's thread, which writes it to
    the bot, takes its line from the bot's reader thread, sends it, and waits for the
    stream's reader to hand the answer back."""
    bot = _bot()
    assert bot.stdin is not None and bot.stdout is not None
    lines: queue.Queue[str] = queue.Queue()
    inbox: queue.Queue[tuple[bytes, float] | None] = queue.Queue()
    answered = threading.Event()
    answer = [b""]
    moves: list[tuple[float, float, float]] = []
    requests: queue.SimpleQueue = queue.SimpleQueue()

    def read_bot() -> None:
        for line in bot.stdout:
            lines.put(line)

    def copy() -> None:
        while (item := inbox.get()) is not None:
            message, arrived = item
            written = time.perf_counter()
            bot.stdin.write(message[1 + VERSION.size :].decode() + "\n")
            bot.stdin.flush()
            line = lines.get(timeout=10)
            returned = time.perf_counter()
            answered.clear()
            requests.put(REPLY + message[1 : 1 + VERSION.size] + line.strip().encode())
            answered.wait(10)
            moves.append(_move(arrived, written, returned, time.perf_counter(), answer[0]))

    threading.Thread(target=read_bot, daemon=True).start()
    copying = threading.Thread(target=copy)
    copying.start()
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        call = _stream(channel, requests)
        end = time.monotonic() + seconds
        for message in call:
            if message[:1] == ACT:
                if time.monotonic() >= end:
                    break
                inbox.put((message, time.perf_counter()))
            elif message[:1] == ANSWER:
                answer[0] = message
                answered.set()
        requests.put(None)
        call.cancel()
    inbox.put(None)
    copying.join()
    bot.stdin.close()
    bot.wait(10)
    results.put(moves)


async def _aio_moves(
    read: Callable[[], Awaitable[bytes | None]],
    write: Callable[[bytes], Awaitable[None]],
    seconds: float,
) -> list[tuple[float, float, float]]:
    """One event loop does all of it, as `bot run` (gamehost/runner.py): the messages
    by ``read`` (None: the stream's end) and ``write``, the bot's pipes on the loop
    (the bot started by subprocess, as there)."""
    bot = subprocess.Popen(
        [sys.executable, str(BOT)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert bot.stdin is not None and bot.stdout is not None
    loop = asyncio.get_running_loop()
    output = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(output), bot.stdout)
    stdin, _ = await loop.connect_write_pipe(asyncio.Protocol, bot.stdin)
    moves: list[tuple[float, float, float]] = []
    end = time.monotonic() + seconds
    arrived = written = returned = 0.0
    while (message := await read()) is not None:
        now = time.perf_counter()
        if message[:1] == ACT:
            if time.monotonic() >= end:
                break
            arrived = now
            version = message[1 : 1 + VERSION.size]
            written = time.perf_counter()
            stdin.write(message[1 + VERSION.size :] + b"\n")
            line = await output.readline()
            returned = time.perf_counter()
            await write(REPLY + version + line.strip())
        elif message[:1] == ANSWER:
            moves.append(_move(arrived, written, returned, now, message))
    stdin.close()
    await asyncio.to_thread(bot.wait, 10)
    return moves


async def _aio_runner_main(port: int, seconds: float) -> list[tuple[float, float, float]]:
    """The stream on grpc.aio."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        call = channel.stream_stream(f"/{SERVICE}/Play", _identity, _identity)()

        async def read() -> bytes | None:
            message = await call.read()
            return None if message is grpc.aio.EOF else message

        moves = await _aio_moves(read, call.write, seconds)
        call.cancel()
    return moves


def _aio_runner(port: int, seconds: float, results) -> None:
    """One runner and its bot on one uvloop event loop (grpc.aio)."""
    uvloop.install()
    results.put(asyncio.run(_aio_runner_main(port, seconds)))


async def _tcp_runner_main(port: int, seconds: float) -> list[tuple[float, float, float]]:
    """The stream a plain TCP socket of length-prefixed frames."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)

    async def write(message: bytes) -> None:
        _write_frame(writer, message)

    moves = await _aio_moves(lambda: _read_frame(reader), write, seconds)
    writer.close()
    return moves


def _tcp_runner(port: int, seconds: float, results) -> None:
    """One runner and its bot on one uvloop event loop, a plain TCP socket to the server."""
    uvloop.install()
    results.put(asyncio.run(_tcp_runner_main(port, seconds)))


RUNNERS = {"aio": _aio_runner, "threads": _threaded_runner, "one-thread": _runner}
TCP_RUNNERS = {"aio": _tcp_runner}


def _percentiles(values: list[float]) -> str:
    ordered = sorted(values)
    p50, p90, p99 = (quantile(ordered, q) for q in (0.5, 0.9, 0.99))
    return f"p50 {p50:.2f} ms, p90 {p90:.2f} ms, p99 {p99:.2f} ms"


def _children_cpu() -> float:
    """CPU seconds of this process's children that have ended, and of theirs."""
    times = os.times()
    return times.children_user + times.children_system


def _burst_range(text: str) -> tuple[float, float]:
    low, _, high = text.partition("-")
    try:
        burst = (float(low), float(high or low))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: LOW-HIGH in ms, e.g. 0.1-0.6") from None
    if not 0 < burst[0] <= burst[1]:
        raise argparse.ArgumentTypeError(f"{text!r}: 0 < LOW <= HIGH")
    return burst


def _machine_busy() -> float:
    """CPU seconds the machine has been busy, all its cores together."""
    times = psutil.cpu_times()
    return sum(times) - times.idle - getattr(times, "iowait", 0.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument(
        "--rate",
        type=float,
        default=200.0,
        help="acts a second, all runners (200: ladder_load.py --bots 50's pace)",
    )
    parser.add_argument("--busy", type=float, default=0.0, help="the server loop's other work")
    parser.add_argument(
        "--burst-ms",
        type=_burst_range,
        default=(0.1, 0.6),
        help="LOW-HIGH: how long each of --busy's bursts holds the loop (default 0.1-0.6)",
    )
    parser.add_argument(
        "--thread-busy", type=float, default=0.0, help="a thread's Python work besides"
    )
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument(
        "--runner",
        choices=sorted(RUNNERS),
        default="aio",
        help="aio: one event loop does a runner's work, as `gamehost bot run`'s; threads: "
        "threads hand each move on, as `bot run`'s did; one-thread: a synchronous stream "
        "and one thread",
    )
    parser.add_argument(
        "--transport",
        choices=("grpc", "tcp"),
        default="grpc",
        help="grpc: one bidirectional stream per runner, as PlayBot; tcp: a plain socket "
        "of length-prefixed frames (only with --runner aio)",
    )
    args = parser.parse_args()
    if not 0 <= args.busy < 1:
        parser.error("--busy is a fraction: 0 or more, under 1")
    if args.transport == "tcp" and args.runner != "aio":
        parser.error("--transport tcp runs with --runner aio only")
    runner_of = (TCP_RUNNERS if args.transport == "tcp" else RUNNERS)[args.runner]
    port = free_port()
    prefix = f"floor-{uuid.uuid4().hex[:8]}"
    gap = args.bots / args.rate
    ready = multiprocessing.Event()
    server = multiprocessing.Process(
        target=_server,
        args=(
            args.transport,
            port,
            args.redis,
            prefix,
            gap,
            args.busy,
            args.burst_ms,
            args.thread_busy,
            ready,
        ),
        daemon=True,
    )
    server.start()
    ready.wait(30)
    try:
        for _ in range(args.rounds):
            results: multiprocessing.Queue = multiprocessing.Queue()
            runners = [
                multiprocessing.Process(target=runner_of, args=(port, args.seconds, results))
                for _ in range(args.bots)
            ]
            for runner in runners:
                runner.start()
            server_cpu, machine = cpu_seconds(server.pid), _machine_busy()
            children = _children_cpu()
            started = time.monotonic()
            moves = [m for _ in runners for m in results.get()]
            elapsed = time.monotonic() - started
            for runner in runners:
                runner.join()
            busy_machine = _machine_busy() - machine
            # The runners (waited for by now) with their bots (waited for by them).
            ours = _children_cpu() - children
            print(
                f"{len(moves)} moves in {elapsed:.0f} s ({len(moves) / elapsed:.0f} a second), "
                f"{args.bots} runners ({args.runner}, {args.transport}), server loop busy besides: {args.busy:g} "
                f"in bursts of {args.burst_ms[0]:g}-{args.burst_ms[1]:g} ms, "
                f"a thread besides: {args.thread_busy:g}",
                flush=True,
            )
            for name, column in (("round trip", 0), ("answer", 1), ("server handler", 2)):
                print(f"  {name:15s} {_percentiles([m[column] for m in moves])}", flush=True)
            server_now = cpu_seconds(server.pid)
            print(
                f"  CPU, % of one core: server {100 * (server_now - server_cpu) / elapsed:.0f}, "
                f"runners and bots {100 * ours / elapsed:.0f}, "
                f"machine {100 * busy_machine / elapsed:.0f} (of {100 * os.cpu_count():.0f})",
                flush=True,
            )
    finally:
        server.terminate()
        server.join(10)
        _delete_prefix(args.redis, prefix)


if __name__ == "__main__":
    main()
