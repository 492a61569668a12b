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
import uuid
from collections.abc import Iterator

ROOT = pathlib.Path(__file__).resolve().parent.parent
for path in (ROOT, ROOT / "benchmarks"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from service_bench import ScriptedGames, latencies, pct, start_process, throughput  # noqa: E402

from loadtest.parts import free_port  # noqa: E402
from loadtest.topology import ClusterSet, RedisProc, SentinelSet  # noqa: E402
from services.stores import redis_connect as rc  # noqa: E402
from services.stores.redis_store import RedisStore  # noqa: E402

TOPOLOGIES = (
    "single",
    "sentinel-min-replicas-1",
    "cluster-1",
    "cluster-3",
    "cluster-3-min-replicas-1",  # each primary with a replica, every move WAITs for it
)


@contextlib.contextmanager
def topology(name: str, directory: pathlib.Path) -> Iterator[list[str]]:
    """Start ``name``; yield ``gamehost serve``'s store flags."""
    if name == "single":
        server = RedisProc(directory, []).start()
        try:
            yield ["--redis", f"redis://127.0.0.1:{server.port}/0"]
        finally:
            server.stop()
    elif name == "sentinel-min-replicas-1":
        with SentinelSet(directory) as redis:
            yield [
                "--redis-sentinel", redis.sentinel_hosts, "--redis-service", redis.service,
                "--redis-min-replicas", "1",
            ]  # fmt: skip
    else:
        durable = name.endswith("-min-replicas-1")
        primaries = int(name.removesuffix("-min-replicas-1").rpartition("-")[2])
        with ClusterSet(directory, primaries=primaries, replicas=int(durable)) as cluster:
            flags = ["--redis-cluster", cluster.url()]
            yield flags + (["--redis-min-replicas", "1"] if durable else [])


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
        topology(name, pathlib.Path(directory)) as flags,
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

            per_s = throughput(worker, args.clients, args.seconds)
        finally:
            service.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                service.wait(10)
    return {"p50_ms": pct(lat, 50), "p99_ms": pct(lat, 99), "submit_per_s": per_s}


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
    print(f"({args.clients} concurrent clients, {args.processes} serving processes)")
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
