"""The ladder under load (docs/ladder.md): N protocol bots (the example bot,
examples/bots/random_bot.py, each behind its own `gamehost bot run`) connected to one
server with Redis, PostgreSQL and a Celery worker, for a while; then the figures.

    .venv/bin/python benchmarks/ladder_load.py [--bots 50] [--seconds 600] [--warmup 60]
        [--postgres URL] [--redis URL] [--house random,greedy]
        [--processes N] [--tables N] [--inline-commits] [--out FILE]

It makes a scratch PostgreSQL database (dropped afterwards) and uses a key prefix of
its own on the Redis (removed afterwards). The server runs `--rate-limit 0`: every bot
connects from this machine's one address, which the per-client limits would otherwise
count as one client (the per-key limits still apply), and `--ladder-registrations 0`
for the same reason. The runners connect as `bot run` does: ConnectBot, and a BotReply
call per answer. It prints:

- ladder games per hour: rated games (validation games not counted) finished in the
  measured window, which starts after ``--warmup`` seconds (validation games, first
  pairings) once every bot is active (validated);
- matchmaking wait p50/p99: for each bot, from the end of its last game in progress
  to the start of its next one (seen by its runner; the set's result is rated first);
- move round trip through `bot run` p50/p99: from an act's arrival at the runner to
  the server's answer that the move was played, less the program's own time and the
  time the act waited behind the same copy's other acts; split into the answer (the
  BotReply call: the wire, the server's queue and the move's commit) and the runner's
  own handling (the rest); and the answer's time on the server alone (its
  `gamehost_ladder_answer_seconds`, interpolated within the histogram's buckets as
  Prometheus does);
- CPU in the window, in % of one core: the server's, the worker's, the runners' with
  their bots', and the whole machine's (all its cores: 200% is a 2-core machine
  saturated), and of that the time the host gave another machine (``stolen``: a
  shared host's noise). The server's event loop runs on one core: near 100% it is
  saturated and every call queues; a machine near its cores' total queues every process;
- the server's game-store calls per answer, by operation (a read of the game is a
  ``load``, a move's write a ``commit``), over all it does for the ladder in the window;
- fallback moves for in-time answers: answers that reached the server before their
  act's clock ran out but lost to the clock's fallback move, over the whole run (the
  server's ``gamehost_ladder_overruled_answers_total``; a server fault, 0 when sound);
- the server's resident memory (its processes together) once it serves, before any
  bot connects, and at the end of the window;
- errors: faults counted against the bots (the example bot makes none), bots paused,
  runners that stopped, ladder games failed, answers the runner could not deliver,
  fallback moves for in-time answers, and ERROR lines in the server's and worker's logs.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid

import psutil
import psycopg
import redis
import sqlalchemy as sa

from gamehost import Client
from gamehost.v1 import gamehost_pb2 as pb
from loadtest.parts import tree_cpu_seconds as cpu_seconds
from loadtest.scrape import bucket_delta, buckets, gauge_sum, histogram_quantile, samples
from services.ladder.schema import ladder_games
from services.stores.redis_connect import with_inline_commits

ROOT = pathlib.Path(__file__).resolve().parent.parent

VALIDATING_AT_MOST = 300.0  # beyond --warmup: a bot still not active then is reported
ANSWERING = "gamehost_ladder_answer_seconds"  # the server's own time for each answer
STORE_CALLS = "gamehost_redis_call_seconds_count"  # the server's calls to the game store
OVERRULED = "gamehost_ladder_overruled_answers_total"  # in-time answers lost to the clock


def scrape(port: int) -> str:
    """The server's Prometheus metrics (``gamehost serve --metrics-port``)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as answer:
        return answer.read().decode()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def gamehost(args: list[str], log: pathlib.Path, env: dict | None = None) -> subprocess.Popen:
    with open(log, "ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "gamehost.cli", *args],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, **(env or {}), "PYTHONUNBUFFERED": "1"},
            start_new_session=True,
        )


def stop(process: subprocess.Popen, group: bool = True) -> None:
    """SIGTERM to the process's group (a runner and its bot), or to the process alone
    (``group=False``: the server and the worker stop their own children, and a Celery
    pool child killed under a running task would log an error)."""
    if process.poll() is None:
        if group:
            os.killpg(process.pid, signal.SIGTERM)
        else:
            process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=15)


def store_calls_per_answer(
    before: str, after: str, handled: dict[float, float]
) -> dict[str, float]:
    """The server's game-store calls in the window by operation (``load``, ``commit``
    ...; its shared log reader's XREADs are not among them), per bot answer."""
    answers = max(handled.values(), default=0.0)
    counts: dict[str, float] = {}
    for scraped, sign in ((after, 1), (before, -1)):
        for labels, value in samples(scraped, STORE_CALLS):
            counts[labels["operation"]] = counts.get(labels["operation"], 0.0) + sign * value
    return {
        operation: round(n / answers, 2)
        for operation, n in sorted(counts.items(), key=lambda item: -item[1])
        if answers and n / answers >= 0.005
    }


def rss_mb(pid: int) -> float:
    """Resident memory of a process and its children (``--processes``), in MiB."""
    process = psutil.Process(pid)
    group = [process, *process.children(recursive=True)]
    return round(sum(p.memory_info().rss for p in group) / 2**20, 1)


def wait_for(condition, seconds: float, what: str):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    raise SystemExit(f"ladder_load: timed out waiting for {what}")


def waits_of(stats: pathlib.Path) -> list[float]:
    """One runner's matchmaking waits: from its last game in progress ending to the
    next one starting."""
    waits, playing, idle_since = [], 0, None
    for line in stats.read_text().splitlines():
        record = json.loads(line)
        if record["event"] == "start":
            if playing == 0 and idle_since is not None:
                waits.append(record["t"] - idle_since)
            playing += 1
        elif record["event"] == "end":
            playing = max(0, playing - 1)
            if playing == 0:
                idle_since = record["t"]
    return waits


def wait_active(client: Client, bots: int, at_most: float) -> int:
    """How many bots are active (validated), once all are or ``at_most`` seconds on."""
    deadline = time.monotonic() + at_most
    while True:
        active = sum(b.status == pb.BOT_ACTIVE for b in client.list_bots())
        if active == bots or time.monotonic() >= deadline:
            return active
        time.sleep(0.5)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=600.0)
    parser.add_argument(
        "--warmup",
        type=float,
        default=60.0,
        help="seconds before the measured window (validation games, first pairings); "
        "the window also waits for every bot to be active",
    )
    parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--house", default="random,greedy")
    parser.add_argument(
        "--processes",
        type=int,
        default=1,
        help="serving processes sharing the port (gamehost serve --processes); the "
        "server's CPU is theirs together",
    )
    parser.add_argument(
        "--tables",
        type=int,
        default=0,
        help="gamehost serve --ladder-tables: the most duplicate sets open at once; "
        "0: bots + 2 (every bot can be in a set)",
    )
    parser.add_argument(
        "--inline-commits",
        action="store_true",
        help="the server's store URL with inline_commits=1: every move's commit run on a "
        "blocking connection inside the loop's turn, not awaited (docs/operations.md)",
    )
    parser.add_argument("--out", help="also write the figures as JSON to this file")
    parser.add_argument("--keep", action="store_true", help="keep the logs (the folder is printed)")
    args = parser.parse_args()

    work = pathlib.Path(tempfile.mkdtemp(prefix="ladder-load-"))
    database = f"gamehost_ladder_load_{uuid.uuid4().hex[:10]}"
    prefix = f"ladder-load-{uuid.uuid4().hex[:8]}"
    with psycopg.connect(args.postgres, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{database}"')
    archive = sa.make_url(args.postgres).set(database=database).render_as_string(False)
    processes: list[subprocess.Popen] = []
    # Celery's keys under the same prefix: everything this run writes is removed after.
    celery = {
        "GAMEHOST_CELERY_BROKER": args.redis,
        "GAMEHOST_CELERY_QUEUE": f"{prefix}-bots",
        "GAMEHOST_CELERY_KEY_PREFIX": f"{prefix}:celery:",
    }
    try:
        subprocess.run(
            [sys.executable, "-m", "gamehost.cli", "db", "upgrade", "--archive", archive],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        worker = gamehost(["worker", "--concurrency", "1"], work / "worker.log", celery)
        processes.append(worker)
        port, metrics_port = free_port(), free_port()
        store_url = with_inline_commits(args.redis, args.inline_commits)
        serve = ["serve", "--port", str(port), "--redis", store_url, "--redis-prefix", prefix]
        serve += ["--metrics-port", str(metrics_port)]
        serve += ["--archive", archive, "--celery", "--rate-limit", "0"]
        serve += ["--ladder", "cite:2", "--ladder-house", args.house]
        tables = args.tables or args.bots + 2
        serve += ["--ladder-tables", str(tables), "--ladder-registrations", "0"]
        serve += ["--processes", str(args.processes)]
        server = gamehost(serve, work / "server.log", celery)
        processes.append(server)
        target = f"127.0.0.1:{port}"
        client = Client(target)
        client.wait_ready(timeout=120)
        rss_at_start = rss_mb(server.pid)
        keys = {}
        for i in range(args.bots):
            name = f"load-{i:03d}"
            keys[name] = client.register_bot(name, "cite", 2).key
        runners = {}
        bot = f"{sys.executable} {ROOT / 'examples' / 'bots' / 'random_bot.py'}"
        for name, key in keys.items():
            run = ["bot", "run", "--target", target, "--key", key, "--cmd", bot]
            run += ["--stats", str(work / f"{name}.jsonl")]
            runners[name] = gamehost(run, work / f"{name}.log")
            processes.append(runners[name])
        print(f"{args.bots} bots connecting; warming up {args.warmup:g} s", flush=True)
        engine = sa.create_engine(archive.replace("postgresql://", "postgresql+psycopg://"))

        def rated() -> int:
            with engine.connect() as connection:
                return connection.execute(
                    sa.select(sa.func.count())
                    .select_from(ladder_games)
                    .where(ladder_games.c.status == "rated", ladder_games.c.validation.is_(False))
                ).scalar_one()

        time.sleep(args.warmup)
        active = wait_active(client, args.bots, VALIDATING_AT_MOST)
        started, at_start = time.monotonic(), rated()
        window_start = time.time()
        print(f"{active} of {args.bots} bots active; measuring {args.seconds:g} s", flush=True)
        scraped_at_start = scrape(metrics_port)
        measured = {"server": [server], "worker": [worker], "runners_and_bots": [*runners.values()]}

        def cpu_now() -> dict[str, float]:
            """CPU seconds so far: of each part (a runner with its bot), and the machine's
            busy time, all cores together."""
            used = {
                name: sum(cpu_seconds(p.pid) for p in group) for name, group in measured.items()
            }
            times = psutil.cpu_times()
            used["machine"] = sum(times) - times.idle - getattr(times, "iowait", 0.0)
            # Of which stolen: the host ran another machine on our cores (a shared
            # host's noise, not this machine's load).
            used["stolen"] = getattr(times, "steal", 0.0)
            return used

        cpu_at_start = cpu_now()
        time.sleep(args.seconds)
        elapsed, at_end = time.monotonic() - started, rated()
        scraped_at_end = scrape(metrics_port)
        rss_at_end = rss_mb(server.pid)
        overruled = round(gauge_sum(scraped_at_end, OVERRULED))
        handled = bucket_delta(
            buckets(scraped_at_end, ANSWERING),
            buckets(scraped_at_start, ANSWERING),
        )
        store_calls = store_calls_per_answer(scraped_at_start, scraped_at_end, handled)
        cpu = {
            name: round(100 * (used - cpu_at_start[name]) / elapsed)
            for name, used in cpu_now().items()
        }
        window_end = time.time()
        bots = client.list_bots()
        with engine.connect() as connection:
            failed = connection.execute(
                sa.select(sa.func.count())
                .select_from(ladder_games)
                .where(ladder_games.c.status == "failed")
            ).scalar_one()
        engine.dispose()
        client.close()
        for process in reversed(processes):  # runners first, then the server and worker
            stop(process, group=process not in (server, worker))

        waits: list[float] = []
        overhead: list[float] = []
        replies: list[float] = []
        handling: list[float] = []
        bot_ms: list[float] = []
        undelivered = 0
        shown: list[str] = []  # the error lines themselves, a few
        for name in keys:
            stats = work / f"{name}.jsonl"
            if stats.exists():
                waits += waits_of(stats)
                for line in stats.read_text().splitlines():
                    record = json.loads(line)
                    if record["event"] == "move" and window_start <= record["t"] <= window_end:
                        beyond = record["rtt_ms"] - record["bot_ms"] - record["queued_ms"]
                        overhead.append(beyond)
                        replies.append(record["reply_ms"])
                        handling.append(beyond - record["reply_ms"])
                        bot_ms.append(record["bot_ms"])
            lines = (work / f"{name}.log").read_text(errors="replace").splitlines()
            missed = [line for line in lines if "not taken" in line]
            undelivered += len(missed)
            shown += missed[:3]
        by_fault = {
            kind: sum(getattr(b.faults, kind) for b in bots)
            for kind in ("late", "garbage", "illegal", "missing")
        }
        faults = sum(by_fault.values())
        paused = sum(b.status == pb.BOT_PAUSED for b in bots)
        stopped = sum(1 for r in runners.values() if r.returncode not in (None, -15, 0))
        logged = 0
        for log in ("server.log", "worker.log"):
            lines = (work / log).read_text(errors="replace").splitlines()
            errors = [i for i, line in enumerate(lines) if "ERROR" in line]
            logged += len(errors)
            shown += ["\n".join(lines[i : i + 12]) for i in errors[:2]]
        games = at_end - at_start
        figures = {
            "bots": args.bots,
            "bots_active": active,
            "warmup": args.warmup,
            "seconds": round(elapsed, 1),
            "house": args.house,
            "processes": args.processes,
            "tables": tables,
            "commits": "inline" if args.inline_commits else "awaited",
            "ladder_games": games,
            "ladder_games_per_hour": round(games * 3600 / elapsed),
            "matchmaking_wait_p50_s": round(percentile(waits, 0.5), 2),
            "matchmaking_wait_p99_s": round(percentile(waits, 0.99), 2),
            "moves": len(overhead),
            "move_round_trip_p50_ms": round(percentile(overhead, 0.5), 2),
            "move_round_trip_p99_ms": round(percentile(overhead, 0.99), 2),
            # the BotReply call
            "answer_p50_ms": round(percentile(replies, 0.5), 2),
            "answer_p99_ms": round(percentile(replies, 0.99), 2),
            "answer_on_the_server_p50_ms": round(histogram_quantile(0.5, handled) * 1000, 2),
            "answer_on_the_server_p99_ms": round(histogram_quantile(0.99, handled) * 1000, 2),
            "runner_handling_p50_ms": round(percentile(handling, 0.5), 2),
            "runner_handling_p99_ms": round(percentile(handling, 0.99), 2),
            "bot_own_time_p50_ms": round(percentile(bot_ms, 0.5), 2),
            "cpu_percent_of_a_core": cpu,
            "server_store_calls_per_answer": store_calls,
            "fallback_moves_for_in_time_answers": overruled,
            "server_rss_mb_at_start": rss_at_start,
            "server_rss_mb_at_end": rss_at_end,
            "errors": faults + paused + stopped + failed + undelivered + overruled + logged,
            "errors_by_kind": {
                "faults": by_fault,
                "paused": paused,
                "runners_stopped": stopped,
                "games_failed": failed,
                "answers_undelivered": undelivered,
                "answers_overruled": overruled,
                "error_log_lines": logged,
            },
        }
        for line in shown[:8]:
            print(line, file=sys.stderr)
        print(json.dumps(figures, indent=2))
        if args.out:
            pathlib.Path(args.out).write_text(json.dumps(figures, indent=2) + "\n")
    finally:
        for process in processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
        for process in processes:
            process.wait(timeout=30)  # dead, its sockets closed: it writes nothing more
        with psycopg.connect(args.postgres, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        store = redis.Redis.from_url(args.redis)
        # Redis may still run what a killed process had sent: sweep until none is left.
        for _ in range(50):
            keys = list(store.scan_iter(match=f"{prefix}:*", count=1000))
            if not keys:
                break
            store.delete(*keys)
            time.sleep(0.1)  # a polling interval, before looking again
        store.close()
        if args.keep:
            print(f"logs kept in {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
