"""benchmarks/round_trip_floor.py runs end to end on a real Redis: its runners' moves
go through the bare server and back, it prints the figures docs/ladder.md quotes, and
it leaves no key behind. The figures themselves are the benchmark's to print."""

from __future__ import annotations

import re
import subprocess
import sys

import redis

from benchmarks.peer_server import ROOT

# (runner, transport): every runner on gRPC, and the one on asyncio on a plain socket.
WAYS = (("aio", "grpc"), ("threads", "grpc"), ("one-thread", "grpc"), ("aio", "tcp"))


def test_the_floor_plays_moves_prints_its_figures_and_cleans_up(redis_url):
    # One way after another: runs side by side would see each other's keys.
    for runner, transport in WAYS:
        _floor(redis_url, runner, transport)


def _floor(redis_url: str, runner: str, transport: str) -> None:
    command = [sys.executable, str(ROOT / "benchmarks" / "round_trip_floor.py")]
    command += ["--bots", "2", "--seconds", "3", "--rate", "20", "--redis", redis_url]
    command += ["--runner", runner, "--transport", transport]
    command += ["--busy", "0.1", "--burst-ms", "0.2-1", "--thread-busy", "0.02"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    moves = re.search(r"^(\d+) moves in", done.stdout, re.MULTILINE)
    assert moves and int(moves.group(1)) > 0, done.stdout
    for figure in ("round trip", "answer", "server handler"):
        line = re.search(
            rf"^  {figure} +p50 ([\d.]+) ms, p90 [\d.]+ ms, p99 ([\d.]+) ms$",
            done.stdout,
            re.MULTILINE,
        )
        assert line and float(line.group(1)) <= float(line.group(2)), done.stdout
    assert "CPU, % of one core: server" in done.stdout
    assert "server loop busy besides: 0.1 in bursts of 0.2-1 ms" in done.stdout
    assert f"2 runners ({runner}, {transport})" in done.stdout
    store = redis.Redis.from_url(redis_url)
    try:
        assert list(store.scan_iter(match="floor-*", count=1000)) == []
    finally:
        store.close()
