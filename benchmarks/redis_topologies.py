"""SubmitAction on each Redis topology: one server, a Sentinel set with
``--redis-min-replicas 1`` (every move waits for a replica's WAIT), and Redis Clusters
of 1 and 3 primaries, and of 3 primaries each with a replica and
``--redis-min-replicas 1``.

    .venv/bin/python benchmarks/redis_topologies.py [--seconds S] [--clients N]
                                                    [--processes P] [--only NAME ...]

Each topology is started here (redis-server on free ports in a temporary directory,
killed at the end), with one ``gamehost serve --processes P`` on it; the clients run
in this process (benchmarks/service_bench.py's scripted Cité games). Printed per
topology: one sequential client's p50 and p99, and SubmitAction/s with N concurrent
clients. On a 2-core machine the clients, the serving processes and every Redis share
the same two cores: the figures compare topologies, they do not show what more
machines would give.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import pathlib
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator

from redis.crc import key_slot

from loadtest.driver import ScriptedGames, latencies, pct, start_process, throughput
from loadtest.parts import free_port
from loadtest.topology import ClusterSet, RedisProc, SentinelSet
from services.stores import redis_connect as rc
from services.stores.redis_store import RedisStore

TOPOLOGIES = (
    "single",
    "sentinel-min-replicas-1",
    "cluster-1",
    "cluster-3",
    "cluster-3-min-replicas-1",  # each primary with a replica, every move WAITs for it
)


@contextlib.contextmanager
def topology(name: str, directory: pathlib.Path) -> Iterator[tuple[list[str], list[RedisProc]]]:
    """Start ``name``; yield ``gamehost serve``'s store flags and, on a Cluster, its
    primaries."""
    if name == "single":
        server = RedisProc(directory, []).start()
        try:
            yield ["--redis", f"redis://127.0.0.1:{server.port}/0"], []
        finally:
            server.stop()
    elif name == "sentinel-min-replicas-1":
        with SentinelSet(directory) as redis:
            yield [
                "--redis-sentinel", redis.sentinel_hosts, "--redis-service", redis.service,
                "--redis-min-replicas", "1",
            ], []  # fmt: skip
    else:
        durable = name.endswith("-min-replicas-1")
        primaries = int(name.removesuffix("-min-replicas-1").rpartition("-")[2])
        with ClusterSet(directory, primaries=primaries, replicas=int(durable)) as cluster:
            flags = ["--redis-cluster", cluster.url()]
            yield (
                flags + (["--redis-min-replicas", "1"] if durable else []),
                cluster.nodes[:primaries],
            )


def commands_processed(nodes: list[RedisProc]) -> list[int]:
    counts = []
    for node in nodes:
        with node.client() as client:
            counts.append(int(client.info("stats")["total_commands_processed"]))
    return counts


def shared_key_nodes(nodes: list[RedisProc], prefix: str) -> set[int]:
    """Ports of the primaries holding the keys across games (``redis_cluster``'s doc):
    the game index, the bot-turn schedule, the outbox and the secret."""
    with nodes[0].client() as client:
        ranges = client.execute_command("CLUSTER SLOTS")
    ports = set()
    for name in ("games", "botturns", "archive", "secret"):
        slot = key_slot(f"{prefix}:{name}".encode())
        ports |= {int(primary[1]) for start, end, primary, *_ in ranges if start <= slot <= end}
    return ports


def store_url(flags: list[str]) -> str:
    """The store URL the flags name (what ``gamehost serve`` makes of them)."""
    given = dict(zip(flags[::2], flags[1::2], strict=True))
    if "--redis" in given:
        return given["--redis"]
    if "--redis-cluster" in given:  # (the secret is read; no need to wait for replicas)
        return rc.cluster_url(given["--redis-cluster"])
    return rc.sentinel_url(given["--redis-sentinel"], given["--redis-service"])


def server_secret(url: str, prefix: str) -> bytes:
    async def read() -> bytes:
        store = RedisStore.from_url(url, prefix)
        try:
            return await store.secret()
        finally:
            await store.close()

    return asyncio.run(read())


def measure(name: str, args: argparse.Namespace) -> dict:
    with (
        tempfile.TemporaryDirectory(prefix="gamehost-topology-") as directory,
        topology(name, pathlib.Path(directory)) as (flags, primaries),
    ):
        prefix = f"bench-{uuid.uuid4().hex[:8]}"
        port = free_port()
        service = start_process(
            [sys.executable, "-m", "gamehost.cli", "serve", "--port", str(port), *flags,
             "--redis-prefix", prefix, "--bot-workers", "1",
             "--processes", str(args.processes),
             "--rate-limit", "0", "--live-games-per-client", "0", "--archive", "none"],
            port,
        )  # fmt: skip
        try:
            secret = server_secret(store_url(flags), prefix)
            target = f"127.0.0.1:{port}"
            player = ScriptedGames(target, seed=1, games=40, secret=secret)
            lat = latencies(player.submit, args.seconds, before=player.ready)
            seeds = iter(range(1000, 10**9, 1000))

            def worker():
                return ScriptedGames(target, next(seeds), games=12, secret=secret).step

            before, started = commands_processed(primaries), time.monotonic()
            per_s = throughput(worker, args.clients, args.seconds)
            after, elapsed = commands_processed(primaries), time.monotonic() - started
            shared = shared_key_nodes(primaries, prefix) if primaries else set()
        finally:
            service.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                service.wait(10)
    figures = {"p50_ms": pct(lat, 50), "p99_ms": pct(lat, 99), "submit_per_s": per_s}
    if primaries:  # how the throughput window's commands spread over the primaries
        figures["primaries"] = [
            {"port": n.port, "commands_per_s": (b - a) / elapsed, "shared_keys": n.port in shared}
            for n, a, b in zip(primaries, before, after, strict=True)
        ]
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--processes", type=int, default=2, help="serving processes (2)")
    parser.add_argument("--only", action="append", choices=TOPOLOGIES)
    args = parser.parse_args()
    figures = {}
    for name in args.only or TOPOLOGIES:
        figures[name] = measure(name, args)
        print(f"# {name}: {figures[name]}", file=sys.stderr, flush=True)
    print(f"{'topology':26} {'p50 ms':>8} {'p99 ms':>8} {'SubmitAction/s':>15}")
    for name, f in figures.items():
        print(f"{name:26} {f['p50_ms']:8.2f} {f['p99_ms']:8.2f} {f['submit_per_s']:15,.0f}")
    for name, f in figures.items():
        for node in f.get("primaries", []):
            shared = " (holds the keys across games)" if node["shared_keys"] else ""
            print(
                f"  {name}: primary {node['port']}: {node['commands_per_s']:,.0f} commands/s{shared}"
            )
    print(f"({args.clients} concurrent clients, {args.processes} serving processes)")
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
