"""The ``gamehost`` command line: serve, worker, health, play, selfplay, tournament, board,
games, record, bot, ladder.

The client commands need only grpcio and the generated ``gamehost.v1`` code. The
server's commands (``serve``, ``worker``, ``db``, ``store``, ``export`` without
``--target``, ``board``, and ``play``/``selfplay``/``tournament`` without ``--target``,
which start an embedded server) are run by the server distribution: it registers their
implementation under the entry-point group ``gamehost.server``, which is looked up only
when such a command runs. The server defines and parses the flags of ``serve``,
``worker``, ``db`` and ``store`` (here they are only dispatched) and adds its own to
``export``'s. The client never names a server module; without the server installed
those commands say, in one line, what to install.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Iterator
from importlib.metadata import distributions
from types import ModuleType

import grpc
from google.protobuf import json_format

from gamehost import account_cli, ladder_cli
from gamehost import tournament as tournament_cli
from gamehost.client import Client, GameError
from gamehost.v1 import gamehost_pb2 as pb


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="gamehost", description="Board games with AI opponents.")
    commands = parser.add_subparsers(dest="command", required=True)

    # Their flags are the server's, defined where they run (services/settings.py,
    # workers/settings.py, workers/cli.py): the server parses what follows the command.
    commands.add_parser("serve", help="run the rules service", add_help=False)
    commands.add_parser("db", help="the archive's database (docs/archive.md)", add_help=False)
    commands.add_parser("store", help="the Redis store's layout (docs/capacity.md)", add_help=False)
    # The client's filters and --target, and the server's --archive (_export_parser).
    commands.add_parser(
        "export",
        help="print archived games as NDJSON, one a line (docs/export.md)",
        add_help=False,
    )
    commands.add_parser("worker", help="run a Celery worker for bot searches", add_help=False)

    health_check = commands.add_parser(
        "health", help="ask a server's gRPC health service; exit 0 when SERVING"
    )
    health_check.add_argument("--target", metavar="HOST:PORT", default="127.0.0.1:50051")
    health_check.add_argument("--service", default="", help="service name (default: overall)")
    health_check.add_argument("--timeout", type=float, default=3.0, metavar="SECONDS")

    play = commands.add_parser("play", help="play one seat in the terminal against bots")
    play.add_argument("game")
    play.add_argument(
        "--players", type=int, help="player count (required; --quick: the game's least)"
    )
    play.add_argument("--bots", default="random", metavar="LEVEL", help="level of the bot seats")
    play.add_argument(
        "--quick",
        action="store_true",
        help="quick play on --target: a rated game against accounts of close rating, or "
        "house levels after the wait (the account key from --key or $GAMEHOST_ACCOUNT_KEY)",
    )
    play.add_argument(
        "--key",
        default=os.environ.get("GAMEHOST_ACCOUNT_KEY", ""),
        help="--quick: the account's key (default: $GAMEHOST_ACCOUNT_KEY)",
    )
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

    tournament = tournament_cli.add_parser(commands)
    _remote_options(tournament)
    for ladder_parser in ladder_cli.add_parsers(commands):
        _remote_options(ladder_parser)
    for account_parser in account_cli.add_parser(commands):
        _remote_options(account_parser)

    board = commands.add_parser("board", help="print a board map with the ids notation uses")
    board.add_argument("game", choices=["catan"])
    board.add_argument(
        "--seed", type=int, help="show the board this seed deals (default: ids only)"
    )
    board.add_argument("--beginner", action="store_true", help="the beginner layout")

    games = commands.add_parser("games", help="list the game types a server hosts")
    games.add_argument("--target", metavar="HOST:PORT")
    _remote_options(games)

    record = commands.add_parser(
        "record", help="print a game's whole record as JSON (read page by page)"
    )
    record.add_argument("game_id")
    record.add_argument("--target", metavar="HOST:PORT", required=True)
    record.add_argument("--token", default="", help="a seat token: that seat's view")
    record.add_argument("--views", action="store_true", help="the view after every entry too")
    record.add_argument(
        "--page-size", type=int, default=0, metavar="N", help="entries a call (0: the server's)"
    )
    _remote_options(record)

    args, rest = parser.parse_known_args(argv)
    if rest and args.command not in SERVER_COMMANDS:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    try:
        handlers = {
            "serve": lambda args: _server_side("serve").serve(rest),
            "worker": lambda args: _server_side("worker").worker(rest),
            "db": lambda args: _server_side("db").db(rest),
            "store": lambda args: _server_side("store").store(rest),
            "export": lambda args: _export(rest),
            "play": _play,
            "selfplay": _selfplay,
            "tournament": _tournament,
            "games": _games,
            "record": _record,
            "board": _board,
            "health": _health,
            "bot": _ladder,
            "ladder": _ladder,
            "account": _account,
        }
        return handlers[args.command](args)
    except ServerNotInstalled as exc:
        print(f"gamehost: {exc}", file=sys.stderr)
        return 2
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


# The entry-point group the server distribution (gamehost-server) fills with its half of
# the command line: ``commands``, an object with serve, worker, db, store (each given the
# arguments after its command), add_export_options, export, dealt_board and
# embedded_server (see its pyproject.toml).
SERVER_ENTRY_POINTS = "gamehost.server"
# The commands whose arguments (all, or export's beyond the client's) the server parses.
SERVER_COMMANDS = frozenset({"serve", "worker", "db", "store", "export"})


class ServerNotInstalled(Exception):
    """A command needs the server, and only the client is installed."""

    def __init__(self, what: str) -> None:
        super().__init__(
            f"{what} needs the gamehost server, which is not installed here: "
            "pip install gamehost-server (in a clone: make install)"
        )


def _server_side(what: str) -> ModuleType:
    """The server's half of the command line, found by its entry point and loaded on
    demand, so the client's own imports never reach the server."""
    # Every distribution on the path, not the first of each name: a build's leftover
    # metadata in a checkout (gamehost_server.egg-info) may shadow the installed one.
    for dist in distributions():
        for entry in dist.entry_points.select(group=SERVER_ENTRY_POINTS, name="commands"):
            return entry.load()
    raise ServerNotInstalled(what)


def _board(args: argparse.Namespace) -> int:
    """The map of a game as dealt: the server deals it (a spectator's view), the client's
    renderer draws it."""
    from gamehost.render.catan import render_board

    view = _server_side("board").dealt_board(args)
    print(render_board(view, terrain=args.seed is not None or args.beginner))
    return 0


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
            "key": getattr(args, "key", None) or None,
        }
        with Client(target, **remote) as client:
            client.wait_ready(timeout=3.0)  # one clear line within 5 s when nobody answers
            yield client
        return
    server = _server_side(f"{args.command} without --target" if args else "an embedded server")
    with contextlib.ExitStack() as stack:
        try:
            target = stack.enter_context(server.embedded_server(redis_url, redis_prefix))
        except server.EmbeddedServerUnavailable as exc:
            raise GameError(grpc.StatusCode.UNAVAILABLE, str(exc)) from None
        yield stack.enter_context(Client(target))


def _health(args: argparse.Namespace) -> int:
    """One line out; exit 0 when SERVING, 1 when answered otherwise, 2 when unreachable."""
    try:
        from grpc_health.v1 import health_pb2, health_pb2_grpc
    except ModuleNotFoundError:
        print(
            "gamehost: health needs grpcio-health-checking: pip install 'gamehost[health]'",
            file=sys.stderr,
        )
        return 2

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


def _record(args: argparse.Namespace) -> int:
    """The record as one JSON object (the HTTP API's mapping: camelCase, 64-bit integers
    as strings), however many pages the server sends it in."""
    with _connect(args.target, args=args) as client:
        record = client.record(
            args.game_id, args.token, include_views=args.views, page_size=args.page_size
        )
    print(json.dumps(json_format.MessageToDict(record), separators=(",", ":")))
    return 0


def _ladder(args: argparse.Namespace) -> int:
    """``gamehost bot ...`` and ``gamehost ladder`` (docs/ladder.md)."""
    problem = ladder_cli.problem(args)
    if problem:
        return ladder_cli.fail(problem)
    with _connect(args.target, args=args) as client:
        if args.command == "ladder":
            return ladder_cli.run_ladder_command(client, args)
        return ladder_cli.run_bot_command(client, args)


def _account(args: argparse.Namespace) -> int:
    """``gamehost account ...`` (docs/accounts.md)."""
    with _connect(args.target, args=args) as client:
        return account_cli.run(client, args)


def _export_parser() -> argparse.ArgumentParser:
    """``gamehost export``'s parser as the client knows it: the filters and --target."""
    export = argparse.ArgumentParser(prog="gamehost export")
    export.add_argument("--game", metavar="TYPE", help="only this game type")
    export.add_argument("--since", metavar="DATE", help="finished on or after (ISO 8601, UTC)")
    export.add_argument("--player", metavar="NAME", help="a seat played by this name")
    export.add_argument("--tournament", metavar="NAME", help="the tables of this tournament")
    export.add_argument(
        "--bot", metavar="NAME", help="a ladder bot's (or house level's) ladder games"
    )
    export.add_argument(
        "--target", metavar="HOST:PORT", help="download from a running server (not --archive)"
    )
    return export


def _export(argv: list[str]) -> int:
    """``gamehost export``: from the archive database (the server's side, which adds its
    flags to the parser), or with ``--target`` downloaded from a running server through
    ExportGames, which the client alone can do."""
    parser = _export_parser()
    try:
        server = _server_side("export")
    except ServerNotInstalled:
        _remote_options(parser)
        args, rest = parser.parse_known_args(argv)
        if rest or not args.target:
            raise
        return _export_remote(args)
    server.add_export_options(parser)
    _remote_options(parser)
    args = parser.parse_args(argv)
    if not args.target:
        return server.export(args)
    return _export_remote(args)


def _export_remote(args: argparse.Namespace) -> int:
    """``gamehost export --target``: the games a running server exports."""
    filters = {
        "game_type": args.game,
        "since": args.since,
        "player": args.player,
        "tournament": args.tournament,
        "bot": args.bot,
    }
    with _connect(args.target, args=args) as client:
        try:
            for line in client.export_games(**{k: v for k, v in filters.items() if v}):
                sys.stdout.write(line + "\n")
            sys.stdout.flush()
        except BrokenPipeError:  # `| head`: the reader has had enough
            sys.stderr.close()
    return 0


def _games(args: argparse.Namespace) -> int:
    with _connect(args.target, args=args) as client:
        reply = client.game_types()
        for game in reply.game_types:
            print(f"{game.name:10} {game.min_players}-{game.max_players} players  {game.summary}")
        print("bot levels:", ", ".join(reply.bot_levels))
        print("engines:", reply.engine_build or "unknown")  # compiled or pure (the server's)
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


def _tournament(args: argparse.Namespace) -> int:
    try:
        tournament_cli.parse_entrants(args.entrants)
    except ValueError as exc:
        print(f"gamehost: {exc}", file=sys.stderr)
        return 2
    with _connect(args.target, args.redis, args.redis_prefix, args=args) as client:
        return tournament_cli.run(client, args)


def _play(args: argparse.Namespace) -> int:
    from gamehost.play import PlaySettings, play, play_quick

    if args.quick:
        if not args.target or not args.key:
            print(
                "gamehost: play --quick needs --target HOST:PORT and an account key "
                "(--key or $GAMEHOST_ACCOUNT_KEY; gamehost account create makes one)",
                file=sys.stderr,
            )
            return 2
        with _connect(args.target, args=args) as client:
            return play_quick(client, args.game, args.players)
    if args.players is None:
        print("gamehost: play needs --players N (or --quick)", file=sys.stderr)
        return 2
    settings = PlaySettings(
        game=args.game,
        players=args.players,
        seat=args.seat,
        bots=args.bots,
        seed=args.seed,
        private=args.private,
        spectators=not args.no_spectators,
    )
    problem = settings.problem()
    if problem:
        print(f"gamehost: {problem}", file=sys.stderr)
        return 2
    with _connect(args.target, args=args) as client:
        return play(client, settings)


if __name__ == "__main__":
    sys.exit(main())
