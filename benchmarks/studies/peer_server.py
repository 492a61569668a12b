"""Moves per core: gamehost's push path side by side with boardgame.io, in one run.

    .venv/bin/python benchmarks/studies/peer_server.py [--games 1,8,32,64] [--seconds S]
        [--warmup S] [--servers bgio,floor,memory,redis] [--processes P] [--redis URL]
        (servers: also floor-redis)
        [--gamehost-game counter,cite] [--counter-moves K]

Every server is played the same closed-loop way, the way a real client plays: N
two-player games at once, each seat holding a live stream and moving as soon as the
newest update it receives puts it to move; a finished game is replaced by a new one.

- ``bgio``: boardgame.io 0.50.2 (installed by this script with npm into
  benchmarks/.peer/), its documented ``Server`` (in memory, SocketIO transport) and
  headless ``Client``, with a trivial counter game (each move adds one; the match ends
  after ``--counter-moves`` moves). benchmarks/studies/peer_bgio.js is both the server and the
  load generator, run as two node processes.
- ``memory`` and ``redis``: ``gamehost serve`` (the in-memory store, or ``--redis``
  under a key prefix of its own, deleted afterwards), ``--processes`` serving processes
  (more than one needs Redis), played with WatchGame and SubmitAction by a load
  generator in a process of its own (this script with ``--load``), one channel per game.
  gamehost plays each game of ``--gamehost-game``: ``counter``, the same trivial game
  as boardgame.io's (loadtest/counter_game.py, served through
  ``GAMEHOST_EXTRA_GAMES``, never in the shipped catalogue; ``--counter-moves`` moves a
  game), and Cité.

- ``floor``: the counter on a bare grpc.aio server of the same API (benchmarks/studies/push_floor.py:
  no interceptors, store, engine or views), played by the same load generator: what
  this stack allows one Python process, gamehost's own work aside.
- ``floor-redis``: the same floor with every event through Redis first (one
  compare-and-set script per move that appends its events to the game's stream, and
  the streams fed by one XREAD over every game): the least a store shared by
  replicas adds. Not in the default list; gamehost's Redis rows are also compared
  with it.

The ratios at the end compare moves per server CPU-second, and moves/s, against
boardgame.io at the same N: the counter's is the headline (per process; per machine
with ``--processes 2``).

A move's round trip is the time from sending it to the mover's own stream delivering
it back (for boardgame.io, the moves run on the server only, ``client: false``, so no
optimistic update short-cuts it). Server CPU is read from /proc over the measured
window, every serving process together; 100 % is one core. Events/s counts every
update every stream delivered. Both load generators stay on 127.0.0.1 and stop after
``--warmup`` + ``--seconds``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import pathlib
import random
import re
import shutil
import socket
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass

# gamehost serves the counter only in the processes this script starts (counter_env).
from loadtest.counter_game import counter_env
from loadtest.parts import free_port, stop_process, tree_cpu_seconds, wait_for_line

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
BGIO_VERSION = "0.50.2"
PEER_DIR = ROOT / "benchmarks" / ".peer"
BGIO_SCRIPT = HERE / "peer_bgio.js"


def quantile(ordered: list[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


@dataclass
class Row:
    server: str
    game: str
    games: int
    moves_per_s: float
    p50_ms: float
    p99_ms: float
    server_cpu: float  # percent of one core
    events_per_s: float
    client_cpu: float
    redis_cpu: float | None = None

    @property
    def moves_per_cpu_second(self) -> float:
        return self.moves_per_s / (self.server_cpu / 100) if self.server_cpu else 0.0


# ------------------------------------------------------------------ one measured step
def run_load(
    command: list[str],
    server_pid: int,
    seconds: float,
    redis_url: str | None = None,
    during: list[str] | None = None,
) -> tuple[dict, float, float, float | None]:
    """Run a load generator that prints "measuring" when its warm-up ends and a JSON
    line of results at the end. Returns the results and the server's, the load
    generator's and (with ``redis_url``) Redis's CPU in percent of one core over the
    ``seconds`` after "measuring". ``during``: a command run over that window (a
    profiler), waited for."""
    load = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, cwd=ROOT, env=_node_env())
    assert load.stdout is not None
    try:
        line = load.stdout.readline()
        if line.strip() != "measuring":
            raise SystemExit(f"load generator failed: {line!r} {load.wait(30)}")
        server0, client0 = tree_cpu_seconds(server_pid), tree_cpu_seconds(load.pid)
        redis0 = _redis_cpu(redis_url)
        started = time.monotonic()
        watcher = subprocess.Popen(during, cwd=ROOT) if during else None
        time.sleep(seconds)
        elapsed = time.monotonic() - started
        server1, client1 = tree_cpu_seconds(server_pid), tree_cpu_seconds(load.pid)
        redis1 = _redis_cpu(redis_url)
        if watcher is not None:
            watcher.wait(seconds + 60)
        result = json.loads(load.stdout.readline())
        load.wait(60)
    finally:
        if load.poll() is None:
            load.kill()
            load.wait()
    redis_cpu = None if redis0 is None or redis1 is None else (redis1 - redis0) / elapsed * 100
    return (
        result,
        (server1 - server0) / elapsed * 100,
        (client1 - client0) / elapsed * 100,
        redis_cpu,
    )


def _redis_cpu(url: str | None) -> float | None:
    """Redis's own CPU seconds (INFO cpu), every client's work included."""
    if url is None:
        return None
    import redis

    client = redis.Redis.from_url(url)
    try:
        info = client.info("cpu")
        return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])
    finally:
        client.close()


def _node_env() -> dict[str, str]:
    return {**os.environ, "NODE_PATH": str(PEER_DIR / "node_modules")}


def to_row(server: str, game: str, games: int, seconds: float, measured) -> Row:
    result, server_cpu, client_cpu, redis_cpu = measured
    if result.get("errors"):
        print(
            f"warning: {server} N={games}: {result['errors']} failed calls "
            f"{result.get('failures', {})}",
            file=sys.stderr,
        )
    return Row(
        server,
        game,
        games,
        result["moves"] / seconds,
        result["p50_ms"],
        result["p99_ms"],
        server_cpu,
        result["events"] / seconds,
        client_cpu,
        redis_cpu,
    )


# ------------------------------------------------------------------ boardgame.io
def install_bgio() -> None:
    """boardgame.io at the pinned version into benchmarks/.peer (gitignored), once."""
    installed = PEER_DIR / "node_modules" / "boardgame.io" / "package.json"
    if installed.exists() and json.loads(installed.read_text())["version"] == BGIO_VERSION:
        return
    if shutil.which("npm") is None or shutil.which("node") is None:
        raise SystemExit("peer_server: boardgame.io needs node and npm on PATH")
    PEER_DIR.mkdir(parents=True, exist_ok=True)
    package = PEER_DIR / "package.json"
    if not package.exists():
        package.write_text('{"private": true}\n')
    subprocess.run(
        ["npm", "install", "--no-audit", "--no-fund", f"boardgame.io@{BGIO_VERSION}"],
        cwd=PEER_DIR,
        check=True,
        timeout=600,
    )


def bgio_steps(args: argparse.Namespace) -> list[Row]:
    install_bgio()
    rows = []
    for games in args.games:
        port = free_port()
        server = subprocess.Popen(
            ["node", str(BGIO_SCRIPT), "server", str(port), "0", "0", "0", str(args.counter_moves)],
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env=_node_env(),
        )
        try:
            wait_for_line(server, "bgio serving on")
            load = ["node", str(BGIO_SCRIPT), "load", str(port), str(games)]
            load += [str(args.warmup), str(args.seconds), str(args.counter_moves)]
            measured = run_load(load, server.pid, args.seconds)
            rows.append(
                to_row(f"boardgame.io {BGIO_VERSION}", "counter", games, args.seconds, measured)
            )
            print(_format(rows[-1]), flush=True)
        finally:
            stop_process(server)
    return rows


# ------------------------------------------------------------------ the floor
FLOOR, REDIS_FLOOR = "bare grpc.aio floor", "bare grpc.aio floor + Redis"


def floor_steps(args: argparse.Namespace, game: str, on_redis: bool = False) -> list[Row]:
    """The floor, for the counter or (``cite``) with Cité's message count; ``on_redis``:
    every event through Redis first (push_floor.py's ``RedisFloor``)."""
    rows = []
    for games in args.games:
        port = free_port()
        command = [sys.executable, str(HERE / "push_floor.py"), str(port)]
        prefix = f"gamehost-peer-floor-{uuid.uuid4().hex[:8]}"
        redis_url = args.redis if on_redis else None
        if redis_url:
            command += [redis_url, prefix]
        server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, cwd=ROOT)
        try:
            wait_for_line(server, "floor serving on")
            load = [sys.executable, str(pathlib.Path(__file__).resolve()), "--load"]
            load += [f"127.0.0.1:{port}", str(games), str(args.warmup), str(args.seconds)]
            load += [game, str(args.counter_moves)]
            measured = run_load(load, server.pid, args.seconds, redis_url)
            label = "counter" if game == "counter" else f"{game} msgs"
            name = REDIS_FLOOR if on_redis else FLOOR
            rows.append(to_row(name, label, games, args.seconds, measured))
            print(_format(rows[-1]), flush=True)
        finally:
            stop_process(server)
            if redis_url:
                _delete_prefix(redis_url, prefix)
    return rows


# ------------------------------------------------------------------ gamehost
def gamehost_steps(args: argparse.Namespace, store: str, game: str) -> list[Row]:
    rows = []
    for games in args.games:
        prefix = f"gamehost-peer-{uuid.uuid4().hex[:8]}"
        port = free_port()
        command = [sys.executable, "-m", "gamehost.cli", "serve", "--host", "127.0.0.1"]
        command += ["--port", str(port), "--archive", "none", "--bot-workers", "1"]
        command += ["--rate-limit", "0", "--live-games-per-client", "0"]
        redis_url = None
        if store == "redis":
            redis_url = args.redis
            command += ["--redis", redis_url, "--redis-prefix", prefix]
        if args.processes > 1:
            command += ["--processes", str(args.processes)]
        server = subprocess.Popen(
            command, stdout=subprocess.PIPE, text=True, cwd=ROOT, env=counter_env()
        )
        try:
            wait_for_line(server, "gamehost serving on")
            if args.processes > 1:
                _wait_for_port(port)
            load = [sys.executable, str(pathlib.Path(__file__).resolve()), "--load"]
            load += [f"127.0.0.1:{port}", str(games), str(args.warmup), str(args.seconds)]
            load += [game, str(args.counter_moves)]
            measured = run_load(load, server.pid, args.seconds, redis_url)
            name = f"gamehost, {store}" + (
                f", {args.processes} processes" if args.processes > 1 else ""
            )
            rows.append(to_row(name, game, games, args.seconds, measured))
            print(_format(rows[-1]), flush=True)
        finally:
            stop_process(server)
            if redis_url:
                _delete_prefix(redis_url, prefix)
    return rows


def _delete_prefix(url: str, prefix: str) -> None:
    import redis

    client = redis.Redis.from_url(url)
    try:
        for key in client.scan_iter(match=f"{prefix}:*", count=1000):
            client.delete(key)
    finally:
        client.close()


def _wait_for_port(port: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise SystemExit(f"nothing listens on 127.0.0.1:{port}")


# ------------------------------------------------------------------ gamehost load
async def gamehost_load(
    target: str, games: int, warmup: float, seconds: float, game: str, counter_moves: int
) -> None:
    """The gamehost load generator (``--load``): ``games`` games at once, each seat a
    WatchGame stream that submits as soon as the newest event puts it to move."""
    import grpc

    from gamehost.v1 import gamehost_pb2 as pb
    from gamehost.v1 import gamehost_pb2_grpc as pb_grpc

    loop = asyncio.get_running_loop()
    measure_from = loop.time() + warmup
    stop_at = measure_from + seconds
    totals = {"moves": 0, "events": 0, "games": 0, "errors": 0}
    failures: dict[str, int] = {}  # gRPC status name -> count
    latencies: list[float] = []
    rng = random.Random(1)
    options = {"moves": str(counter_moves)} if game == "counter" else {}

    def measuring(now: float) -> bool:
        return measure_from <= now < stop_at

    async def seat(stub, game_id: str, seat: int, token: str) -> None:
        call = stub.WatchGame(pb.WatchGameRequest(game_id=game_id, token=token))
        sent_at: float | None = None
        sent_version = 0
        submits: set[asyncio.Task] = set()
        try:
            async for event in call:
                now = loop.time()
                if measuring(now):
                    totals["events"] += 1
                mine = event.kind == pb.ACTION and event.actor.kind == pb.Actor.SEAT
                if sent_at is not None and mine and event.actor.seat == seat:
                    if event.version > sent_version and measuring(now):
                        totals["moves"] += 1
                        latencies.append(now - sent_at)
                    sent_at = None
                if event.kind == pb.GAME_FINISHED or now >= stop_at:
                    break
                to_move = event.to_move
                if (
                    event.legal_actions
                    and sent_at is None
                    and to_move.kind == pb.Actor.SEAT
                    and to_move.seat == seat
                ):
                    sent_at, sent_version = now, event.version
                    request = pb.SubmitActionRequest(
                        game_id=game_id,
                        token=token,
                        expected_version=event.version,
                        action_id=rng.choice(event.legal_actions).id,
                        request_id=uuid.uuid4().hex,
                    )
                    task = asyncio.ensure_future(submit(stub, request))
                    submits.add(task)
                    task.add_done_callback(submits.discard)
        finally:
            call.cancel()
            if submits:  # answered before the channel closes, not cancelled by it
                await asyncio.wait(submits, timeout=10)

    async def submit(stub, request) -> None:
        try:
            await stub.SubmitAction(request, timeout=30)
        except grpc.aio.AioRpcError as exc:
            totals["errors"] += 1
            failures[exc.code().name] = failures.get(exc.code().name, 0) + 1

    async def slot() -> None:
        channel = grpc.aio.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)])
        stub = pb_grpc.GameHostStub(channel)
        try:
            while loop.time() < stop_at:
                seats = [pb.SeatSpec(kind=pb.HUMAN), pb.SeatSpec(kind=pb.HUMAN)]
                created = await stub.CreateGame(
                    pb.CreateGameRequest(game_type=game, seats=seats, options=options)
                )
                tokens = []
                for i in range(2):
                    joined = await stub.JoinGame(
                        pb.JoinGameRequest(game_id=created.game_id, seat=i)
                    )
                    tokens.append(joined.token)
                seats = [
                    asyncio.ensure_future(seat(stub, created.game_id, i, tokens[i]))
                    for i in range(2)
                ]
                await asyncio.wait(seats, return_when=asyncio.FIRST_COMPLETED)
                if loop.time() >= stop_at:
                    # One seat stopped, maybe with its move unmade: the other would wait for it.
                    for other in seats:
                        other.cancel()
                await asyncio.gather(*seats, return_exceptions=loop.time() >= stop_at)
                totals["games"] += 1
        finally:
            await channel.close()

    async def announce() -> None:
        await asyncio.sleep(warmup)
        print("measuring", flush=True)

    announcer = asyncio.ensure_future(announce())
    slots = [asyncio.ensure_future(slot()) for _ in range(games)]
    # Bounded in time even if a seat never hears back (a lost submission).
    _, late = await asyncio.wait(slots, timeout=warmup + seconds + 10)
    for task in late:
        task.cancel()
        totals["errors"] += 1
        failures["slot still waiting at the end"] = (
            failures.get("slot still waiting at the end", 0) + 1
        )
    await announcer
    ordered = sorted(latencies)
    result = {
        "moves": totals["moves"],
        "events": totals["events"],
        "games": totals["games"],
        "errors": totals["errors"],
        "failures": failures,
        "seconds": seconds,
        "p50_ms": quantile(ordered, 0.5) * 1000,
        "p99_ms": quantile(ordered, 0.99) * 1000,
    }
    print(json.dumps(result), flush=True)


# ------------------------------------------------------------------ report
HEADER = (
    f"{'server':34} {'game':8} {'N':>3} {'moves/s':>8} {'p50 ms':>7} {'p99 ms':>7} "
    f"{'server CPU':>10} {'moves/CPU-s':>11} {'events/s':>9} {'client CPU':>10} {'Redis CPU':>9}"
)


def _format(row: Row) -> str:
    redis_cpu = f"{row.redis_cpu:8.0f}%" if row.redis_cpu is not None else f"{'':9}"
    return (
        f"{row.server:34} {row.game:8} {row.games:3d} {row.moves_per_s:8,.0f} {row.p50_ms:7.1f} "
        f"{row.p99_ms:7.1f} {row.server_cpu:9.0f}% {row.moves_per_cpu_second:11,.0f} "
        f"{row.events_per_s:9,.0f} {row.client_cpu:9.0f}% {redis_cpu}"
    )


def _ratios(rows: list[Row]) -> None:
    """Each gamehost row against boardgame.io, and against the floor of its game, at
    the same N. The counter's ratio to boardgame.io is the trivial-game ratio: per
    process with one serving process, per machine with more."""
    peers = {r.games: r for r in rows if r.server.startswith("boardgame.io")}
    floors = {(r.server, r.game, r.games): r for r in rows if r.server.startswith(FLOOR)}
    for row in rows:
        if not row.server.startswith("gamehost"):
            continue
        floor_game = "counter" if row.game == "counter" else f"{row.game} msgs"
        # A gamehost row on Redis against the floor on Redis as well as the bare one.
        bases = [peers.get(row.games), floors.get((FLOOR, floor_game, row.games))]
        if "redis" in row.server:
            bases.append(floors.get((REDIS_FLOOR, floor_game, row.games)))
        for base in bases:
            if base is None or not base.moves_per_cpu_second or not base.moves_per_s:
                continue
            kind = ""
            if row.game == "counter" and base.server.startswith("boardgame.io"):
                where = "machine" if "processes" in row.server else "process"
                kind = f" trivial-game ratio per {where}"
            print(
                f"N={row.games:<3} {row.server} ({row.game}) / {base.server} ({base.game}){kind}: "
                f"moves/s {row.moves_per_s / base.moves_per_s:.2f}, moves per server "
                f"CPU-second {row.moves_per_cpu_second / base.moves_per_cpu_second:.2f}"
            )


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--load":
        target, games, warmup, seconds, game = sys.argv[2:7]
        moves = sys.argv[7] if len(sys.argv) > 7 else "500"  # the counter's, a game
        asyncio.run(
            gamehost_load(target, int(games), float(warmup), float(seconds), game, int(moves))
        )
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", default="1,8,32,64", help="games at once per step, a list")
    parser.add_argument("--seconds", type=float, default=5.0, help="measured seconds per step")
    parser.add_argument("--warmup", type=float, default=1.0, help="unmeasured seconds first")
    parser.add_argument("--servers", default="bgio,floor,memory,redis", help="which, a list")
    parser.add_argument("--processes", type=int, default=1, help="gamehost serving processes")
    parser.add_argument(
        "--redis", default=os.environ.get("GAMEHOST_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
    )
    parser.add_argument(
        "--gamehost-game", default="counter,cite", help="games gamehost plays, a list"
    )
    parser.add_argument("--counter-moves", type=int, default=500, help="moves per counter match")
    args = parser.parse_args()
    args.games = [int(n) for n in args.games.split(",")]
    servers = args.servers.split(",")
    known = ("bgio", "floor", "floor-redis", "memory", "redis")
    unknown = set(servers) - set(known)
    if unknown:
        parser.error(f"unknown servers {sorted(unknown)}; choose from {', '.join(known)}")
    if args.processes > 1 and "memory" in servers:
        parser.error("--processes above 1 needs Redis: use --servers bgio,redis")
    args.gamehost_game = args.gamehost_game.split(",")
    if not all(re.fullmatch(r"[a-z_]+", g) for g in args.gamehost_game):
        parser.error("--gamehost-game: game ids such as counter,cite")
    print(
        f"closed loop, {args.warmup:g} s warm-up + {args.seconds:g} s per step, "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}"
    )
    print(HEADER, flush=True)
    rows: list[Row] = []
    for server in servers:
        if server == "bgio":
            rows += bgio_steps(args)
            continue
        for game in args.gamehost_game:
            if server in ("floor", "floor-redis"):
                on_redis = server == "floor-redis"
                rows += floor_steps(args, game, on_redis) if game in ("counter", "cite") else []
            else:
                rows += gamehost_steps(args, server, game)
    print()
    print(HEADER)
    for row in rows:
        print(_format(row))
    _ratios(rows)


if __name__ == "__main__":
    main()
