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

from gamehost.client import Client, GameError
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

    play = commands.add_parser("play", help="play one seat in the terminal against bots")
    play.add_argument("game")
    play.add_argument("--players", type=int, required=True)
    play.add_argument("--bots", default="random", metavar="LEVEL", help="level of the bot seats")
    play.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    play.add_argument("--seed", type=int)
    play.add_argument("--target", metavar="HOST:PORT", help="a running server (default: embedded)")

    selfplay = commands.add_parser("selfplay", help="play one game of bots through the service")
    selfplay.add_argument("game")
    selfplay.add_argument("--players", type=int, required=True)
    selfplay.add_argument("--seed", type=int, required=True)
    selfplay.add_argument("--bot", default="random", metavar="LEVEL")
    where = selfplay.add_mutually_exclusive_group()
    where.add_argument("--redis", metavar="URL", help="embedded server on this Redis")
    where.add_argument("--target", metavar="HOST:PORT", help="a running server")
    selfplay.add_argument("--redis-prefix", default="gamehost", help="Redis key prefix")

    board = commands.add_parser("board", help="print a board map with the ids notation uses")
    board.add_argument("game", choices=["catan"])
    board.add_argument(
        "--seed", type=int, help="show the board this seed deals (default: ids only)"
    )
    board.add_argument("--beginner", action="store_true", help="the beginner layout")

    games = commands.add_parser("games", help="list the game types a server hosts")
    games.add_argument("--target", metavar="HOST:PORT")

    args = parser.parse_args(argv)
    try:
        handlers = {
            "serve": _serve,
            "worker": _worker,
            "play": _play,
            "selfplay": _selfplay,
            "games": _games,
            "board": _board,
        }
        return handlers[args.command](args)
    except GameError as exc:
        print(f"gamehost: {exc}", file=sys.stderr)
        return 1
    except (KeyboardInterrupt, EOFError):
        print("\ngamehost: stopped", file=sys.stderr)
        return 130


@contextlib.contextmanager
def _connect(
    target: str | None, redis_url: str | None = None, redis_prefix: str = "gamehost"
) -> Iterator[Client]:
    """A client for ``target``, or for an embedded server started for the occasion."""
    if target:
        with Client(target) as client:
            client.wait_ready()
            yield client
        return
    from services.server import ServerConfig, ServerThread

    with (
        ServerThread(
            ServerConfig(port=0, redis_url=redis_url, redis_prefix=redis_prefix)
        ) as server,
        Client(server.target) as client,
    ):
        yield client


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
        max_search_iterations=args.max_search_iterations,
    )
    run(serve(config))
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
    if args.port == 0 or args.metrics_port is not None:
        print("gamehost: --processes needs a fixed --port and no --metrics-port", file=sys.stderr)
        return 2
    workers = args.bot_workers or max(1, (os.cpu_count() or 1) // args.processes)
    argv = ["serve", "--host", args.host, "--port", str(args.port), "--redis", args.redis]
    argv += ["--redis-prefix", args.redis_prefix, "--bot-workers", str(workers)]
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
    return max(child.wait() for child in children)


def _worker(args: argparse.Namespace) -> int:
    if args.broker:
        os.environ["GAMEHOST_CELERY_BROKER"] = args.broker
    from workers.app import QUEUE, app

    argv = ["worker", f"--loglevel={args.loglevel}", "-Q", QUEUE, "--pool", "prefork"]
    if args.concurrency:
        argv.append(f"--concurrency={args.concurrency}")
    if args.hostname:
        argv.append(f"--hostname={args.hostname}")
    app.worker_main(argv)
    return 0


def _games(args: argparse.Namespace) -> int:
    with _connect(args.target) as client:
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
    with _connect(args.target, args.redis, args.redis_prefix) as client:
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
    with _connect(args.target) as client:
        created = client.create_game(args.game, seats, seed=args.seed)
        me = client.join(created.game_id, args.seat)
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
            who = "chance" if event.seat < 0 else f"seat {event.seat}"
            print(f"  [{who}] {event.notation}")

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
