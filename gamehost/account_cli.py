"""``gamehost account create|show|rotate|revoke|events``: accounts on a server with an
archive (docs/accounts.md). Each command prints a sentence for people, then one JSON
line for programs (its last line); ``events`` prints one JSON line per event of the
account's stream. The key comes from ``--key`` or ``$GAMEHOST_ACCOUNT_KEY``."""

from __future__ import annotations

import argparse
import itertools
import json
import os

from google.protobuf import json_format

from gamehost.client import Client
from gamehost.v1 import gamehost_pb2 as pb

KEY_ENV = "GAMEHOST_ACCOUNT_KEY"
KIND = {pb.ACCOUNT_HUMAN: "human", pb.ACCOUNT_BOT: "bot"}


def add_parser(commands: argparse._SubParsersAction) -> list[argparse.ArgumentParser]:
    """The ``account`` command; returns the parsers that reach a server."""
    account = commands.add_parser("account", help="accounts: create, show, rotate, revoke")
    actions = account.add_subparsers(dest="account_command", required=True)
    create = actions.add_parser(
        "create", help='create an account; the last line is {"account": NAME, "key": KEY}'
    )
    show = actions.add_parser("show", help="an account's kind, ratings and games played")
    rotate = actions.add_parser("rotate", help="a new key (the old one stops working)")
    revoke = actions.add_parser("revoke", help="the key stops working for good")
    events = actions.add_parser(
        "events", help="the account's event stream, one JSON line per event (WatchPlayer)"
    )
    events.add_argument("--after", type=int, default=0, help="the last event id seen")
    events.add_argument("--count", type=int, default=0, help="stop after so many (0: never)")
    for parser in (create, show, rotate, revoke):
        parser.add_argument("--name", required=True)
    for parser in (create, show, rotate, revoke, events):
        parser.add_argument("--target", metavar="HOST:PORT", required=True)
    for parser in (rotate, revoke, events):
        parser.add_argument(
            "--key", default=os.environ.get(KEY_ENV, ""), help=f"its key (default: ${KEY_ENV})"
        )
    return [create, show, rotate, revoke, events]


def account_json(info: pb.Account) -> dict:
    return {
        "account": info.name,
        "kind": KIND.get(info.kind, "unknown"),
        "ratings": [
            {
                "game": r.game_type,
                "players": r.players,
                "mu": round(r.mu, 6),
                "sigma": round(r.sigma, 6),
                "ordinal": round(r.ordinal, 6),
                "games": r.games,
            }
            for r in info.ratings
        ],
        "games_played": info.games_played,
        "revoked": info.revoked,
    }


def run(client: Client, args: argparse.Namespace) -> int:
    command = args.account_command
    if command == "events":
        stream = client.watch_me(args.after, args.key)
        for event in itertools.islice(stream, args.count or None):
            line = json_format.MessageToDict(event)
            print(json.dumps(line, separators=(",", ":")), flush=True)
        return 0
    if command in ("create", "rotate"):
        if command == "create":
            reply = client.create_account(args.name)
        else:
            reply = client.rotate_account_key(args.name, args.key)
        print(
            f"account {reply.account}: its key is shown once, keep it (send it as "
            f"'Authorization: Bearer <key>', or set ${KEY_ENV})",
            flush=True,
        )
        print(json.dumps({"account": reply.account, "key": reply.key}), flush=True)
        return 0
    if command == "show":
        info = client.account(args.name)
    else:
        info = client.revoke_account(args.name, args.key)
    print(f"account {info.name} ({KIND.get(info.kind, '?')})", flush=True)
    print(json.dumps(account_json(info)), flush=True)
    return 0
