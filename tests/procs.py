"""Real processes for fault tests: a Redis of the test's own, service replicas and
Celery workers, each started as a subprocess that a test can ``kill -9``.

Readiness is waited for (a PING, a health check, a Celery ping), never slept for.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import uuid
from pathlib import Path

import grpc
import redis
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tests.polling import wait_until  # tests import it from here too


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class RedisServer:
    """A redis-server on a free port with AOF (appendfsync always) in ``directory``."""

    def __init__(self, directory: Path, port: int | None = None) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        binary = shutil.which("redis-server")
        assert binary, "fault tests need redis-server on PATH"
        self.process = subprocess.Popen(
            [
                binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.directory),
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
                "--save",
                "",
                "--logfile",
                str(self.directory / "redis.log"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
        )
        wait_until(self._answers, 30, f"redis-server on port {self.port}")
        return self

    def _answers(self) -> bool:
        assert self.process is not None
        if self.process.poll() is not None:
            raise AssertionError((self.directory / "redis.log").read_text())
        client = redis.Redis(port=self.port, socket_connect_timeout=0.5)
        try:
            return bool(client.ping())
        except redis.exceptions.RedisError:
            return False
        finally:
            client.close()

    def kill9(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def restart(self) -> RedisServer:
        """Start again on the same port and directory: the AOF brings the data back."""
        self.kill9()
        return self.start()

    def stop(self) -> None:
        self.kill9()


class ServiceProcess:
    """``gamehost <args>`` as a subprocess in its own session, its output in ``log``."""

    def __init__(self, args: list[str], log: Path, env: dict[str, str] | None = None) -> None:
        self.args = args
        self.log = Path(log)
        self.env = {**os.environ, **(env or {}), "PYTHONUNBUFFERED": "1"}
        self.process: subprocess.Popen | None = None

    def start(self) -> ServiceProcess:
        with open(self.log, "ab") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "gamehost.cli", *self.args],
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: kill_group() ends it all
            )
        return self

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def kill9(self) -> None:
        """SIGKILL the main process only, as the OOM killer would (children stay)."""
        if self.alive():
            assert self.process is not None
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def kill_group(self) -> None:
        """SIGKILL the whole process group (cleanup)."""
        if self.process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=10)


class Replica(ServiceProcess):
    """``gamehost serve`` on a free port; ``wait_serving`` waits for its health check."""

    def __init__(self, log: Path, extra: list[str], env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        super().__init__(["serve", "--port", str(self.port), *extra], log, env)

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def health(self, timeout: float = 1.0) -> int | None:
        """The overall health status, or None when the server does not answer."""
        with grpc.insecure_channel(self.target) as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            try:
                reply = stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=timeout)
            except grpc.RpcError:
                return None
            return reply.status

    def wait_serving(self, timeout: float = 60) -> Replica:
        def serving() -> bool:
            if not self.alive():
                raise AssertionError(f"the replica exited:\n{self.output()}")
            return self.health() == health_pb2.HealthCheckResponse.SERVING

        try:
            wait_until(serving, timeout, f"replica on {self.target} to serve")
        except AssertionError as exc:
            # Its log says why (a hang at start-up left only the timeout before).
            raise AssertionError(
                f"{exc}; last health answer: {self.health()}; its output:\n{self.output()[-4000:]}"
            ) from None
        return self


class Worker(ServiceProcess):
    """``gamehost worker`` on a broker and queue; ``wait_ready`` waits for a Celery ping."""

    def __init__(self, log: Path, broker: str, queue: str, concurrency: int = 1) -> None:
        self.name = f"fault-{uuid.uuid4().hex[:8]}@%h"
        env = {
            "GAMEHOST_CELERY_BROKER": broker,
            "GAMEHOST_CELERY_BACKEND": broker,
            "GAMEHOST_CELERY_QUEUE": queue,
        }
        args = ["worker", "--concurrency", str(concurrency), "--hostname", self.name]
        super().__init__(args, log, env)
        self.broker = broker

    def wait_ready(self, app, timeout: float = 90) -> Worker:
        node = self.name.replace("%h", socket.gethostname())

        def answers() -> bool:
            if not self.alive():
                raise AssertionError(f"the worker exited:\n{self.output()}")
            replies = app.control.ping(destination=[node], timeout=1.0)
            return any(node in reply for reply in replies)

        wait_until(answers, timeout, f"worker {node}")
        return self


def descendants(pid: int) -> set[int]:
    """Every live process below ``pid`` (children, grandchildren, ...), from /proc."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        # "pid (comm) state ppid ...": comm may hold spaces, so split after the last ")".
        parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    found: set[int] = set()
    frontier = [pid]
    while frontier:
        parent = frontier.pop()
        for child, ppid in parents.items():
            if ppid == parent and child not in found:
                found.add(child)
                frontier.append(child)
    return found


def alive_pids(pids: set[int]) -> set[int]:
    """Those of ``pids`` still running (zombies count as gone)."""
    alive = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            alive.add(pid)
    return alive


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""
