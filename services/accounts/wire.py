"""Accounts as the API's messages."""

from __future__ import annotations

from google.protobuf import json_format

from gamehost.v1 import gamehost_pb2 as pb
from services.accounts.accounts import Account, AccountKind
from services.accounts.challenges import ChallengeRow
from services.accounts.event_log import LoggedEvent

_KIND = {AccountKind.HUMAN: pb.ACCOUNT_HUMAN, AccountKind.BOT: pb.ACCOUNT_BOT}


def account(found: Account, ratings: list[pb.AccountRating] = (), games_played: int = 0):
    return pb.Account(
        name=found.name,
        kind=_KIND[found.kind],
        ratings=list(ratings),
        games_played=games_played,
        created_at=found.created_at,
        revoked=found.revoked,
    )


def player_event(event: LoggedEvent) -> pb.PlayerEvent:
    """A logged event (its fields under their proto names) as WatchPlayer sends it."""
    message = json_format.ParseDict(event.data, pb.PlayerEvent(), ignore_unknown_fields=True)
    message.event_id = event.seq
    message.at = event.at
    return message


def challenge(found: ChallengeRow) -> pb.ChallengeInfo:
    return json_format.ParseDict(found.to_event(), pb.ChallengeInfo())
