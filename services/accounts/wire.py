"""Accounts as the API's messages."""

from __future__ import annotations

from gamehost.v1 import gamehost_pb2 as pb
from services.accounts.accounts import Account, AccountKind

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
