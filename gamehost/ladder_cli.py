"""``gamehost bot register|list|revoke|run`` and ``gamehost ladder``: a ladder's bots
and standings on a server run with ``--ladder`` (docs/ladder.md). Each command prints
a table or a sentence for people, then one JSON line for programs (its last line)."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys

from gamehost.client import Client
from gamehost.v1 import gamehost_pb2 as pb

STATUS = {
    pb.BOT_VALIDATING: "validating",
    pb.BOT_ACTIVE: "active",
    pb.BOT_PAUSED: "paused",
    pb.BOT_REVOKED: "revoked",
}
KEY_ENV = "GAMEHOST_BOT_KEY"


def add_parsers(commands: argparse._SubParsersAction) -> list[argparse.ArgumentParser]:
    """The ``bot`` and ``ladder`` commands; returns the parsers that reach a server."""
    bot = commands.add_parser("bot", help="ladder bots: register, list, revoke, run")
    actions = bot.add_subparsers(dest="bot_command", required=True)
    register = actions.add_parser(
        "register", help='register a bot; the last line is {"bot": NAME, "key": KEY}'
    )
    register.add_argument("--name", required=True)
    register.add_argument("--game", required=True, metavar="TYPE")
    register.add_argument("--players", type=int, required=True)
    listing = actions.add_parser("list", help='registered bots; the last line is {"bots": [...]}')
    listing.add_argument("--game", default="", metavar="TYPE", help="only this game's bots")
    listing.add_argument("--players", type=int, default=0, help="only this player count's")
    revoke = actions.add_parser("revoke", help="revoke a bot for good (its key stops working)")
    revoke.add_argument("name")
    revoke.add_argument(
        "--key", default=os.environ.get(KEY_ENV, ""), help=f"the bot's key (default: ${KEY_ENV})"
    )
    run = actions.add_parser(
        "run", help="connect a bot program to the ladder (JSON lines on its stdin/stdout)"
    )
    run.add_argument(
        "--key",
        default=os.environ.get(KEY_ENV, ""),
        help=f"the bot's key; better in ${KEY_ENV}, its default (ps shows a command line)",
    )
    run.add_argument("--cmd", required=True, help='the bot program, e.g. "python mybot.py"')
    run.add_argument(
        "--concurrency",
        type=int,
        default=1,
        metavar="N",
        help="copies of the program: the duplicate sets the bot plays at once, at most "
        "the server's --ladder-bot-concurrency (1)",
    )
    run.add_argument(
        "--stats", metavar="FILE", help="append one JSON line per move and game (benchmarks)"
    )
    ladder = commands.add_parser(
        "ladder", help='a ladder\'s standings; the last line is {"standings": [...]}'
    )
    ladder.add_argument("--game", required=True, metavar="TYPE")
    ladder.add_argument("--players", type=int, required=True)
    parsers = [register, listing, revoke, run, ladder]
    for parser in parsers:
        parser.add_argument("--target", metavar="HOST:PORT", required=True)
    return parsers


def _json_line(value: object) -> None:
    print(json.dumps(value, separators=(", ", ": ")), flush=True)


def bot_json(info: pb.BotInfo) -> dict:
    return {
        "bot": info.bot,
        "status": STATUS.get(info.status, "unknown"),
        "reason": info.reason,
        "games": info.games,
        "game": info.game_type,
        "players": info.players,
        "moves": info.moves,
        "faults": {
            "late": info.faults.late,
            "garbage": info.faults.garbage,
            "illegal": info.faults.illegal,
            "missing": info.faults.missing,
        },
        "faults_in_row": info.faults_in_row,
        "connected": info.connected,
    }


def run_bot_command(client: Client, args: argparse.Namespace) -> int:
    if args.bot_command == "register":
        reply = client.register_bot(args.name, args.game, args.players)
        print(
            f"registered bot {reply.bot} for {args.game}:{args.players}; its key is shown "
            "once, keep it. Run the bot with this command (it plays random moves until "
            "--cmd names your program):",
            run_command(args, reply.key),
            sep="\n",
            flush=True,
        )
        _json_line({"bot": reply.bot, "key": reply.key})
        return 0
    if args.bot_command == "list":
        bots = client.list_bots(args.game, args.players)
        print(f"{'bot':24} {'ladder':10} {'status':11} {'games':>6} {'moves':>7} faults  reason")
        for info in bots:
            faults = info.faults.late + info.faults.garbage + info.faults.illegal
            faults += info.faults.missing
            print(
                f"{info.bot:24} {info.game_type + ':' + str(info.players):10} "
                f"{STATUS.get(info.status, '?'):11} {info.games:>6} {info.moves:>7} "
                f"{faults:>6}  {info.reason}"
            )
        _json_line({"bots": [bot_json(b) for b in bots]})
        return 0
    if args.bot_command == "revoke":
        info = client.revoke_bot(args.name, args.key)
        print(f"bot {info.bot} is revoked: its key no longer works")
        _json_line(bot_json(info))
        return 0
    if args.bot_command == "run":
        from gamehost.runner import run

        return run(client, args)
    raise AssertionError(args.bot_command)


def run_command(args: argparse.Namespace, key: str) -> str:
    """``bot run`` for a bot just registered, as a shell runs it: the key in the
    environment (not on a command line, where ``ps`` shows it), the same server, and
    the helper's random player as the program."""
    words = ["gamehost", "bot", "run", "--target", args.target]
    if getattr(args, "tls", False):
        words.append("--tls")
    if getattr(args, "ca_file", None):
        words += ["--ca-file", args.ca_file]
    words += ["--cmd", f"{shlex.quote(sys.executable)} -m gamehost.bot"]
    return f"{KEY_ENV}={shlex.quote(key)} {shlex.join(words)}"


def standing_json(row: pb.LadderStanding) -> dict:
    return {
        "bot": row.bot,
        "level": row.level or None,
        "games": row.games,
        "mu": round(row.mu, 6),
        "sigma": round(row.sigma, 6),
        "ordinal": round(row.ordinal, 6),
        "win_share": round(row.win_share, 6),
        "ci_low": round(row.ci_low, 6),
        "ci_high": round(row.ci_high, 6),
    }


def run_ladder_command(client: Client, args: argparse.Namespace) -> int:
    ladder = client.ladder(args.game, args.players)
    print(f"ladder {args.game}:{args.players} (house: {', '.join(ladder.house) or 'none'})")
    print(ladder.standings_text)
    _json_line({"standings": [standing_json(r) for r in ladder.standings]})
    return 0


def problem(args: argparse.Namespace) -> str | None:
    """What is wrong with the arguments before connecting (None: nothing)."""
    if args.command == "bot" and args.bot_command == "run":
        if not args.key:
            return f"bot run needs the bot's key: set ${KEY_ENV} (or --key KEY)"
        if args.concurrency < 1:
            return "--concurrency must be at least 1"
    return None


def fail(message: str) -> int:
    print(f"gamehost: {message}", file=sys.stderr)
    return 2
