"""The server side of the ``gamehost`` command line: ``serve``, ``worker``, ``db``,
``store``, ``export``, the board ``board`` draws and the embedded server that ``play``
and ``selfplay`` start when given no ``--target``. ``gamehost.cli`` finds this module by
the server distribution's entry point (``gamehost.server``: ``commands``, in
pyproject.toml) only when a command needs it, so the client installs without the server
and never names it. The flags of ``serve``, ``worker``, ``db`` and ``store`` are parsed
here (their settings: services/settings.py, workers/settings.py); ``export``'s parser is
the client's, to which ``add_export_options`` adds the server's.

It lives here, in the top layer, because ``serve --celery`` wires the service to the
Celery workers: nothing below may import ``workers``."""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

from google.protobuf.message import Message

if TYPE_CHECKING:
    from services.settings import ServerSettings
    from workers.settings import WorkerSettings

# Nothing from services at module level: importing it defines the Prometheus metrics,
# and ``serve``/``worker`` must prepare the multiprocess directory before that.

__all__ = [
    "EmbeddedServerUnavailable",
    "add_export_options",
    "db",
    "dealt_board",
    "embedded_server",
    "export",
    "serve",
    "store",
    "worker",
]


class EmbeddedServerUnavailable(Exception):
    """The embedded server could not start: its store does not answer."""


@contextlib.contextmanager
def embedded_server(redis_url: str | None = None, redis_prefix: str = "gamehost") -> Iterator[str]:
    """A server on a free local port for the occasion (in-memory store unless
    ``redis_url``); yields its target."""
    from services.observe.store_health import StoreUnreachable
    from services.server import ServerConfig, ServerThread

    config = ServerConfig(port=0, redis_url=redis_url, redis_prefix=redis_prefix)
    with contextlib.ExitStack() as stack:
        try:
            server = stack.enter_context(ServerThread(config))
        except StoreUnreachable as exc:
            raise EmbeddedServerUnavailable(str(exc)) from None
        yield server.target


def _shown(settings: ServerSettings) -> str:
    """The settings as one JSON object for the start line, URLs without passwords."""
    from services.stores.redis_connect import display

    urls = ("redis", "archive", "celery_broker")
    hidden = {n: display(v) for n in urls if (v := getattr(settings, n))}
    return settings.model_copy(update=hidden).model_dump_json()


def _store_url(args: ServerSettings | argparse.Namespace) -> str | None:
    """The one store URL ``--redis``, ``--redis-sentinel``/``--redis-service``,
    ``--redis-cluster`` and ``--redis-min-replicas`` describe (None: in memory); raise
    BadRedisUrl on a contradiction."""
    from services.stores import redis_connect as rc

    given = [
        name for name in ("redis", "redis_sentinel", "redis_cluster") if getattr(args, name, None)
    ]
    if len(given) > 1:
        raise rc.BadRedisUrl("give one of --redis, --redis-sentinel and --redis-cluster")
    if args.redis_service and not args.redis_sentinel:
        raise rc.BadRedisUrl("--redis-service goes with --redis-sentinel")
    url = args.redis
    if args.redis_sentinel:
        if not args.redis_service:
            raise rc.BadRedisUrl("--redis-sentinel needs --redis-service NAME")
        url = rc.sentinel_url(args.redis_sentinel, args.redis_service)
    elif getattr(args, "redis_cluster", None):
        url = rc.cluster_url(args.redis_cluster)
    min_replicas = getattr(args, "redis_min_replicas", 0)
    if url is None:
        if min_replicas:
            raise rc.BadRedisUrl("--redis-min-replicas needs a Redis (--redis or --redis-sentinel)")
        return None
    target = rc.parse(url)  # a bad URL fails here, in one line
    if min_replicas:
        if target.durability.min_replicas:
            raise rc.BadRedisUrl("give min_replicas in the URL or --redis-min-replicas, not both")
        url = rc.with_durability(url, rc.Durability(min_replicas, args.redis_wait_timeout))
        rc.parse(url)  # what the flags make together must hold too
    return url


def _resolve_redis(settings: ServerSettings) -> ServerSettings | None:
    """The settings with the one store URL in ``redis`` (the children of ``--processes``
    get it as given); None after saying what is wrong."""
    from services.stores.redis_connect import BadRedisUrl

    try:
        url = _store_url(settings)
    except BadRedisUrl as exc:
        print(f"gamehost: {exc}", file=sys.stderr)
        return None
    resolved = {"redis": url, "redis_min_replicas": 0}
    return settings.model_copy(
        update={**resolved, "redis_sentinel": None, "redis_service": None, "redis_cluster": None}
    )


def _serve_settings(argv: list[str]) -> ServerSettings | None:
    """``serve``'s settings: a child of ``--processes`` has them whole from its parent,
    else they come from ``argv``, the environment and the defaults. None after saying
    what is wrong."""
    from services.settings import CHILD_SETTINGS_ENV, ServerSettings, add_arguments, from_arguments

    given = os.environ.pop(CHILD_SETTINGS_ENV, None)
    if given is not None:
        return ServerSettings.model_validate_json(given)
    parser = argparse.ArgumentParser(prog="gamehost serve", description="run the rules service")
    add_arguments(parser)
    try:
        return from_arguments(parser.parse_args(argv))
    except ValueError as exc:
        print(f"gamehost: {exc}", file=sys.stderr)
        return None


def serve(argv: list[str]) -> int:
    """``gamehost serve ARGS`` (the client hands over its arguments as they came)."""
    settings = _serve_settings(argv)
    args = settings and _resolve_redis(settings)
    if args is None:
        return 2
    if args.celery:
        if not args.redis:
            print("gamehost: --celery needs --redis URL", file=sys.stderr)
            return 2
        # The Celery app reads its broker when first imported; by default the store's
        # Redis (or Sentinel set), where bot turns are queued.
        from services.stores.redis_connect import base_url, parse

        broker = args.celery_broker or os.environ.get("GAMEHOST_CELERY_BROKER")
        if broker is None and parse(args.redis).kind == "cluster":
            print(
                "gamehost: Celery cannot use a Redis Cluster as its broker: give "
                "--celery-broker (a single Redis or a redis+sentinel:// set)",
                file=sys.stderr,
            )
            return 2
        broker = broker or base_url(args.redis)
        os.environ["GAMEHOST_CELERY_BROKER"] = broker
    if args.processes > 1:
        return _serve_processes(args)
    if args.metrics_port is not None and os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from services.observe.metrics_export import prepare_multiprocess_dir

        prepare_multiprocess_dir()  # a restarted container's old samples must not add up
    from services.archive.database import SchemaBehind
    from services.observe.store_health import StoreUnreachable
    from services.server import EXTRA_GAMES_ENV, ServerConfig, register_extra_games, run
    from services.server import serve as serve_forever
    from services.settings import ServeOptions

    try:
        register_extra_games(os.environ.get(EXTRA_GAMES_ENV, ""))
    except ValueError as exc:
        print(f"gamehost: {exc}", file=sys.stderr)
        return 2

    logging.basicConfig(level=logging.INFO)
    archive_url, archive_create = _archive_url(args.archive, args.redis)
    try:
        ladder = _ladder_config(args)
        quick_play = _quick_play_config(args)
    except ValueError as exc:
        print(f"gamehost: {exc}", file=sys.stderr)
        return 2
    if ladder is not None and archive_url is None:
        print(
            "gamehost: --ladder keeps bots and ratings in the archive: give --archive URL",
            file=sys.stderr,
        )
        return 2
    config = ServerConfig(
        # The settings a serving process takes as given, then what serve resolved.
        **args.model_dump(include=set(ServeOptions.model_fields)),
        redis_url=args.redis,
        api_keys_file=args.api_keys,
        http_cors_origins=tuple(args.http_cors_origin),
        archive_url=archive_url,
        archive_create=archive_create,
        # Said once the store answers: a start that fails says only why (one line).
        warn_without_archive=archive_url is None and args.archive is None,
        settings_line=_shown(args),
        ladder=ladder,
        quick_play=quick_play,
    )
    executor = None
    if args.celery:
        from workers.executor import CeleryExecutor

        executor = CeleryExecutor(args.redis, args.redis_prefix, args.max_search_iterations or None)
    try:
        run(serve_forever(config, executor))
    except (StoreUnreachable, SchemaBehind) as exc:
        print(f"gamehost: {exc}", file=sys.stderr)
        return 1
    return 0


def _quick_play_config(args: ServerSettings):
    """``--quick-play-...`` as a QuickPlayConfig; ValueError naming an unknown level."""
    from bots.levels import get_level
    from services.matchmaking.config import QuickPlayConfig

    for level in args.quick_play_house.split(","):
        if level.strip():
            get_level(level.strip())  # ValueError names the known ones
    return QuickPlayConfig(
        wait=args.quick_play_wait,
        per_queue=args.quick_play_queue,
        total=args.quick_play_queues,
        calls_per_minute=args.quick_play_calls,
        move_seconds=args.quick_play_move_seconds,
        house=tuple(level.strip() for level in args.quick_play_house.split(",") if level.strip()),
    )


def _ladder_config(args: ServerSettings):
    """``--ladder ...`` as a LadderConfig (None: no ladder); ValueError saying what is wrong."""
    from services.errors import InvalidArgument
    from services.ladder.model import LadderConfig, LadderSpec

    if not args.ladder:
        return None
    try:
        specs = tuple(dict.fromkeys(LadderSpec.parse(text, "--ladder") for text in args.ladder))
    except InvalidArgument as exc:
        raise ValueError(f"--ladder {exc}") from None
    house = tuple(level.strip() for level in args.ladder_house.split(",") if level.strip())
    return LadderConfig(
        ladders=specs,
        house=house,
        move_seconds=args.ladder_move_seconds,
        max_faults=args.ladder_max_faults,
        tables=args.ladder_tables,
        house_tables=args.ladder_house_tables,
        bot_concurrency=args.ladder_bot_concurrency,
        daily_games=args.ladder_bot_daily_games,
        registrations_per_hour=args.ladder_registrations,
    ).check()


def _archive_url(given: str | None, redis_url: str | None = None) -> tuple[str | None, bool]:
    """(the archive URL or None for off, whether serve may make its schema). With no
    --archive, the embedded server (no --redis) archives into SQLite in the data
    directory, made and upgraded by serve itself; replicas on Redis have no default
    (each would keep a file of its own): they are given a shared database, which
    ``gamehost db upgrade`` migrates."""
    from services.archive.database import OFF, default_url

    if given is None:
        return (None, False) if redis_url else (default_url(), True)
    return (None, False) if given == OFF else (given, False)


def _archive_option(parser: argparse.ArgumentParser) -> None:
    """``--archive URL``, as ``serve`` defines it (no environment variable here)."""
    from services.settings import ServerSettings, add_arguments

    add_arguments(parser, ServerSettings, only=("archive",))
    parser.set_defaults(archive=None)


def db(argv: list[str]) -> int:
    """``gamehost db upgrade``: the archive's migrations, up to the newest."""
    from services.archive import database

    parser = argparse.ArgumentParser(prog="gamehost db")
    db_commands = parser.add_subparsers(dest="db_command", required=True)
    _archive_option(
        db_commands.add_parser("upgrade", help="run the archive's migrations up to date")
    )
    args = parser.parse_args(argv)
    url, _ = _archive_url(args.archive)
    if url is None:
        print("gamehost: db upgrade needs an archive, not --archive none", file=sys.stderr)
        return 2
    engine = database.make_engine(url)
    try:
        before = database.upgrade(engine)
        after = database.current_revision(engine)
    finally:
        engine.dispose()
    print(f"archive schema: {before or 'empty'} -> {after}")
    return 0


def store(argv: list[str]) -> int:
    """``gamehost store upgrade``: the deployment writes the newest layout from now on
    (docs/capacity.md#layouts)."""
    import asyncio

    from redis.exceptions import RedisError

    from services.settings import ServerSettings, add_arguments
    from services.stores.redis_store import RedisStore

    parser = argparse.ArgumentParser(prog="gamehost store")
    store_commands = parser.add_subparsers(dest="store_command", required=True)
    layout = store_commands.add_parser(
        "upgrade",
        help="write the newest layout (once every replica and worker runs this release)",
    )
    layout.add_argument("--redis", metavar="URL", required=True, help="Redis URL")
    add_arguments(layout, ServerSettings, only=("redis_prefix",))
    layout.set_defaults(redis_prefix=ServerSettings.model_fields["redis_prefix"].default)
    args = parser.parse_args(argv)

    async def upgrade() -> tuple[int, int]:
        redis_store = RedisStore.from_url(args.redis, args.redis_prefix)
        try:
            return await redis_store.upgrade_layout()
        finally:
            await redis_store.close()

    try:
        before, after = asyncio.run(upgrade())
    except (RedisError, OSError) as exc:
        print(f"gamehost: Redis at {args.redis} did not answer: {exc}", file=sys.stderr)
        return 1
    print(f"store layout: {before} -> {after}")
    return 0


def add_export_options(parser: argparse.ArgumentParser) -> None:
    """The server's flags of ``gamehost export``, added to the client's parser of it (the
    client parses its filters and ``--target``, and hands the rest here)."""
    _archive_option(parser)


def export(args: argparse.Namespace) -> int:
    """``gamehost export``: the archive's games as NDJSON on stdout (docs/export.md)."""
    import asyncio

    from services.archive.archive import Archive
    from services.archive.database import SchemaBehind
    from services.archive.export import BadExportQuery, ExportQuery, export_lines
    from services.ladder.schema import games_of

    url, _ = _archive_url(args.archive)
    if url is None:
        print("gamehost: export needs an archive, not --archive none", file=sys.stderr)
        return 2
    fields = {"game": args.game, "since": args.since, "player": args.player}
    fields["tournament"] = args.tournament
    fields["bot"] = args.bot
    try:
        query = ExportQuery.parse({k: v for k, v in fields.items() if v})
        archive = Archive.open(url)
    except (BadExportQuery, SchemaBehind) as exc:
        print(f"gamehost: {exc}", file=sys.stderr)
        return 2 if isinstance(exc, BadExportQuery) else 1

    async def write() -> None:
        async for line in export_lines(archive, query, games_of):
            sys.stdout.write(line)
        sys.stdout.flush()

    try:
        asyncio.run(write())
    except BrokenPipeError:  # `| head`: the reader has had enough
        sys.stderr.close()
    finally:
        archive.close()
    return 0


def _serve_processes(args: ServerSettings) -> int:
    """Run ``--processes`` copies of the server on one port: Python serves one core per
    process, and the kernel spreads connections across them. They share Redis."""
    if not args.redis:
        print(
            "gamehost: --processes needs --redis: processes share games through it", file=sys.stderr
        )
        return 2
    if args.port == 0 or args.http_port == 0:
        print(
            "gamehost: --processes needs a fixed --port (and --http-port)",
            file=sys.stderr,
        )
        return 2
    if args.metrics_port is not None:
        # One scrape endpoint for the group: the children write samples to files.
        from services.observe.metrics_export import prepare_multiprocess_dir, start_metrics_server

        prepare_multiprocess_dir()
        start_metrics_server(args.metrics_port, args.host)
    from services.archive.database import OFF
    from services.settings import CHILD_SETTINGS_ENV

    archive_url, archive_create = _archive_url(args.archive, args.redis)
    if archive_url is not None and archive_create:
        # The embedded archive's schema is made here once, not raced by the children.
        from services.archive import database

        engine = database.make_engine(archive_url)
        database.upgrade(engine)
        engine.dispose()
    # Every child serves with the parent's settings (the ladder too: one holds its
    # matchmaker), but alone, with its share of the CPUs, the archive as resolved here
    # and no metrics port of its own: this process serves the group's metrics.
    child = args.model_copy(
        update={
            "processes": 1,
            "bot_workers": args.bot_workers or max(1, (os.cpu_count() or 1) // args.processes),
            "archive": archive_url or OFF,
            "metrics_port": None,
        }
    )
    env = {**os.environ, CHILD_SETTINGS_ENV: child.model_dump_json()}
    children = [
        subprocess.Popen([sys.executable, "-m", "gamehost.cli", "serve"], env=env)
        for _ in range(args.processes)
    ]

    def stop(signum, frame) -> None:
        for child in children:
            child.send_signal(signal.SIGTERM)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    codes = []
    for child in children:
        codes.append(child.wait())
        if args.metrics_port is not None:
            from services.observe.metrics_export import mark_process_dead

            mark_process_dead(child.pid)
    return max(codes)


def _worker_settings(argv: list[str]) -> WorkerSettings | None:
    """``worker``'s settings from ``argv``, the environment and the defaults; None after
    saying what is wrong."""
    from services.settings import add_arguments, from_arguments
    from workers.settings import WorkerSettings

    parser = argparse.ArgumentParser(prog="gamehost worker")
    add_arguments(parser, WorkerSettings)
    try:
        return from_arguments(parser.parse_args(argv), WorkerSettings)
    except ValueError as exc:
        print(f"gamehost: {exc}", file=sys.stderr)
        return None


def worker(argv: list[str]) -> int:
    """``gamehost worker ARGS`` (the client hands over its arguments as they came)."""
    args = _worker_settings(argv)
    if args is None:
        return 2
    if args.redis_service and not args.redis_sentinel:
        print("gamehost: --redis-service goes with --redis-sentinel", file=sys.stderr)
        return 2
    if args.redis_sentinel:
        # The same Sentinel set as the serving replicas' (their default broker).
        from services.stores.redis_connect import BadRedisUrl, sentinel_url

        if args.broker or not args.redis_service:
            print(
                "gamehost: --redis-sentinel needs --redis-service NAME, and no --broker",
                file=sys.stderr,
            )
            return 2
        try:
            args.broker = sentinel_url(args.redis_sentinel, args.redis_service)
        except BadRedisUrl as exc:
            print(f"gamehost: {exc}", file=sys.stderr)
            return 2
    if args.broker:
        os.environ["GAMEHOST_CELERY_BROKER"] = args.broker
    if args.metrics_port is not None:
        # Before anything defines a metric: prefork children write samples to files
        # that the exporter in this main process aggregates.
        from services.observe.metrics_export import prepare_multiprocess_dir, start_metrics_server

        prepare_multiprocess_dir()
        start_metrics_server(args.metrics_port, args.metrics_host)
    from workers.app import QUEUE, app

    celery_argv = ["worker", f"--loglevel={args.loglevel}", "-Q", QUEUE, "--pool", "prefork"]
    if args.concurrency:
        celery_argv.append(f"--concurrency={args.concurrency}")
    if args.hostname:
        celery_argv.append(f"--hostname={args.hostname}")
    app.worker_main(celery_argv)
    return 0


def dealt_board(args: argparse.Namespace) -> Message:
    """The map of a game as dealt, a spectator's view; ``gamehost board`` draws it with
    the client's renderer."""
    from services.views import dealt_view

    options = {"board": "beginner"} if args.beginner else {}
    return dealt_view(args.game, 4, args.seed or 0, options)
