"""The ``gamehost`` command line: serve, play, selfplay, games."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import queue
import sys
import threading
from collections.abc import Iterator

import grpc

from gamehost.client import Client, GameError, describe_actor
from gamehost.v1 import gamehost_pb2 as pb


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="gamehost", description="Board games with AI opponents.")
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="run the rules service")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=int, default=50051)
    serve.add_argument("--redis", metavar="URL", help="Redis URL (default: in-memory store)")
    serve.add_argument("--redis-prefix", default="gamehost", help="Redis key prefix")
    serve.add_argument("--bot-workers", type=int, help="local bot processes (default: CPUs)")
    serve.add_argument("--metrics-port", type=int, help="serve Prometheus metrics on this port")
    serve.add_argument(
        "--max-search-iterations",
        type=int,
        default=100_000,
        metavar="N",
        help="cap on one bot decision's search, trees x iterations (0: none; default 100000)",
    )
    serve.add_argument(
        "--processes",
        type=int,
        default=1,
        help="serving processes sharing the port (SO_REUSEPORT); more than 1 needs --redis",
    )
    serve.add_argument(
        "--celery", action="store_true", help="bot turns go to Celery workers (needs --redis)"
    )
    _limit_options(serve)
    serve.add_argument(
        "--celery-broker",
        metavar="URL",
        help="Celery broker (default: $GAMEHOST_CELERY_BROKER or --redis)",
    )

    worker = commands.add_parser("worker", help="run a Celery worker for bot searches")
    worker.add_argument(
        "--broker", metavar="URL", help="Celery broker (default: $GAMEHOST_CELERY_BROKER)"
    )
    worker.add_argument("--concurrency", type=int, help="worker processes (default: CPUs)")
    worker.add_argument("--loglevel", default="INFO")
    worker.add_argument("--hostname", help="worker node name (default: celery@HOST)")
    worker.add_argument(
        "--metrics-port", type=int, help="serve the worker's Prometheus metrics on this port"
    )
    worker.add_argument("--metrics-host", default="0.0.0.0", help="address for --metrics-port")

    health_check = commands.add_parser(
        "health", help="ask a server's gRPC health service; exit 0 when SERVING"
    )
    health_check.add_argument("--target", metavar="HOST:PORT", default="127.0.0.1:50051")
    health_check.add_argument("--service", default="", help="service name (default: overall)")
    health_check.add_argument("--timeout", type=float, default=3.0, metavar="SECONDS")

    play = commands.add_parser("play", help="play one seat in the terminal against bots")
    play.add_argument("game")
    play.add_argument("--players", type=int, required=True)
    play.add_argument("--bots", default="random", metavar="LEVEL", help="level of the bot seats")
    play.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    play.add_argument("--seed", type=int)
    play.add_argument("--target", metavar="HOST:PORT", help="a running server (default: embedded)")
    play.add_argument(
        "--private", action="store_true", help="unlisted game; seats only by invite code"
    )
    play.add_argument("--no-spectators", action="store_true", help="refuse spectators")
    _remote_options(play)

    selfplay = commands.add_parser("selfplay", help="play one game of bots through the service")
    selfplay.add_argument("game")
    selfplay.add_argument("--players", type=int, required=True)
    selfplay.add_argument("--seed", type=int, required=True)
    selfplay.add_argument("--bot", default="random", metavar="LEVEL")
    where = selfplay.add_mutually_exclusive_group()
    where.add_argument("--redis", metavar="URL", help="embedded server on this Redis")
    where.add_argument("--target", metavar="HOST:PORT", help="a running server")
    selfplay.add_argument("--redis-prefix", default="gamehost", help="Redis key prefix")
    _remote_options(selfplay)

    board = commands.add_parser("board", help="print a board map with the ids notation uses")
    board.add_argument("game", choices=["catan"])
    board.add_argument(
        "--seed", type=int, help="show the board this seed deals (default: ids only)"
    )
    board.add_argument("--beginner", action="store_true", help="the beginner layout")

    games = commands.add_parser("games", help="list the game types a server hosts")
    games.add_argument("--target", metavar="HOST:PORT")
    _remote_options(games)

    args = parser.parse_args(argv)
    try:
        handlers = {
            "serve": _serve,
            "worker": _worker,
            "play": _play,
            "selfplay": _selfplay,
            "games": _games,
            "board": _board,
            "health": _health,
        }
        return handlers[args.command](args)
    except GameError as exc:
        print(f"gamehost: {exc}", file=sys.stderr)
        return 1
    except (KeyboardInterrupt, EOFError):
        print("\ngamehost: stopped", file=sys.stderr)
        return 130


def _remote_options(parser: argparse.ArgumentParser) -> None:
    """How to reach a --target server: TLS and an API key."""
    parser.add_argument("--tls", action="store_true", help="connect to --target over TLS")
    parser.add_argument(
        "--ca-file", metavar="PEM", help="trust this CA for --tls (default: system CAs)"
    )
    parser.add_argument(
        "--api-key",
        default=os.environ.get("GAMEHOST_API_KEY"),
        help="API key for --target (default: $GAMEHOST_API_KEY)",
    )


def _limit_options(serve: argparse.ArgumentParser) -> None:
    """``serve``'s limits and access control (docs/operations.md: Limits and access)."""
    day = 86400.0
    serve.add_argument(
        "--finished-retention",
        type=float,
        default=7 * day,
        metavar="SECONDS",
        help="keep finished games this long (default 7 days)",
    )
    serve.add_argument(
        "--idle-expiry",
        type=float,
        default=30 * day,
        metavar="SECONDS",
        help="delete unfinished games idle this long (default 30 days)",
    )
    serve.add_argument(
        "--request-ttl",
        type=float,
        default=day,
        metavar="SECONDS",
        help="remember request ids for retries this long (default 1 day)",
    )
    serve.add_argument(
        "--rate-limit",
        type=float,
        default=200.0,
        metavar="PER_SECOND",
        help="requests a second per client and replica; 0: off (default 200)",
    )
    serve.add_argument("--rate-burst", type=float, default=1000.0, help="bucket size (1000)")
    serve.add_argument(
        "--failed-auth-rate",
        type=float,
        default=5.0,
        metavar="PER_SECOND",
        help="wrong tokens a second per client before refusing (default 5)",
    )
    serve.add_argument(
        "--live-games-per-client",
        type=int,
        default=1000,
        metavar="N",
        help="unfinished games one key/address may own; 0: no cap (1000)",
    )
    serve.add_argument(
        "--api-keys", metavar="FILE", help="require an API key (metadata x-api-key) to create games"
    )
    serve.add_argument("--tls-cert", metavar="PEM", help="serve TLS with this certificate")
    serve.add_argument("--tls-key", metavar="PEM", help="the certificate's private key")


def _limit_config(args: argparse.Namespace) -> dict:
    names = (
        "finished_retention",
        "idle_expiry",
        "request_ttl",
        "rate_limit",
        "rate_burst",
        "failed_auth_rate",
        "live_games_per_client",
        "tls_cert",
        "tls_key",
    )
    return {"api_keys_file": args.api_keys, **{n: getattr(args, n) for n in names}}


@contextlib.contextmanager
def _connect(
    target: str | None,
    redis_url: str | None = None,
    redis_prefix: str = "gamehost",
    *,
    args: argparse.Namespace | None = None,
) -> Iterator[Client]:
    """A client for ``target``, or for an embedded server started for the occasion."""
    if target:
        remote = {
            "tls": getattr(args, "tls", False),
            "ca_file": getattr(args, "ca_file", None),
            "api_key": getattr(args, "api_key", None),
        }
        with Client(target, **remote) as client:
            client.wait_ready(timeout=3.0)  # one clear line within 5 s when nobody answers
            yield client
        return
    from services.server import ServerConfig, ServerThread
    from services.store_health import StoreUnreachable

    with contextlib.ExitStack() as stack:
        config = ServerConfig(port=0, redis_url=redis_url, redis_prefix=redis_prefix)
        try:
            server = stack.enter_context(ServerThread(config))
        except StoreUnreachable as exc:
            raise GameError(grpc.StatusCode.UNAVAILABLE, str(exc)) from None
        yield stack.enter_context(Client(server.target))


def _serve(args: argparse.Namespace) -> int:
    import logging

    if args.celery:
        if not args.redis:
            print("gamehost: --celery needs --redis URL", file=sys.stderr)
            return 2
        # The Celery app reads its broker when first imported.
        broker = args.celery_broker or os.environ.get("GAMEHOST_CELERY_BROKER") or args.redis
        os.environ["GAMEHOST_CELERY_BROKER"] = broker
    if args.processes > 1:
        return _serve_processes(args)
    if args.metrics_port is not None and os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from services.metrics_export import prepare_multiprocess_dir

        prepare_multiprocess_dir()  # a restarted container's old samples must not add up
    from services.server import ServerConfig, run, serve

    logging.basicConfig(level=logging.INFO)
    config = ServerConfig(
        host=args.host,
        port=args.port,
        redis_url=args.redis,
        redis_prefix=args.redis_prefix,
        bot_workers=args.bot_workers,
        metrics_port=args.metrics_port,
        celery=args.celery,
        **_limit_config(args),
        max_search_iterations=args.max_search_iterations,
    )
    from services.store_health import StoreUnreachable

    try:
        run(serve(config))
    except StoreUnreachable as exc:
        print(f"gamehost: {exc}", file=sys.stderr)
        return 1
    return 0


def _serve_processes(args: argparse.Namespace) -> int:
    """Run ``--processes`` copies of the server on one port: Python serves one core per
    process, and the kernel spreads connections across them. They share Redis."""
    import signal
    import subprocess

    if not args.redis:
        print(
            "gamehost: --processes needs --redis: processes share games through it", file=sys.stderr
        )
        return 2
    if args.port == 0:
        print("gamehost: --processes needs a fixed --port", file=sys.stderr)
        return 2
    if args.metrics_port is not None:
        # One scrape endpoint for the group: the children write samples to files.
        from services.metrics_export import prepare_multiprocess_dir, start_metrics_server

        prepare_multiprocess_dir()
        start_metrics_server(args.metrics_port, args.host)
    workers = args.bot_workers or max(1, (os.cpu_count() or 1) // args.processes)
    argv = ["serve", "--host", args.host, "--port", str(args.port), "--redis", args.redis]
    argv += ["--redis-prefix", args.redis_prefix, "--bot-workers", str(workers)]
    for name, value in _limit_config(args).items():
        if value is not None:
            flag = "--api-keys" if name == "api_keys_file" else "--" + name.replace("_", "-")
            argv += [flag, str(value)]
    argv += ["--max-search-iterations", str(args.max_search_iterations)]
    if args.celery:
        argv += [
            "--celery",
            *(["--celery-broker", args.celery_broker] if args.celery_broker else []),
        ]
    children = [
        subprocess.Popen([sys.executable, "-m", "gamehost.cli", *argv])
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
            from services.metrics_export import mark_process_dead

            mark_process_dead(child.pid)
    return max(codes)


def _worker(args: argparse.Namespace) -> int:
    if args.broker:
        os.environ["GAMEHOST_CELERY_BROKER"] = args.broker
    if args.metrics_port is not None:
        # Before anything defines a metric: prefork children write samples to files
        # that the exporter in this main process aggregates.
        from services.metrics_export import prepare_multiprocess_dir, start_metrics_server

        prepare_multiprocess_dir()
        start_metrics_server(args.metrics_port, args.metrics_host)
    from workers.app import QUEUE, app

    argv = ["worker", f"--loglevel={args.loglevel}", "-Q", QUEUE, "--pool", "prefork"]
    if args.concurrency:
        argv.append(f"--concurrency={args.concurrency}")
    if args.hostname:
        argv.append(f"--hostname={args.hostname}")
    app.worker_main(argv)
    return 0


def _health(args: argparse.Namespace) -> int:
    """One line out; exit 0 when SERVING, 1 when answered otherwise, 2 when unreachable."""
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    what = f"{args.target} {args.service or '(overall)'}"
    with grpc.insecure_channel(args.target) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        try:
            reply = stub.Check(
                health_pb2.HealthCheckRequest(service=args.service), timeout=args.timeout
            )
        except grpc.RpcError as exc:
            print(f"{what}: {exc.code().name} {exc.details() or ''}".rstrip())
            return 2
    status = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
    print(f"{what}: {status}")
    return 0 if reply.status == health_pb2.HealthCheckResponse.SERVING else 1


def _games(args: argparse.Namespace) -> int:
    with _connect(args.target, args=args) as client:
        reply = client.game_types()
        for game in reply.game_types:
            print(f"{game.name:10} {game.min_players}-{game.max_players} players  {game.summary}")
        print("bot levels:", ", ".join(reply.bot_levels))
    return 0


def _board(args: argparse.Namespace) -> int:
    from games import get_game
    from games.catan.board import render_map

    state = None
    if args.seed is not None or args.beginner:
        options = {"board": "beginner"} if args.beginner else {}
        state = get_game(args.game).new_game(4, args.seed or 0, options)
    print(render_map(state), end="")
    return 0


def _selfplay(args: argparse.Namespace) -> int:
    with _connect(args.target, args.redis, args.redis_prefix, args=args) as client:
        created = client.create_game(args.game, [f"bot:{args.bot}"] * args.players, seed=args.seed)
        game_id = created.game_id
        for _ in client.watch(game_id):
            pass  # the stream ends once the game is finished
        record = client.record(game_id)
    result = {
        "game": args.game,
        "players": args.players,
        "seed": args.seed,
        "bot": args.bot,
        "actions": len(record.entries),
        "terminal": record.status == pb.FINISHED,
        "returns": list(record.returns),
    }
    print(json.dumps(result))
    return 0


def _play(args: argparse.Namespace) -> int:
    from gamehost.render import render

    seats = [f"bot:{args.bots}"] * args.players
    if not 0 <= args.seat < args.players:
        print(f"gamehost: --seat must be 0..{args.players - 1}", file=sys.stderr)
        return 2
    seats[args.seat] = "human:you"
    with _connect(args.target, args=args) as client:
        created = client.create_game(
            args.game,
            seats,
            seed=args.seed,
            private=args.private,
            spectators=False if args.no_spectators else None,
        )
        codes = {c.seat: c.code for c in created.invite_codes}
        me = client.join(created.game_id, args.seat, invite_code=codes.get(args.seat, ""))
        print(f"game {created.game_id}: you are seat {me.seat}")
        feed = _EventFeed(client, me)
        while True:
            state = client.state(me.game_id, me.token)
            if state.status == pb.FINISHED:
                feed.finish()
                print(render(state))
                outcome = state.returns[me.seat]
                print("you win!" if outcome == 1 else "shared win" if outcome > 0 else "you lose")
                return 0
            if not state.legal_actions:
                feed.wait()  # others are moving: look again after the next event
                continue
            feed.show_pending()
            print(render(state))
            for index, action in enumerate(state.legal_actions):
                print(f"  {index:>2}. {action.notation}")
            choice = input("your move (number or notation): ").strip()
            action = (
                state.legal_actions[int(choice)].id
                if choice.isdigit() and int(choice) < len(state.legal_actions)
                else choice
            )
            try:
                client.submit(me.game_id, me.token, action, expected_version=state.version)
            except GameError as exc:
                print(exc.details)


class _EventFeed:
    """The game's events, received on a thread and printed by the main thread only,
    so event lines never interleave with prompts or the final result."""

    _END = None

    def __init__(self, client: Client, me) -> None:
        self._events: queue.Queue = queue.Queue()
        self._ended = False

        def pump() -> None:
            for event in client.watch(me.game_id, me.token):
                self._events.put(event)
            self._events.put(self._END)

        threading.Thread(target=pump, daemon=True).start()

    def _show(self, event) -> None:
        if event is self._END:
            self._ended = True
        elif event.kind == pb.ACTION:
            print(f"  [{describe_actor(event.actor)}] {event.notation}")

    def wait(self) -> None:
        """Block until the next event, then print it."""
        if self._ended:
            raise RuntimeError("the event stream ended before the game did")
        self._show(self._events.get())

    def show_pending(self) -> None:
        while not self._events.empty():
            self._show(self._events.get())

    def finish(self) -> None:
        """Print everything up to the end of the stream (it ends with the game)."""
        while not self._ended:
            self._show(self._events.get())


if __name__ == "__main__":
    sys.exit(main())
