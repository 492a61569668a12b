"""SubmitAction latency and throughput on Redis, beside a bare gRPC echo and a bare
Redis compare-and-set measured in the same run.

    python benchmarks/service_bench.py [--redis URL] [--seconds S] [--clients N]
        [--processes 1,2] [--inline-commits]

The service and the echo server each run in their own process (as in production);
the clients run here. Submissions follow scripts computed offline from each
game's seed, so the timed loops send only SubmitAction calls. Prints one table and a JSON line with every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import uuid
from collections.abc import Callable

import grpc
import redis

# Shared with the load test and the studies (loadtest/driver.py); the one echo server.
from loadtest.driver import (
    ScriptedGames,
    latencies,
    pct,
    start_process,
    stop,
    store_secret,
    throughput,
)
from loadtest.echo import FULL_METHOD
from loadtest.parts import free_port
from services.stores.redis_connect import with_inline_commits

_CAS = """
if redis.call('HGET', KEYS[1], 'version') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'version', ARGV[2], 'state', ARGV[3])
return 1
"""


def start_servers(
    processes: int, redis_url: str, prefix: str, inline_commits: bool = False
) -> tuple[list, int, int]:
    """``processes`` echo servers and ``processes`` service processes, each set on one port;
    ``inline_commits``: the service's store URL with ``inline_commits=1``."""
    store_url = with_inline_commits(redis_url, inline_commits)
    echo_port, service_port = free_port(), free_port()
    echo = [
        start_process([sys.executable, "-m", "loadtest.echo", str(echo_port)], echo_port)
        for _ in range(processes)
    ]
    service = start_process(
        [sys.executable, "-m", "gamehost.cli", "serve", "--port", str(service_port),
         "--redis", store_url, "--redis-prefix", prefix, "--bot-workers", "1",
         "--processes", str(processes),
         # The benchmark is one client at full speed: no per-client limits.
         "--rate-limit", "0", "--live-games-per-client", "0"],
        service_port,
    )  # fmt: skip
    return [*echo, service], echo_port, service_port


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--redis", default=os.environ.get("GAMEHOST_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
    )
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument(
        "--processes",
        default="1,2",
        help="comma-separated serving-process counts for the throughput runs (echo and service alike)",
    )
    parser.add_argument(
        "--inline-commits",
        action="store_true",
        help="the service's store URL with inline_commits=1: every move's commit run on a "
        "blocking connection inside the loop's turn, not awaited (docs/operations.md)",
    )
    args = parser.parse_args()

    prefix = f"gamehost-bench-{uuid.uuid4().hex[:8]}"
    r = redis.Redis.from_url(args.redis)
    payload = b"x" * 600  # about a Cité state blob
    secret = store_secret(args.redis, prefix)
    commits = "inline" if args.inline_commits else "awaited"
    figures: dict = {"clients": args.clients, "commits": commits, "throughput": {}}
    try:
        procs, echo_port, service_port = start_servers(1, args.redis, prefix, args.inline_commits)
        try:
            echo_call = grpc.insecure_channel(f"127.0.0.1:{echo_port}").unary_unary(FULL_METHOD)
            echo_lat = latencies(lambda: echo_call(payload), args.seconds)
            cas = r.register_script(_CAS)
            key = f"{prefix}:{{cas}}:game"
            r.hset(key, mapping={"version": 0, "state": payload})
            version = [0]

            def cas_once() -> None:
                assert cas(keys=[key], args=[version[0], version[0] + 1, payload]) == 1
                version[0] += 1

            cas_lat = latencies(cas_once, args.seconds)
            player = ScriptedGames(f"127.0.0.1:{service_port}", seed=1, games=60, secret=secret)
            submit_lat = latencies(player.submit, args.seconds, before=player.ready)
        finally:
            stop(procs)
        for name, values in (("echo", echo_lat), ("cas", cas_lat), ("submit", submit_lat)):
            figures[f"{name}_p50_ms"] = pct(values, 50)
            figures[f"{name}_p99_ms"] = pct(values, 99)

        seeds = iter(range(1000, 10**9, 1000))
        for processes in (int(p) for p in args.processes.split(",")):
            procs, echo_port, service_port = start_servers(
                processes, args.redis, prefix, args.inline_commits
            )
            try:

                def echo_worker(port: int = echo_port) -> Callable[[], object]:
                    call = grpc.insecure_channel(f"127.0.0.1:{port}").unary_unary(FULL_METHOD)
                    return lambda: call(payload)

                def submit_worker(port: int = service_port) -> Callable[[], object]:
                    return ScriptedGames(
                        f"127.0.0.1:{port}", next(seeds), games=12, secret=secret
                    ).step

                echo_tp = throughput(echo_worker, args.clients, args.seconds)
                submit_tp = throughput(submit_worker, args.clients, args.seconds)
            finally:
                stop(procs)
            figures["throughput"][processes] = {
                "echo_per_s": echo_tp,
                "submit_per_s": submit_tp,
                "ratio": submit_tp / echo_tp,
            }
    finally:
        for k in r.scan_iter(match=f"{prefix}:*", count=500):
            r.delete(k)

    budget = 2 * (figures["echo_p50_ms"] + figures["cas_p50_ms"])
    figures["submit_p50_budget_ms"] = budget
    figures["submit_p50_within_budget"] = figures["submit_p50_ms"] <= budget
    rows = (
        ("bare gRPC echo", "echo"),
        ("bare Redis compare-and-set (Lua)", "cas"),
        ("SubmitAction (Cité, Redis)", "submit"),
    )
    print(f"{'latency, one sequential client':34} {'p50 ms':>8} {'p99 ms':>8}")
    for label, name in rows:
        print(f"{label:34} {figures[name + '_p50_ms']:8.3f} {figures[name + '_p99_ms']:8.3f}")
    verdict = "met" if figures["submit_p50_within_budget"] else "NOT met"
    print(f"SubmitAction p50 budget 2 x (echo + CAS) = {budget:.3f} ms: {verdict}")
    print(f"throughput, {args.clients} concurrent clients:")
    print(f"{'serving processes':>18} {'echo/s':>10} {'SubmitAction/s':>15} {'ratio':>6}")
    for processes, t in figures["throughput"].items():
        print(
            f"{processes:>18} {t['echo_per_s']:>10,.0f} {t['submit_per_s']:>15,.0f} {t['ratio']:>6.2f}"
        )
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
