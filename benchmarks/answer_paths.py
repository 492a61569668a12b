"""An answer as a call of its own (unary, as BotReply) or as a message on an open
bidirectional stream (as PlayBot), against one grpc.aio server on uvloop whose event
loop is kept partly busy, as a ladder server's is by its other games (docs/ladder.md,
"Under load"). No gamehost code: the bare cost of the two paths.

    .venv/bin/python benchmarks/answer_paths.py [--clients 8] [--seconds 30] [--rounds 2]

The server's handler spends 1.2 ms of CPU with one await in between (a move's commit);
four background tasks keep the loop about a third busy. Each client process sends one
request at a time, 20-60 ms apart, in the two ways, alternated ``--rounds`` times. It
prints, per way, the time from the client's send to its answer less the handler's own
time (what the path costs), p50/p90/p99.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import queue
import random
import socket
import struct
import time

import grpc
import uvloop

SERVICE = "bench.Answers"
HANDLER_MS = (0.8, 0.4)  # CPU before and after the handler's one await


def _identity(data: bytes) -> bytes:
    return data


def _busy(ms: float) -> None:
    end = time.perf_counter() + ms / 1000
    while time.perf_counter() < end:
        pass


async def _handle() -> bytes:
    started = time.perf_counter()
    _busy(HANDLER_MS[0])
    await asyncio.sleep(0)
    _busy(HANDLER_MS[1])
    return struct.pack("d", time.perf_counter() - started)


async def _unary(request: bytes, context) -> bytes:
    return await _handle()


async def _stream(requests, context):
    async for _ in requests:
        yield await _handle()


async def _background() -> None:
    async def one() -> None:
        while True:
            _busy(random.uniform(0.1, 0.6))
            await asyncio.sleep(random.uniform(0.001, 0.006))

    await asyncio.gather(*(one() for _ in range(4)))


async def _serve(port: int, ready) -> None:
    server = grpc.aio.server()
    handlers = {
        "Unary": grpc.unary_unary_rpc_method_handler(_unary, _identity, _identity),
        "Stream": grpc.stream_stream_rpc_method_handler(_stream, _identity, _identity),
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, handlers),))
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    background = asyncio.ensure_future(_background())
    ready.set()
    try:
        await server.wait_for_termination()
    finally:
        background.cancel()


def _server(port: int, ready) -> None:
    uvloop.install()
    asyncio.run(_serve(port, ready))


def _client(port: int, way: str, seconds: float, results) -> None:
    overheads = []
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        if way == "unary":
            call = channel.unary_unary(f"/{SERVICE}/Unary", _identity, _identity)
        else:
            requests: queue.SimpleQueue = queue.SimpleQueue()
            answers = channel.stream_stream(f"/{SERVICE}/Stream", _identity, _identity)(
                iter(requests.get, None)
            )
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            sent = time.perf_counter()
            if way == "unary":
                answer = call(b"x" * 100)
            else:
                requests.put(b"x" * 100)
                answer = next(answers)
            took = time.perf_counter() - sent
            overheads.append((took - struct.unpack("d", answer)[0]) * 1000)
            time.sleep(random.uniform(0.02, 0.06))
        if way != "unary":
            requests.put(None)
    results.put(overheads)


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    ready = multiprocessing.Event()
    server = multiprocessing.Process(target=_server, args=(port, ready), daemon=True)
    server.start()
    ready.wait(30)
    try:
        for _ in range(args.rounds):
            for way in ("unary", "stream"):
                results: multiprocessing.Queue = multiprocessing.Queue()
                clients = [
                    multiprocessing.Process(target=_client, args=(port, way, args.seconds, results))
                    for _ in range(args.clients)
                ]
                for client in clients:
                    client.start()
                overheads = [x for _ in clients for x in results.get()]
                for client in clients:
                    client.join()
                print(
                    f"{way:6s} {len(overheads):6d} answers; beyond the handler: "
                    f"p50 {_percentile(overheads, 0.5):.2f} ms, "
                    f"p90 {_percentile(overheads, 0.9):.2f} ms, "
                    f"p99 {_percentile(overheads, 0.99):.2f} ms",
                    flush=True,
                )
    finally:
        server.terminate()
        server.join(10)


if __name__ == "__main__":
    main()
