"""The real parts a load test runs against, started and stopped by the harness:
Redis (the given one with a key prefix of the run's own, else a redis-server of its
own), the echo server, two serving processes (``gamehost serve --celery``, each with
its own metrics port) and one Celery worker (``gamehost worker --metrics-port``)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field

import psutil
import redis

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Replica:
    target: str
    metrics_url: str
    pid: int


@dataclass
class Parts:
    redis_url: str
    prefix: str  # every key of the run (games, Celery queue and results) starts with it
    echo_target: str
    echo_pid: int
    replicas: list[Replica]
    worker_metrics_url: str
    worker_concurrency: int
    logs: str
    procs: list[subprocess.Popen] = field(default_factory=list)


def _wait(what: str, ready, proc: subprocess.Popen | None, log: str, timeout: float = 90) -> None:
    """Poll ``ready`` until it answers (a readiness check, not a timed wait)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode}; see {log}")
        with contextlib.suppress(Exception):
            if ready():
                return
        time.sleep(0.1)
    raise RuntimeError(f"{what} did not get ready in {timeout:.0f} s; see {log}")


def _port_open(port: int) -> bool:
    with socket.create_connection(("127.0.0.1", port), timeout=0.5):
        return True


def _metrics_answer(url: str) -> bool:
    with urllib.request.urlopen(url, timeout=1) as reply:
        return reply.status == 200


def scrape(url: str) -> str:
    with urllib.request.urlopen(url, timeout=5) as reply:
        return reply.read().decode()


def _answers(url: str) -> bool:
    try:
        redis.Redis.from_url(url, socket_connect_timeout=1).ping()
    except redis.exceptions.RedisError:
        return False
    return True


def redis_cpu_seconds(url: str) -> float:
    """Redis's own CPU time so far (INFO cpu: the main thread and its helpers)."""
    with redis.Redis.from_url(url, socket_connect_timeout=1) as client:
        cpu = client.info("cpu")
    return float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"])


def process_cpu_seconds(pid: int) -> float:
    """User + system CPU time so far of process ``pid``, every thread of it."""
    times = psutil.Process(pid).cpu_times()
    return times.user + times.system


def tree_cpu_seconds(pid: int) -> float:
    """CPU time of ``pid`` and every process under it (``serve --processes`` children);
    a process gone meanwhile counts for nothing."""
    total = 0.0
    try:
        root = psutil.Process(pid)
        for process in [root, *root.children(recursive=True)]:
            try:
                times = process.cpu_times()
                total += times.user + times.system
            except psutil.NoSuchProcess:
                pass
    except psutil.NoSuchProcess:
        pass
    return total


def wait_for_line(process: subprocess.Popen, text: str) -> None:
    """Read ``process``'s stdout (a text pipe) until a line holds ``text``: a server
    says so once it serves."""
    assert process.stdout is not None
    for line in process.stdout:
        if text in line:
            return
    raise SystemExit(f"server exited with {process.wait()} before saying {text!r}")


def stop_process(process: subprocess.Popen) -> None:
    """SIGTERM, and SIGKILL after 15 s."""
    process.terminate()
    try:
        process.wait(15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@contextlib.contextmanager
def _redis(url: str | None, logs: str) -> Iterator[str]:
    """The given Redis, else the machine's on 6379, else a redis-server of our own."""
    for candidate in (url, "redis://127.0.0.1:6379/0"):
        if candidate and _answers(candidate):
            yield candidate
            return
    if url:
        raise RuntimeError(f"no Redis answers at {url}")
    port = free_port()
    args = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
            "--appendonly", "no", "--dir", logs]  # fmt: skip
    proc = _spawn(args, os.path.join(logs, "redis.log"), dict(os.environ))
    own = f"redis://127.0.0.1:{port}/0"
    try:
        _wait("redis-server", lambda: _answers(own), proc, logs)
        yield own
    finally:
        proc.terminate()
        proc.wait(10)


def _spawn(args: list[str], log: str, env: dict[str, str]) -> subprocess.Popen:
    with open(log, "w") as out:  # the child keeps its own copy of the descriptor
        # A session (process group) of its own: stopping it stops its children too.
        return subprocess.Popen(
            args, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=ROOT, start_new_session=True
        )


@contextlib.contextmanager
def started(
    redis_url: str | None, replicas: int = 2, worker_concurrency: int = 2
) -> Iterator[Parts]:
    logs = tempfile.mkdtemp(prefix="gamehost-loadtest-")
    prefix = f"gamehost-loadtest-{uuid.uuid4().hex[:8]}"
    with contextlib.ExitStack() as stack:
        url = stack.enter_context(_redis(redis_url, logs))
        env = {
            **os.environ,
            "PYTHONPATH": ROOT,
            "GAMEHOST_CELERY_BROKER": url,
            "GAMEHOST_CELERY_BACKEND": url,
            "GAMEHOST_CELERY_QUEUE": prefix,
            "GAMEHOST_CELERY_KEY_PREFIX": f"{prefix}:",
        }
        env.pop("PROMETHEUS_MULTIPROC_DIR", None)
        procs: list[subprocess.Popen] = []
        stack.callback(_remove_keys, url, prefix)  # after every process has stopped
        stack.callback(_stop, procs)
        py = sys.executable
        echo_port = free_port()
        log = os.path.join(logs, "echo.log")
        procs.append(_spawn([py, "-m", "loadtest.echo", str(echo_port)], log, env))
        _wait("the echo server", lambda: _port_open(echo_port), procs[-1], log)
        echo_pid = procs[-1].pid
        found = []
        for i in range(replicas):
            port, metrics = free_port(), free_port()
            log = os.path.join(logs, f"serve-{i}.log")
            procs.append(
                _spawn(
                    [
                        py,
                        "-m",
                        "gamehost.cli",
                        "serve",
                        "--port",
                        str(port),
                        "--redis",
                        url,
                        "--redis-prefix",
                        prefix,
                        "--celery",
                        "--metrics-port",
                        str(metrics),
                        # Every user of the harness calls from one address: per-client
                        # limits would measure the limiter, not the service.
                        "--rate-limit",
                        "0",
                        "--live-games-per-client",
                        "0",
                    ],
                    log,
                    env,
                )  # fmt: skip
            )
            _wait(f"replica {i}", lambda p=port: _port_open(p), procs[-1], log)
            found.append(
                Replica(f"127.0.0.1:{port}", f"http://127.0.0.1:{metrics}/metrics", procs[-1].pid)
            )
        worker_metrics = free_port()
        log = os.path.join(logs, "worker.log")
        procs.append(
            _spawn(
                # Niced: on one small machine the searches would otherwise take the cores
                # from the serving processes, which in a deployment have their own.
                [
                    "nice",
                    "-n",
                    "10",
                    py,
                    "-m",
                    "gamehost.cli",
                    "worker",
                    "--concurrency",
                    str(worker_concurrency),
                    "--loglevel",
                    "WARNING",
                    "--hostname",
                    f"{prefix}@%h",
                    "--metrics-port",
                    str(worker_metrics),
                    "--metrics-host",
                    "127.0.0.1",
                ],
                log,
                env,
            )  # fmt: skip
        )
        worker_url = f"http://127.0.0.1:{worker_metrics}/metrics"
        _wait("the Celery worker", lambda: _metrics_answer(worker_url), procs[-1], log)
        yield Parts(
            url, prefix, f"127.0.0.1:{echo_port}", echo_pid, found, worker_url, worker_concurrency,
            logs, procs,
        )  # fmt: skip
    shutil.rmtree(logs, ignore_errors=True)


def _stop(procs: list[subprocess.Popen]) -> None:
    """SIGTERM (a worker finishes its task), then SIGKILL to whatever is left of each
    process group: a prefork child that outlived its parent would write keys later."""
    for proc in procs:
        proc.terminate()
    for proc in procs:
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(20)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(5)


def _remove_keys(url: str, prefix: str) -> None:
    client = redis.Redis.from_url(url)
    for key in client.scan_iter(match=f"{prefix}:*", count=1000):
        client.delete(key)
    client.close()
