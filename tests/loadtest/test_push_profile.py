"""The pieces of benchmarks/peer_server.py and benchmarks/push_profile.py: the profile's
sorting of py-spy samples into parts, and the gamehost load generator playing real
games on a real server. The figures themselves are the benchmarks' to print."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from benchmarks import push_profile
from benchmarks.peer_server import ROOT, _stop, _wait_for_line, free_port, gamehost_env

RAW = """\
run (services/server.py:56);Runner.run (asyncio/runners.py:118);GameHostServicer.SubmitAction (services/api/grpc_api.py:500);GameHost._try (services/play/submitting.py:510);CiteState.from_bytes (games/cite/engine.py:90) 3
run (services/server.py:56);Runner.run (asyncio/runners.py:118);GameHostServicer.WatchGame (services/api/grpc_api.py:572);game_event (services/api/messages.py:207) 2
Thread.run (threading.py:982);0x7f (grpc/_cython/cygrpc.cpython-311-x86_64-linux-gnu.so);eventfd_write (libc.so.6);write (libc.so.6) 4
run (services/server.py:56);Runner.run (asyncio/runners.py:118) 1
"""


def test_samples_are_sorted_into_parts_and_rpcs():
    samples = push_profile.parse_raw(RAW)
    assert [count for _, count in samples] == [3, 2, 4, 1]
    parts = [push_profile.part_of(frames) for frames, _ in samples]
    assert parts == [
        "engine: state decode/encode (from_bytes, to_bytes, copy)",
        "event encoding (game_event)",
        "syscalls: gRPC poller wake-ups (eventfd_write)",
        "event loop (uvloop native, callbacks)",
    ]
    paths = [push_profile.path_of(frames) for frames, _ in samples]
    assert paths == ["SubmitAction", "WatchGame", "other", "other"]


def test_report_spreads_the_measured_cpu_over_the_parts(capsys):
    push_profile.report(
        push_profile.parse_raw(RAW), rate=100, moves=10, cpu_us_per_move=1000, top=3
    )
    out = capsys.readouterr().out
    # 4 of 10 samples are wake-ups: 400 of the 1,000 µs per move.
    wakeups = next(line for line in out.splitlines() if line.startswith("syscalls: gRPC poller"))
    assert wakeups.split()[5] == "400"


SERVE = [sys.executable, "-m", "gamehost.cli", "serve", "--host", "127.0.0.1", "--archive",
         "none", "--bot-workers", "1", "--rate-limit", "0"]  # fmt: skip


@pytest.mark.procs
@pytest.mark.parametrize(
    ("server", "game", "ready"),
    [
        ("gamehost", "cite", "gamehost serving on"),
        ("gamehost", "counter", "gamehost serving on"),
        ("floor", "counter", "floor serving on"),
        ("floor", "cite", "floor serving on"),
        ("floor-redis", "counter", "floor serving on"),
        ("floor-redis", "cite", "floor serving on"),
    ],
)
def test_the_load_plays_closed_loop(server, game, ready, request):
    """peer_server.py's load generator against gamehost (the counter registered as the
    benchmark registers it), against the bare floor and against the floor with every
    event through Redis, with Cité and the counter."""
    port = free_port()
    if server == "gamehost":
        command = [*SERVE, "--port", str(port)]
    else:
        command = [sys.executable, str(ROOT / "benchmarks" / "push_floor.py"), str(port)]
        if server == "floor-redis":
            prefix = request.getfixturevalue("redis_prefix")
            command += [request.getfixturevalue("redis_url"), prefix]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, text=True, cwd=ROOT, env=gamehost_env()
    )
    try:
        _wait_for_line(process, ready)
        load = subprocess.run(
            [sys.executable, str(ROOT / "benchmarks" / "peer_server.py"), "--load",
             f"127.0.0.1:{port}", "2", "0.2", "1.5", game, "40"],
            capture_output=True, text=True, timeout=120, cwd=ROOT,
        )  # fmt: skip
    finally:
        _stop(process)
    lines = load.stdout.splitlines()
    assert load.returncode == 0, load.stderr
    assert lines[0] == "measuring"
    result = json.loads(lines[-1])
    assert result["errors"] == 0, result["failures"]
    assert result["moves"] > 0
    # Both seats' streams deliver every move (and Cité's chance outcomes besides).
    assert result["events"] >= 2 * result["moves"]
    if game == "counter":  # 40-move games: some ended and new ones began
        assert result["games"] >= 1
    assert 0 < result["p50_ms"] <= result["p99_ms"]
