"""GetState latency on one replica with and without 2,000 open WatchGame streams.

    .venv/bin/python benchmarks/watch_scale.py [--redis URL] [--streams N] [--games G]

Starts ``gamehost serve`` (in memory, or on ``--redis`` under a prefix of its own that
it removes after), creates the games, times GetState alone, opens the streams (500 on
one game, the rest spread over the others, over 8 connections), waits until every
stream has caught up, times GetState again and prints both p99s and how long the
streams took to open. Target (docs/operations.md, "Streams at scale"): p99 with the
streams within 2x its p99 without them, plus 20 ms. tests/watch/test_watch_scale.py
checks the behaviour (every stream served, nothing left behind), not the times.
"""

from __future__ import annotations

import argparse
import asyncio
import pathlib
import re
import subprocess
import sys
import time
import uuid

import grpc

from gamehost.v1 import gamehost_pb2 as pb
from gamehost.v1 import gamehost_pb2_grpc as pb_grpc

ROOT = pathlib.Path(__file__).resolve().parent.parent

CHANNELS = 8
SAMPLES = 300
IN_ONE_GAME = 500


def p99(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


async def get_state_latencies(stub, game_ids: list[str]) -> list[float]:
    latencies = []
    for i in range(SAMPLES):
        started = time.perf_counter()
        await stub.GetState(pb.GetStateRequest(game_id=game_ids[i % len(game_ids)]), timeout=10)
        latencies.append(time.perf_counter() - started)
    return latencies


def start_server(redis_url: str | None, prefix: str) -> tuple[subprocess.Popen, str]:
    command = [sys.executable, "-m", "gamehost.cli", "serve", "--port", "0"]
    command += ["--bot-workers", "1", "--rate-limit", "0"]
    if redis_url:
        command += ["--redis", redis_url, "--redis-prefix", prefix]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    for line in process.stdout:
        if found := re.search(r"serving on ([\d.]+:\d+)", line):
            return process, found.group(1)
    raise SystemExit(f"gamehost serve exited with {process.wait()}")


async def measure(target: str, streams: int, games: int) -> None:
    channels = [
        grpc.aio.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)])
        for _ in range(CHANNELS + 1)
    ]
    try:
        control = pb_grpc.GameHostStub(channels[-1])
        game_ids = []
        for i in range(games):
            seats = [pb.SeatSpec(kind=pb.HUMAN), pb.SeatSpec(kind=pb.HUMAN)]
            created = await control.CreateGame(
                pb.CreateGameRequest(game_type="cite", seats=seats, seed=i)
            )
            game_ids.append(created.game_id)
        alone = await get_state_latencies(control, game_ids)

        newest = {
            g: (await control.GetState(pb.GetStateRequest(game_id=g))).last_event_id
            for g in game_ids
        }
        caught_up = 0
        all_caught_up = asyncio.Event()

        async def watch(stub, game_id: str) -> None:
            nonlocal caught_up
            call = stub.WatchGame(pb.WatchGameRequest(game_id=game_id))
            try:
                async for event in call:
                    if event.event_id == newest[game_id]:
                        caught_up += 1
                        if caught_up == streams:
                            all_caught_up.set()
            except grpc.aio.AioRpcError as exc:
                if exc.code() != grpc.StatusCode.CANCELLED:
                    raise

        stubs = [pb_grpc.GameHostStub(c) for c in channels[:CHANNELS]]
        owners = [0] * min(IN_ONE_GAME, streams)
        owners += [1 + i % (games - 1) for i in range(streams - len(owners))]
        opened = time.perf_counter()
        tasks = [
            asyncio.create_task(watch(stubs[i % CHANNELS], game_ids[g]))
            for i, g in enumerate(owners)
        ]
        await asyncio.wait_for(all_caught_up.wait(), 300)
        open_seconds = time.perf_counter() - opened
        loaded = await get_state_latencies(control, game_ids)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    finally:
        for channel in channels:
            await channel.close()
    print(f"{streams} streams over {games} games opened and caught up in {open_seconds:.1f} s")
    print(
        f"GetState p99: {p99(alone) * 1e3:.1f} ms alone, {p99(loaded) * 1e3:.1f} ms with "
        f"{streams} streams open ({SAMPLES} calls each); target: at most "
        f"{2 * p99(alone) * 1e3 + 20:.1f} ms (2x + 20 ms)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redis", help="a Redis URL (default: the in-memory store)")
    parser.add_argument("--streams", type=int, default=2000)
    parser.add_argument("--games", type=int, default=50)
    args = parser.parse_args()
    prefix = f"bench-watch-{uuid.uuid4().hex[:8]}"
    process, target = start_server(args.redis, prefix)
    try:
        asyncio.run(measure(target, args.streams, args.games))
    finally:
        process.terminate()
        process.wait()
        if args.redis:
            import redis

            client = redis.Redis.from_url(args.redis)
            for key in client.scan_iter(f"{prefix}:*"):
                client.delete(key)
            client.close()


if __name__ == "__main__":
    main()
