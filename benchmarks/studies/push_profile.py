"""Where a move's CPU goes on gamehost's push path: py-spy under peer_server.py's load.

    .venv/bin/python benchmarks/studies/push_profile.py [--games 32] [--seconds 20] [--rate 100]
        [--redis URL] [--native] [--raw FILE] [--top 25] [--game cite|counter]

Starts ``gamehost serve`` (in memory unless ``--redis``), plays ``--games`` Cité games
(``--game counter``: peer_server.py's trivial game, 500 moves a game) closed loop with peer_server.py's load generator (WatchGame + SubmitAction, in a
process of its own), and records the serving process with ``py-spy record --format raw
--gil`` (``--native``: C and Cython frames too, which tells the gRPC core's system
calls apart) over the measured window. Each sample is put in one part by its innermost
frame that names one (``PARTS``; the table in docs/benchmarks.md, "Where a move's CPU goes"). The serving
process's CPU per move is read from /proc over the same window, and each part gets its
share of the samples of it: py-spy also counts a thread that waits for a CPU as
running, which on a busy machine inflates the samples' total but not their shares.
Prints the parts (per RPC), then the hottest functions by own time and by time under
them (``file:function``), in µs of CPU per move. py-spy's sampling slows the server a
little; the µs are per move of the same window.
"""

from __future__ import annotations

import argparse
import collections
import pathlib
import re
import subprocess
import sys
import tempfile
import uuid

from peer_server import _delete_prefix, run_load

from loadtest.counter_game import counter_env
from loadtest.parts import free_port, stop_process, wait_for_line

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent

# (part, file pattern, function pattern): the first rule that matches a sample's
# innermost matching frame names its part. Frames are "function (file:line)".
PARTS: list[tuple[str, str, str]] = [
    # With --native: the system calls the gRPC core makes, by what they are for.
    (
        "syscalls: socket send/receive (sendmsg, recvmsg, read)",
        r"libc",
        r"LEAF:(sendmsg|recvmsg|read|readv|writev|send|recv)",
    ),
    ("syscalls: gRPC poller wake-ups (eventfd_write)", r"libc", r"eventfd_write"),
    (
        "syscalls: futex, getpid, other",
        r"libc",
        r"LEAF:(syscall|getpid|futex|__lll_lock_wait|epoll_wait|epoll_ctl)",
    ),
    # A leaf in these frames is native code they await: grpc's Cython send and receive,
    # or uvloop's own loop (what py-spy cannot see below a Python frame).
    (
        "gRPC send/receive (Cython, awaited by the RPC wrappers)",
        r"services/(observe/grpc_metrics|limits/\w+|api/(grpc_api|status))\.py",
        r"LEAF:.*wrapper|LEAF:stream|LEAF:unary",
    ),
    ("gRPC poller thread (Cython)", r"threading\.py", r"LEAF:Thread\.run"),
    ("event loop (uvloop native, callbacks)", r"asyncio/runners\.py", r"LEAF:Runner\.run"),
    (
        "engine: state decode/encode (from_bytes, to_bytes, copy)",
        r"games/",
        r"from_bytes|to_bytes|_decode|_encode|copy|clone",
    ),
    ("engine: rules (legal actions, apply, notation)", r"games/", r".*"),
    (
        "views and redaction (services/views, events.visible)",
        r"services/(views/|watch/events\.py)",
        r".*",
    ),
    ("stream fan-out (the watch hub)", r"services/watch/hub\.py", r".*"),
    ("Redis client (redis-py, hiredis)", r"(^|/)redis/|hiredis", r".*"),
    ("store", r"services/stores/", r".*"),
    ("play: step and commit glue (services/turns/steps.py)", r"services/turns/steps\.py", r".*"),
    (
        "event encoding (game_event)",
        r"services/api/messages\.py",
        r"game_event|actor_message|_clock",
    ),
    ("host: submit and watch logic (services/play/)", r"services/play/\w+\.py", r".*"),
    ("RPC handlers and glue (services/api/)", r"services/api/\w+\.py", r".*"),
    (
        "interceptors, limits, metrics",
        r"services/(observe/\w+|limits/\w+|metrics|errors)\.py|prometheus_client/",
        r".*",
    ),
    ("gRPC aio and core, user space (grpc/, cygrpc)", r"grpc/|_cygrpc|cygrpc", r".*"),
    ("protobuf Python", r"google/protobuf/", r".*"),
    ("event loop (asyncio, uvloop)", r"asyncio/|uvloop", r".*"),
]
FRAME = re.compile(r"^(?P<function>.*) \((?P<file>[^()]*?)(?::\d+)?\)$")


def parse_raw(text: str) -> list[tuple[list[tuple[str, str]], int]]:
    """py-spy raw (folded) lines: root-to-leaf frames and a count."""
    samples = []
    for line in text.splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        frames = []
        for frame in stack.split(";"):
            found = FRAME.match(frame)
            frames.append((found["file"], found["function"]) if found else (frame, frame))
        samples.append((frames, int(count)))
    return samples


def part_of(frames: list[tuple[str, str]]) -> str:
    for depth, (file, function) in enumerate(reversed(frames)):
        name = function.rsplit(".", 1)[-1] if "<locals>" not in function else function
        names = (function, name)
        if depth == 0:
            names += (f"LEAF:{function}", f"LEAF:{name}")
        for part, file_pattern, function_pattern in PARTS:
            if re.search(file_pattern, file) and any(
                re.fullmatch(function_pattern, n) for n in names
            ):
                return part
    return "other Python"


def path_of(frames: list[tuple[str, str]]) -> str:
    """Which RPC a sample works for: its outermost gamehost handler frame."""
    for file, function in frames:
        name = function.rsplit(".", 1)[-1]
        if "services/" in file and name in {"SubmitAction", "WatchGame", "CreateGame", "JoinGame"}:
            return name
    for file, _function in frames:
        if "watch_hub" in file:
            return "WatchGame"
    return "other"


def short(file: str) -> str:
    for marker in ("site-packages/", str(ROOT) + "/"):
        if marker in file:
            return file.split(marker, 1)[1]
    return file


def report(samples, rate: float, moves: int, cpu_us_per_move: float, top: int) -> None:
    """Print the parts, per RPC, and the hottest functions, in µs of CPU per move."""
    parts: collections.Counter[str] = collections.Counter()
    paths: collections.Counter[tuple[str, str]] = collections.Counter()
    own: collections.Counter[str] = collections.Counter()
    under: collections.Counter[str] = collections.Counter()
    for frames, count in samples:
        part = part_of(frames)
        parts[part] += count
        paths[(part, path_of(frames))] += count
        file, function = frames[-1]
        own[f"{short(file)}:{function}"] += count
        for name in {f"{short(f)}:{fn}" for f, fn in frames if "services/" in f or "games/" in f}:
            under[name] += count
    total = sum(parts.values())
    # py-spy also counts a thread that waits for a CPU (a busy machine) as active, so
    # its sample count overstates the CPU; each part is its share of the samples times
    # the CPU per move that /proc measured.
    us = cpu_us_per_move / total
    print(
        f"moves {moves}; server CPU {cpu_us_per_move:.0f} µs per move (/proc); "
        f"{total} samples at {rate:g} Hz ({total / rate / moves * 1e6:.0f} µs per move as sampled)"
    )
    names = ("SubmitAction", "WatchGame", "CreateGame", "JoinGame")
    print(
        f"\n{'part':60} {'µs/move':>8} " + " ".join(f"{n[:8]:>8}" for n in names) + f" {'other':>8}"
    )
    for part, count in parts.most_common():
        by = [paths[(part, p)] * us for p in names]
        rest = count * us - sum(by)
        print(f"{part:60} {count * us:8.0f} " + " ".join(f"{b:8.0f}" for b in by) + f" {rest:8.0f}")
    print(f"{'total (/proc)':60} {cpu_us_per_move:8.0f}")
    print(f"\nhottest functions, own time (µs per move), top {top}:")
    for name, count in own.most_common(top):
        print(f"  {count * us:7.1f}  {name}")
    print(f"\nhottest gamehost functions, time under them (µs per move), top {top}:")
    for name, count in under.most_common(top):
        print(f"  {count * us:7.1f}  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--rate", type=float, default=100.0, help="py-spy samples a second")
    parser.add_argument("--redis", help="profile on Redis (default: the in-memory store)")
    parser.add_argument("--raw", help="also keep py-spy's raw output here")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument(
        "--native", action="store_true", help="py-spy --native: C and Cython frames too"
    )
    parser.add_argument("--game", default="cite", choices=["cite", "counter"])
    args = parser.parse_args()

    port, prefix = free_port(), f"gamehost-profile-{uuid.uuid4().hex[:8]}"
    command = [sys.executable, "-m", "gamehost.cli", "serve", "--host", "127.0.0.1"]
    command += ["--port", str(port), "--archive", "none", "--bot-workers", "1"]
    command += ["--rate-limit", "0", "--live-games-per-client", "0"]
    if args.redis:
        command += ["--redis", args.redis, "--redis-prefix", prefix]
    server = subprocess.Popen(
        command, stdout=subprocess.PIPE, text=True, cwd=ROOT, env=counter_env()
    )
    raw = pathlib.Path(args.raw) if args.raw else pathlib.Path(tempfile.mkstemp(suffix=".raw")[1])
    py_spy = str(pathlib.Path(sys.executable).parent / "py-spy")
    record = [py_spy, "record", "-p", str(server.pid), "--format", "raw", "-o", str(raw)]
    # --gil: only samples that hold the GIL, so a thread waiting in epoll or in the
    # gRPC core's poller is not counted as work.
    record += ["-r", f"{args.rate:g}", "-d", f"{args.seconds:g}", "--gil"]
    record += ["--native"] if args.native else []
    try:
        wait_for_line(server, "gamehost serving on")
        load = [sys.executable, str(HERE / "peer_server.py"), "--load"]
        load += [
            f"127.0.0.1:{port}",
            str(args.games),
            str(args.warmup),
            str(args.seconds),
            args.game,
            "500",
        ]
        result, server_cpu, _, _ = run_load(load, server.pid, args.seconds, during=record)
    finally:
        stop_process(server)
        if args.redis:
            _delete_prefix(args.redis, prefix)
    moves = result["moves"]
    cpu_us = server_cpu / 100 * args.seconds / moves * 1e6
    print(
        f"{args.games} {args.game} games, {'Redis' if args.redis else 'memory store'}, "
        f"{moves / args.seconds:,.0f} moves/s, server CPU {server_cpu:.0f}%, "
        f"p50 {result['p50_ms']:.1f} ms, p99 {result['p99_ms']:.1f} ms"
    )
    report(parse_raw(raw.read_text()), args.rate, moves, cpu_us, args.top)
    if not args.raw:
        raw.unlink()


if __name__ == "__main__":
    main()
