"""Running the rules service: the gRPC server with health checking, reflection
and metrics, on the Redis store or the embedded in-memory one."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import threading
from dataclasses import dataclass

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from gamehost.v1 import gamehost_pb2, gamehost_pb2_grpc
from services.bot_pool import DEFAULT_MAX_SEARCH_ITERATIONS
from services.bot_runner import BotExecutor, BotRunner, LocalPoolExecutor
from services.grpc_api import GameHostServicer
from services.host import GameHost
from services.stores import GameStore, open_store

log = logging.getLogger(__name__)


def new_event_loop() -> asyncio.AbstractEventLoop:
    """uvloop where available: it cuts the per-request overhead of every await."""
    try:
        import uvloop
    except ImportError:
        return asyncio.new_event_loop()
    return uvloop.new_event_loop()


def run(coro) -> None:
    """asyncio.run on the fastest loop available."""
    with asyncio.Runner(loop_factory=new_event_loop) as runner:
        runner.run(coro)


SERVICE_NAME = gamehost_pb2.DESCRIPTOR.services_by_name["GameHost"].full_name


@dataclass
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 50051  # 0: any free port
    redis_url: str | None = None  # None: the embedded in-memory store
    redis_prefix: str = "gamehost"  # key prefix, so several deployments can share a Redis
    bot_workers: int | None = None  # local process pool size (default: CPU count)
    metrics_port: int | None = None
    celery: bool = False  # hand bot turns to Celery workers (needs redis_url)
    # Per-server cap on one bot decision's search (trees x iterations; 0: no cap).
    max_search_iterations: int = DEFAULT_MAX_SEARCH_ITERATIONS


@dataclass
class RunningServer:
    server: grpc.aio.Server
    port: int
    host: GameHost
    store: GameStore
    runner: BotRunner
    health: health.aio.HealthServicer

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    async def stop(self, grace: float = 1.0) -> None:
        await self.health.enter_graceful_shutdown()
        await self.server.stop(grace)
        await self.runner.close()
        await self.store.close()


async def start_server(config: ServerConfig, executor: BotExecutor | None = None) -> RunningServer:
    store = open_store(config.redis_url, config.redis_prefix)
    if executor is None:
        if config.celery:
            if not config.redis_url:
                raise ValueError("--celery needs --redis: workers read and write games in Redis")
            from services.celery_executor import CeleryExecutor

            executor = CeleryExecutor(
                config.redis_url, config.redis_prefix, config.max_search_iterations or None
            )
        else:
            executor = LocalPoolExecutor(config.bot_workers, config.max_search_iterations or None)
    runner = BotRunner(store, executor)
    host = GameHost(store, runner)
    # SO_REUSEPORT: several serving processes may share one port (gamehost serve --processes).
    server = grpc.aio.server(options=[("grpc.so_reuseport", 1)])
    gamehost_pb2_grpc.add_GameHostServicer_to_server(GameHostServicer(host), server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        [SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME], server
    )
    port = server.add_insecure_port(f"{config.host}:{config.port}")
    if port == 0:
        raise OSError(f"cannot listen on {config.host}:{config.port}")
    await server.start()
    for name in ("", SERVICE_NAME):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    # Sweeps the store's schedule of due bot turns: no client call is needed for bots
    # to move, also for turns left behind by replicas that died.
    runner.start()
    if config.metrics_port is not None:
        from prometheus_client import start_http_server

        start_http_server(config.metrics_port, addr=config.host)
    return RunningServer(server, port, host, store, runner, health_servicer)


async def serve(config: ServerConfig) -> None:
    """Run until SIGINT/SIGTERM."""
    running = await start_server(config)
    where = config.redis_url or "the in-memory store"
    print(f"gamehost serving on {config.host}:{running.port} with {where}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await running.stop()


class ServerThread:
    """An embedded server on its own event loop thread (CLI ``play``/``selfplay``, tests)."""

    def __init__(self, config: ServerConfig, executor: BotExecutor | None = None) -> None:
        self.config = config
        self._executor = executor
        self._loop = new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self.running: RunningServer | None = None

    def __enter__(self) -> ServerThread:
        self._thread.start()
        future = asyncio.run_coroutine_threadsafe(
            start_server(self.config, self._executor), self._loop
        )
        self.running = future.result(timeout=60)
        return self

    @property
    def target(self) -> str:
        assert self.running is not None
        return self.running.target

    def call(self, coro, timeout: float = 60):
        """Run a coroutine on the server's loop (e.g. to inspect its store)."""
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout)

    def __exit__(self, *exc: object) -> None:
        if self.running is not None:
            self.call(self.running.stop(0))
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()
