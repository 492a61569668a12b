"""Redis topologies started on this machine for a fault run, a test or a load test: a
primary with replicas watched by sentinels (``SentinelSet``), and a Redis Cluster
(``ClusterSet``). Every server is ``redis-server`` on a free port in a directory of its
own (sentinels too: ``redis-server sentinel.conf --sentinel``), killed by ``stop``.

Readiness is polled (a PING, INFO replication, CLUSTER INFO), never slept for.
"""

from __future__ import annotations

import contextlib
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import redis

SERVICE = "gamehost"  # the primary's name in Sentinel


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def poll(condition: Callable[[], Any], timeout: float, what: str) -> Any:
    """Poll ``condition`` until it returns something truthy; raise after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        with contextlib.suppress(redis.exceptions.RedisError, OSError):
            value = condition()
            if value:
                return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.05)


def redis_binary() -> str | None:
    return shutil.which("redis-server")


class RedisProc:
    """One ``redis-server`` (a sentinel when ``sentinel``), its log in its directory."""

    def __init__(self, directory: Path, args: list[str], sentinel: bool = False) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.args = args
        self.sentinel = sentinel
        self.process: subprocess.Popen | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def log(self) -> Path:
        return self.directory / "redis.log"

    def start(self) -> RedisProc:
        binary = redis_binary()
        if binary is None:
            raise FileNotFoundError("redis-server is not on PATH")
        common = ["--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.directory)]
        common += ["--logfile", str(self.log)]
        if self.sentinel:
            conf = self.directory / "sentinel.conf"  # Sentinel rewrites it: a file of its own
            conf.write_text("\n".join(self.args) + "\n")
            argv = [binary, str(conf), "--sentinel", *common]
        else:
            # No persistence: what a failover keeps is what the replicas hold. DEBUG
            # SLEEP (replica lag in the fault runs) needs the debug command.
            argv = [binary, *common, "--save", "", "--appendonly", "no"]
            argv += ["--enable-debug-command", "yes", *self.args]
        self.process = subprocess.Popen(
            argv, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, start_new_session=True
        )
        poll(self._answers, 30, f"redis-server on port {self.port}")
        return self

    def _answers(self) -> bool:
        assert self.process is not None
        if self.process.poll() is not None:
            raise RuntimeError(f"redis-server exited:\n{self.log_text()}")
        with self.client(timeout=0.5) as client:
            return bool(client.ping())

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def client(self, timeout: float = 2.0) -> redis.Redis:
        return redis.Redis(port=self.port, socket_timeout=timeout, socket_connect_timeout=timeout)

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill9(self) -> None:
        if self.alive():
            assert self.process is not None
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    stop = kill9


class SentinelSet:
    """A primary, ``replicas`` replicas and ``sentinels`` sentinels (quorum: a majority)
    that promote a replica ``down_after`` seconds after the primary stops answering."""

    def __init__(
        self,
        directory: Path,
        replicas: int = 2,
        sentinels: int = 3,
        down_after: float = 1.0,
        service: str = SERVICE,
    ) -> None:
        self.directory = Path(directory)
        self.service = service
        self.down_after_ms = int(down_after * 1000)
        self.servers: list[RedisProc] = []
        self.sentinels: list[RedisProc] = []
        self._replicas = replicas
        self._sentinel_count = sentinels

    def start(self) -> SentinelSet:
        try:
            primary = RedisProc(self.directory / "redis-0", []).start()
            self.servers.append(primary)
            for i in range(self._replicas):
                args = ["--replicaof", "127.0.0.1", str(primary.port)]
                self.servers.append(RedisProc(self.directory / f"redis-{i + 1}", args).start())
            self.wait_replicas(primary, self._replicas)
            quorum = self._sentinel_count // 2 + 1
            for i in range(self._sentinel_count):
                conf = [
                    f"sentinel monitor {self.service} 127.0.0.1 {primary.port} {quorum}",
                    f"sentinel down-after-milliseconds {self.service} {self.down_after_ms}",
                    # A failover that found no replica fit to promote is tried again
                    # after twice this (Sentinel's default, 3 minutes, is for people).
                    f"sentinel failover-timeout {self.service} 2000",
                    f"sentinel parallel-syncs {self.service} 2",
                ]
                self.sentinels.append(
                    RedisProc(self.directory / f"sentinel-{i}", conf, sentinel=True).start()
                )
            # Every sentinel knows the replicas and the others: a failover can happen.
            poll(self._sentinels_agree, 30, "the sentinels to find each other and the replicas")
        except BaseException:
            self.stop()
            raise
        return self

    def _sentinels_agree(self) -> bool:
        for sentinel in self.sentinels:
            with sentinel.client() as client:
                state = client.sentinel_master(self.service)
            if int(state["num-slaves"]) < self._replicas:
                return False
            if int(state["num-other-sentinels"]) < self._sentinel_count - 1:
                return False
        return True

    @property
    def sentinel_hosts(self) -> str:
        """The ``--redis-sentinel`` value."""
        return ",".join(s.address for s in self.sentinels if s.alive())

    def url(self) -> str:
        return f"redis+sentinel://{','.join(s.address for s in self.sentinels)}/{self.service}"

    def primary(self) -> RedisProc:
        """The server the sentinels name primary now."""

        def named() -> RedisProc | None:
            for sentinel in self.sentinels:
                if not sentinel.alive():
                    continue
                with sentinel.client() as client:
                    _, port = client.sentinel_get_master_addr_by_name(self.service)
                for server in self.servers:
                    if server.port == int(port) and server.alive():
                        return server
            return None

        return poll(named, 30, "a live primary named by the sentinels")

    def replicas_of(self, primary: RedisProc) -> list[RedisProc]:
        return [s for s in self.servers if s is not primary and s.alive()]

    def wait_promoted(self, old: RedisProc, timeout: float = 60) -> RedisProc:
        """Wait until the sentinels name another live server primary, and it says so."""

        def promoted() -> RedisProc | None:
            primary = self.primary()
            if primary is old:
                return None
            with primary.client() as client:
                return primary if client.info("replication")["role"] == "master" else None

        return poll(promoted, timeout, f"a replica to replace the primary on {old.port}")

    @staticmethod
    def wait_replicas(primary: RedisProc, count: int, timeout: float = 60) -> None:
        """Wait until ``count`` replicas are connected to ``primary`` and in sync."""

        def synced() -> bool:
            with primary.client() as client:
                info = client.info("replication")
            online = [
                v
                for k, v in info.items()
                if k.startswith("slave") and isinstance(v, dict) and v.get("state") == "online"
            ]
            return len(online) >= count

        poll(synced, timeout, f"{count} replicas of port {primary.port} to be in sync")

    def stop(self) -> None:
        for proc in [*self.sentinels, *self.servers]:
            proc.kill9()

    def __enter__(self) -> SentinelSet:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class ClusterSet:
    """A Redis Cluster of ``primaries`` primaries, each with ``replicas`` replicas,
    made with ``redis-cli --cluster create``; ``spare`` more empty primaries are
    started and joined (slots may be moved to them mid-run). ``nodes``: the
    primaries, then their replicas, then the spares."""

    def __init__(
        self, directory: Path, primaries: int = 3, spare: int = 0, replicas: int = 0
    ) -> None:
        self.directory = Path(directory)
        self.nodes: list[RedisProc] = []
        self._primaries = primaries
        self._spare = spare
        self._replicas = replicas

    def start(self) -> ClusterSet:
        cli = shutil.which("redis-cli")
        if cli is None:
            raise FileNotFoundError("redis-cli is not on PATH")
        try:
            made = self._primaries * (1 + self._replicas)
            for i in range(made + self._spare):
                args = ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"]
                # The bus on a free port of its own (by default port + 10000).
                args += ["--cluster-node-timeout", "2000", "--cluster-port", str(free_port())]
                self.nodes.append(RedisProc(self.directory / f"node-{i}", args).start())
            first = self.nodes[: self._primaries]
            if len(first) >= 3:
                # redis-cli makes the first nodes given the primaries, the rest replicas.
                subprocess.run(
                    [cli, "--cluster", "create", *(n.address for n in self.nodes[:made])]
                    + ["--cluster-replicas", str(self._replicas), "--cluster-yes"],
                    check=True,
                    capture_output=True,
                    timeout=60,
                )
            else:  # redis-cli makes 3 primaries at least: fewer are given their slots here
                if self._replicas:
                    raise ValueError("replicas need 3 primaries at least (redis-cli)")
                self._assign_slots(first)
            for node in self.nodes[made:]:
                subprocess.run(
                    [cli, "--cluster", "add-node", node.address, first[0].address],
                    check=True,
                    capture_output=True,
                    timeout=60,
                )
            poll(self._ready, 60, "the cluster to cover every slot on every node")
            for primary in first:
                SentinelSet.wait_replicas(primary, self._replicas)
        except BaseException:
            self.stop()
            raise
        return self

    @staticmethod
    def _assign_slots(primaries: list[RedisProc]) -> None:
        share = 16384 // len(primaries)
        for i, node in enumerate(primaries):
            last = 16383 if i == len(primaries) - 1 else (i + 1) * share - 1
            with node.client() as client:
                client.execute_command("CLUSTER ADDSLOTSRANGE", i * share, last)
                for other in primaries[:i]:
                    client.execute_command("CLUSTER MEET", "127.0.0.1", other.port)

    def _ready(self) -> bool:
        for node in self.nodes:
            with node.client() as client:
                info = client.execute_command("CLUSTER INFO")  # parsed: a dict
                known = len(client.execute_command("CLUSTER NODES"))
            if info.get("cluster_state") != "ok" or known < len(self.nodes):
                return False
        return True

    def url(self) -> str:
        """The ``--redis-cluster`` value."""
        return "redis://" + ",".join(n.address for n in self.nodes[: self._primaries])

    def node_id(self, node: RedisProc) -> str:
        with node.client() as client:
            found = client.execute_command("CLUSTER MYID")
        return found.decode() if isinstance(found, bytes) else str(found)

    def owner(self, slot: int) -> RedisProc:
        """The node serving ``slot`` now (as the first node sees it)."""
        port = None
        with self.nodes[0].client() as client:
            for start, end, primary, *_ in client.execute_command("CLUSTER SLOTS"):
                if start <= slot <= end:
                    port = int(primary[1])
        if port is None:
            raise LookupError(slot)
        return next(n for n in self.nodes if n.port == port)

    def move_slot(self, slot: int, target: RedisProc, batch: int = 100) -> int:
        """Migrate ``slot`` to ``target`` the way ``redis-cli --cluster reshard`` does
        (IMPORTING/MIGRATING, MIGRATE key by batch, then SETSLOT NODE everywhere), while
        clients go on using it (they follow ASK and MOVED); returns the keys moved."""
        source = self.owner(slot)
        if source is target:
            return 0
        source_id, target_id = self.node_id(source), self.node_id(target)
        moved = 0
        with source.client(timeout=30) as src, target.client(timeout=30) as dst:
            dst.execute_command("CLUSTER SETSLOT", slot, "IMPORTING", source_id)
            src.execute_command("CLUSTER SETSLOT", slot, "MIGRATING", target_id)
            while keys := src.execute_command("CLUSTER GETKEYSINSLOT", slot, batch):
                src.execute_command(
                    "MIGRATE", "127.0.0.1", target.port, "", 0, 10000, "KEYS", *keys
                )
                moved += len(keys)
            for node in self.nodes:  # the target first: it owns the slot from then on
                with node.client() as client:
                    client.execute_command("CLUSTER SETSLOT", slot, "NODE", target_id)
        poll(lambda: self.owner(slot) is target, 30, f"slot {slot} to be owned by its target")
        return moved

    @staticmethod
    def slot_of(key: str) -> int:
        from redis.crc import key_slot

        return key_slot(key.encode())

    def stop(self) -> None:
        for node in self.nodes:
            node.kill9()

    def __enter__(self) -> ClusterSet:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
