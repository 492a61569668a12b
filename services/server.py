"""Running the rules service: the gRPC server with health checking, reflection
and metrics, on the Redis store or the embedded in-memory one."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
import logging
import signal
import ssl
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from pydantic import ConfigDict, SkipValidation

from gamehost.v1 import gamehost_pb2
from games import register_game
from services import tls
from services.accounts import ratings
from services.accounts.service import CREATIONS_PER_HOUR, AccountService
from services.api.grpc_api import GameHostServicer, add_to_server, method_handlers
from services.api.reflection import enable_reflection
from services.archive import archiver
from services.archive.archive import Archive
from services.bots.bot_runner import BotExecutor, BotRunner, LocalPoolExecutor
from services.bots.hints import HintLimits, HintService
from services.gateway.app import GatewayConfig, HttpGateway
from services.gateway.calls import Dispatcher
from services.gateway.static import default_web_dir
from services.ladder.matchmaker import Matchmaker
from services.ladder.model import LadderConfig
from services.ladder.service import LadderService
from services.ladder.sessions import Sessions
from services.limits import access, quotas
from services.matchmaking.config import QuickPlayConfig
from services.matchmaking.matchmaker import QuickMatchmaker
from services.matchmaking.service import QuickPlay
from services.observe.grpc_metrics import PrometheusServerInterceptor
from services.observe.metrics_export import start_metrics_server
from services.observe.store_health import StoreMonitor, StoreUnreachable, check_store
from services.observe.store_metrics import probe_forever, stop_prober
from services.play import expiry
from services.play.host import GameHost
from services.settings import ServeOptions
from services.stores import GameStore, open_store
from services.stores.memory import MemoryStore
from services.stores.redis_connect import display
from services.sweeps import Wake
from services.tournament.bounds import TournamentBounds
from services.tournament.runner import TournamentRunner
from services.tournament.service import TournamentService

log = logging.getLogger(__name__)


def new_event_loop() -> asyncio.AbstractEventLoop:
    """uvloop where available: it cuts the per-request overhead of every await."""
    try:
        import uvloop
    except ImportError:
        return asyncio.new_event_loop()
    return uvloop.new_event_loop()


EXTRA_GAMES_ENV = "GAMEHOST_EXTRA_GAMES"


def register_extra_games(spec: str) -> list[str]:
    """Serve the games ``spec`` names beside the shipped ones: "id=module:Class", comma
    separated (``$GAMEHOST_EXTRA_GAMES``, read by ``gamehost serve`` in every serving
    process: loadtest/counter_game.py, a benchmark's trivial game). Returns the ids."""
    names = []
    for entry in filter(None, (e.strip() for e in spec.split(","))):
        name, _, target = entry.partition("=")
        if not name or ":" not in target:
            raise ValueError(f"{EXTRA_GAMES_ENV}: {entry!r} is not id=module:Class")
        register_game(name, target)
        names.append(name)
    return names


def run(coro) -> None:
    """asyncio.run on the fastest loop available."""
    with asyncio.Runner(loop_factory=new_event_loop) as runner:
        runner.run(coro)


SERVICE_NAME = gamehost_pb2.DESCRIPTOR.services_by_name["GameHost"].full_name


class ServerConfig(ServeOptions):
    """One replica's configuration: the settings it takes as ``serve`` was given them
    (ServeOptions: each defined once, with its default, in services/settings.py), and
    what ``gamehost serve`` resolves from the others (workers/cli.py)."""

    model_config = ConfigDict(extra="forbid")

    redis_url: str | None = None  # the one store URL; None: the embedded in-memory store
    api_keys_file: str | None = None  # None: no API keys required
    http_cors_origins: tuple[str, ...] = ()  # "*" or origins; empty: no CORS
    http_heartbeat: float = 15.0  # seconds between SSE keep-alive comments
    # The SQL archive of finished games (docs/archive.md): a SQLAlchemy URL, None: off.
    archive_url: str | None = None
    archive_create: bool = False  # make or upgrade its schema at start (the embedded default)
    warn_without_archive: bool = False  # no archive by default (not by choice): say so at start
    # The serving process's effective settings as one line (``gamehost serve``): logged
    # once the store answers, so a start that fails says only why.
    settings_line: str = ""
    # The ladder (docs/ladder.md): None: off. It keeps everything in the archive.
    ladder: SkipValidation[LadderConfig | None] = None
    # Accounts (docs/accounts.md) live in the archive: human accounts one client creates
    # an hour (0: no limit).
    accounts_per_hour: int = CREATIONS_PER_HOUR
    # Quick play (services/matchmaking): its wait, queue bounds and call rate.
    quick_play: QuickPlayConfig = QuickPlayConfig()


# After SIGTERM: calls in flight get DRAIN_SECONDS, and the rest of the stop sequence
# STOP_SECONDS more at most (each part that overruns is logged and left behind).
DRAIN_SECONDS = 1.0
STOP_SECONDS = 5.0
STEP_FLOOR_SECONDS = 0.1  # each step's least time, even past the deadline (8 steps)


@dataclass
class RunningServer:
    server: grpc.aio.Server
    port: int
    host: GameHost
    store: GameStore
    runner: BotRunner
    health: health.aio.HealthServicer
    store_probe: asyncio.Task | None = None  # sets gamehost_store_up, gamehost_live_games
    monitor: StoreMonitor | None = None
    background: list[asyncio.Task] = field(default_factory=list)
    tournaments: TournamentRunner | None = None
    http: HttpGateway | None = None
    http_port: int | None = None
    archive: Archive | None = None
    matchmaker: Matchmaker | None = None
    sessions: Sessions | None = None
    quick_matchmaker: QuickMatchmaker | None = None

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def http_url(self) -> str | None:
        """The gateway's base URL on this machine (None: no gateway)."""
        if self.http is None or self.http_port is None:
            return None
        return f"{'https' if self.http.tls else 'http'}://127.0.0.1:{self.http_port}"

    async def stop(self, grace: float = DRAIN_SECONDS) -> None:
        """Drain, then stop (docs/operations.md, "Stopping"): new calls are refused at
        once, calls in flight get ``grace`` seconds (watch streams then end: clients
        resume with after_event_id), bot searches are stopped (their turns stay
        scheduled in the store), and the remaining steps share STOP_SECONDS. A step
        still running past its share is logged by name and left behind."""
        started = time.monotonic()
        deadline = started + grace + STOP_SECONDS
        if self.monitor is not None:
            await _bounded("the store monitor", self.monitor.stop(), deadline)
        await _bounded("health", self.health.enter_graceful_shutdown(), deadline)
        if self.http is not None:
            await _bounded("the HTTP gateway", self.http.stop(), deadline)
        await _bounded("the gRPC server", self.server.stop(grace), deadline)
        # Bots next: a search left running would hold up the process's exit.
        if self.matchmaker is not None:  # its lease is let go: another replica goes on
            await _bounded("the ladder", self.matchmaker.close(), deadline)
        if self.quick_matchmaker is not None:  # the same for quick play's queues
            await _bounded("quick play", self.quick_matchmaker.close(), deadline)
        if self.sessions is not None:
            await _bounded("the ladder's sessions", self.sessions.close(), deadline)
        if self.tournaments is not None:
            await _bounded("the tournament runner", self.tournaments.close(), deadline)
        await _bounded("the bot runner", self.runner.close(), deadline)
        await _bounded("the store prober", stop_prober(self.store_probe), deadline)
        await _bounded("the watch hub", self.host.hub.close(), deadline)
        for task in self.background:
            task.cancel()
        await _bounded("the store", self.store.close(), deadline)
        if self.archive is not None:
            self.archive.close()
        log.info("shutdown: drained and stopped in %.2f s", time.monotonic() - started)


async def _bounded(part: str, step, deadline: float) -> None:
    """Run one shutdown step until ``deadline`` (time.monotonic), or STEP_FLOOR_SECONDS
    once it has passed (a quick step still gets its turn on a busy loop); then log which
    part hung and go on (asyncio.wait, unlike wait_for, never waits on a task that
    ignores its cancellation)."""
    task = asyncio.ensure_future(step)
    timeout = max(STEP_FLOOR_SECONDS, deadline - time.monotonic())
    done, _ = await asyncio.wait({task}, timeout=timeout)
    if not done:
        task.cancel()
        log.warning("shutdown: %s did not stop in time; going on without it", part)
        return
    task.result()


async def start_server(config: ServerConfig, executor: BotExecutor | None = None) -> RunningServer:
    if config.ladder is not None and not config.archive_url:
        raise ValueError("--ladder keeps its bots and ratings in the archive: give --archive URL")
    archive = None
    if config.archive_url:
        # A schema behind this server's raises SchemaBehind (what to run) before anything starts.
        archive = await asyncio.to_thread(
            Archive.open, config.archive_url, create=config.archive_create
        )
    store = open_store(config.redis_url, config.redis_prefix, config.request_ttl)
    try:
        # Fail at start with one clear line rather than serve calls that all fail.
        await check_store(store, display(config.redis_url) if config.redis_url else "memory")
    except StoreUnreachable:
        await store.close()
        if archive is not None:
            archive.close()
        raise
    await store.settle_layout()  # before any key of its own: a new deployment is seen as new
    await store.set_archiving(archive is not None)
    if archive is not None and isinstance(store, MemoryStore):
        # Its games die with the process: a finish is archived before anyone sees it.
        store.archive_first(archive.put_game)
    if config.settings_line:
        log.info("serve settings: %s", config.settings_line)
    if config.warn_without_archive:
        log.warning(
            "no archive: finished games live only in Redis until --finished-retention; "
            "give every replica --archive postgresql://... (docs/archive.md)"
        )
    if executor is None:  # the embedded default (Celery's executor comes from workers.cli)
        executor = LocalPoolExecutor(config.bot_workers, config.max_search_iterations or None)
    runner = BotRunner(store, executor)
    host = GameHost(store, runner, config.live_games_per_client, archive)
    # Every rate limit counts in the store (its Redis: across replicas), on one limiter.
    counters = quotas.counters_for(store)
    failed_auth_burst = config.failed_auth_burst or 4 * config.failed_auth_rate
    interceptor = quotas.AccessInterceptor(
        access.load_api_keys(config.api_keys_file) if config.api_keys_file else None,
        quotas.RateLimit(
            counters, quotas.per_second(config.rate_limit, config.rate_burst, "requests")
        ),
        quotas.RateLimit(
            counters,
            quotas.per_second(config.failed_auth_rate, failed_auth_burst, "auth"),
        ),
        quotas.RateLimit(counters, quotas.per_minute(config.anonymous_exports, "export")),
    )
    # SO_REUSEPORT: several serving processes may share one port (gamehost serve --processes).
    # Pending-request caps far above grpc's default 1,000: a burst of thousands of
    # WatchGame streams opening at once over several connections was otherwise
    # answered CANCELLED for some of them.
    interceptors = [PrometheusServerInterceptor(), interceptor]
    server = grpc.aio.server(
        interceptors=interceptors,
        options=[
            ("grpc.so_reuseport", 1),
            ("grpc.server.max_pending_requests", 20_000),
            ("grpc.server.max_pending_requests_hard_limit", 40_000),
        ],
    )
    bounds = TournamentBounds(
        config.max_tournament_tables, config.max_tournament_games, config.max_tournament_entrants
    )
    tournament_runner = TournamentRunner(store, host, bounds)
    hints = HintService(
        host,
        executor,
        HintLimits(
            config.max_hint_iterations,
            config.max_hint_seconds,
            config.hint_rate,
            config.hint_burst,
        ),
        counters,
    )
    tournaments = TournamentService(store, tournament_runner, host.hub, bounds, archive)
    ladder = sessions = matchmaker = None
    archive_wake = Wake()  # a finished game to archive now (the ladder's, as it sees them)
    if config.ladder is not None and archive is not None:
        ladder = LadderService(archive, config.ladder)
        sessions = Sessions(ladder, host, on_finished=archive_wake.set, counters=counters)
        matchmaker = Matchmaker(
            ladder,
            host,
            on_games=sessions.kick,
            on_paused=sessions.let_go,
        )
    accounts = quick_play = quick_matchmaker = None
    if archive is not None:
        accounts = AccountService(archive.engine, config.accounts_per_hour)
        archive.on_archived.append(ratings.rate_archived)  # a rated game, once
        quick = config.quick_play
        if config.ladder is not None:  # the ladder's house levels fill quick play's seats
            quick = dataclasses.replace(quick, house=config.ladder.house)
        quick_matchmaker = QuickMatchmaker(
            store,
            host,
            accounts,
            archive.engine,
            quick,
            ladder=ladder,  # its registered bots fill quick play's seats too
            on_games=sessions.kick if sessions is not None else None,
        )
        calls = quotas.RateLimit(counters, quotas.per_minute(quick.calls_per_minute, "queue"))
        quick_play = QuickPlay(store, archive.engine, quick_matchmaker, quick, calls)
    servicer = GameHostServicer(host, tournaments, hints, ladder, sessions, accounts, quick_play)
    add_to_server(servicer, server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    enable_reflection([SERVICE_NAME, health.SERVICE_NAME], server)
    address = f"{config.host}:{config.port}"
    if config.tls_cert or config.tls_key:
        if not (config.tls_cert and config.tls_key):
            raise ValueError("TLS needs both --tls-cert and --tls-key")
        port = server.add_secure_port(
            address, tls.server_credentials(config.tls_cert, config.tls_key)
        )
    else:
        port = server.add_insecure_port(address)
    if port == 0:
        raise OSError(f"cannot listen on {config.host}:{config.port}")
    await server.start()
    http = http_port = None
    if config.http_port is not None:
        # The same handlers behind the same interceptors: one set of rules, limits, metrics.
        http = HttpGateway(Dispatcher(method_handlers(servicer), interceptors), _gateway(config))
        try:
            http_port = await http.start(config.host, config.http_port, _http_tls(config))
        except BaseException:
            await server.stop(0)
            await store.close()
            raise
    for name in ("", SERVICE_NAME):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    monitor = StoreMonitor(store, health_servicer, ("", SERVICE_NAME))
    monitor.start()
    # Sweeps the store's schedule of due bot turns: no client call is needed for bots
    # to move, also for turns left behind by replicas that died.
    runner.start()
    tournament_runner.start()  # the same for running tournaments
    if config.metrics_port is not None:
        start_metrics_server(config.metrics_port, config.host)
    running = RunningServer(
        server,
        port,
        host,
        store,
        runner,
        health_servicer,
        monitor=monitor,
        tournaments=tournament_runner,
        http=http,
        http_port=http_port,
        archive=archive,
        matchmaker=matchmaker,
        sessions=sessions,
        quick_matchmaker=quick_matchmaker,
    )
    if quick_matchmaker is not None:  # quick play's matchmaking, on whichever replica holds it
        quick_matchmaker.start()
    if matchmaker is not None:  # the ladder's matchmaking, on whichever replica holds it
        matchmaker.start()
    if archive is not None:  # finished games and ended tournaments into SQL
        archiving = archiver.archive_forever(
            store,
            archive,
            config.finished_retention,
            wake=archive_wake,
            on_archived=matchmaker.kick if matchmaker is not None else None,
        )
        running.background.append(asyncio.create_task(archiving))
    running.store_probe = asyncio.create_task(probe_forever(store))
    running.background.append(
        asyncio.create_task(
            expiry.sweep_forever(store, config.finished_retention, config.idle_expiry)
        )
    )
    return running


def _gateway(config: ServerConfig) -> GatewayConfig:
    web_dir = Path(config.http_web_dir) if config.http_web_dir else default_web_dir()
    if web_dir is None or not (web_dir / "index.html").is_file():
        log.warning("no web client (index.html) in %s: / shows a placeholder", web_dir or "web/")
    else:
        log.info("serving the web client from %s", web_dir)
    return GatewayConfig(web_dir, tuple(config.http_cors_origins), config.http_heartbeat)


def _http_tls(config: ServerConfig) -> ssl.SSLContext | None:
    """TLS for the HTTP gateway: the gRPC server's certificate, when it has one."""
    if not (config.tls_cert and config.tls_key):
        return None
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(config.tls_cert, config.tls_key)
    return context


async def serve(config: ServerConfig, executor: BotExecutor | None = None) -> None:
    """Run until SIGINT/SIGTERM."""
    # Handlers first: a SIGTERM sent as soon as the address is printed must drain too.
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    running = await start_server(config, executor)
    # What start-up made (modules, the servicer, the store) lives as long as the
    # process: out of the collector's sight, a full collection no longer walks it.
    gc.freeze()
    where = display(config.redis_url) if config.redis_url else "the in-memory store"
    print(f"gamehost serving on {config.host}:{running.port} with {where}", flush=True)
    if running.http is not None:
        scheme = "https" if running.http.tls else "http"
        host = "127.0.0.1" if config.host in ("0.0.0.0", "::", "") else config.host
        host = f"[{host}]" if ":" in host else host
        print(
            f"gamehost web client and HTTP API on {scheme}://{host}:{running.http_port}/",
            flush=True,
        )
    await stop.wait()
    await running.stop()


async def _end_tasks(timeout: float = 10.0) -> None:
    """Cancel the loop's other tasks and wait (at most ``timeout``) for them to end."""
    tasks = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
    for task in tasks:
        task.cancel()
    if tasks:
        await asyncio.wait(tasks, timeout=timeout)
    await asyncio.get_running_loop().shutdown_asyncgens()


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
        try:
            self.running = future.result(timeout=60)
        except BaseException:
            self.__exit__()  # stop the loop thread: a failed start leaves nothing running
            raise
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
        # As asyncio.run ends: what is still running (a stream's handler that the stop
        # cancelled but that has not unwound yet) ends before the loop closes.
        self.call(_end_tasks())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()
