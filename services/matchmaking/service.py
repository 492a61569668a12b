"""What the quick play RPCs do: Matchmake queues the key's account and waits for its
match's answer; LeaveQueue takes it out. A Matchmake call that ends without an answer
(its client gone, the server stopping) leaves the queue."""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from dataclasses import dataclass

import sqlalchemy as sa

from games import game_names, get_game
from services.accounts.accounts import Account
from services.accounts.ratings import ladder_of, ladder_ratings
from services.errors import (
    Aborted,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    ResourceExhausted,
)
from services.limits import access
from services.limits.quotas import RateLimit
from services.matchmaking.config import QuickPlayConfig
from services.matchmaking.matchmaker import QuickMatchmaker
from services.stores import MatchQueue
from services.stores.match_queue import Polled, Queued, Ticket
from services.tournament.ratings import new_rating

POLL_SECONDS = 0.2  # how often a waiting call looks for its answer (and says it is alive)


@dataclass(frozen=True)
class Matched:
    game_id: str
    seat: int
    token: str
    bots: int


def queue_of(game_type: str, players: int) -> str:
    """The queue's name, ``GAME:PLAYERS``; INVALID_ARGUMENT naming the field at fault."""
    if game_type not in game_names():
        raise InvalidArgument(
            f"unknown game {game_type[:40]!r}; known: {', '.join(sorted(game_names()))}",
            field="game_type",
        )
    info = get_game(game_type).info
    if not info.min_players <= players <= info.max_players:
        raise InvalidArgument(
            f"{game_type} takes {info.min_players}-{info.max_players} players, not {players}",
            field="players",
        )
    return ladder_of(game_type, players)


class QuickPlay:
    def __init__(
        self,
        store: MatchQueue,
        engine: sa.Engine,
        matchmaker: QuickMatchmaker,
        config: QuickPlayConfig,
        calls: RateLimit,
    ) -> None:
        self.store, self.engine, self.matchmaker = store, engine, matchmaker
        self.config = config
        self.calls = calls

    async def _admit(self, owner: str) -> None:
        if not await self.calls.hit(owner):
            raise ResourceExhausted(
                f"at most {self.calls.describe('queue calls')} per client; try again later"
            )

    async def matchmake(
        self, account: Account, game_type: str, players: int, owner: str
    ) -> Matched:
        queue = queue_of(game_type, players)
        await self._admit(owner)
        rated = await asyncio.to_thread(ladder_ratings, self.engine, queue, [account.name])
        mu = rated[account.name].mu if account.name in rated else new_rating().mu
        now = time.time()
        ticket = Ticket(account.name, queue, secrets.token_hex(8), mu, now, now)
        queued = await self.store.enqueue(ticket, self.config.per_queue, self.config.total)
        if queued == Queued.ALREADY:
            raise FailedPrecondition(
                f"account {account.name} is in a quick play queue already (one at a time): "
                "LeaveQueue first, or wait for that call's answer"
            )
        if queued == Queued.QUEUE_FULL:
            raise ResourceExhausted(
                f"the {queue} queue holds its most ({self.config.per_queue}); try again later"
            )
        if queued == Queued.ALL_FULL:
            raise ResourceExhausted(
                f"the quick play queues hold their most ({self.config.total}); try again later"
            )
        self.matchmaker.kick()
        try:
            answer = await self._wait(account.name)
        except BaseException:
            # Its call ended unanswered (cancelled: the client went away): out of the queue.
            await asyncio.shield(self.store.leave_queue(account.name))
            raise
        found = json.loads(answer)
        token = access.account_seat_token(account.seat_secret, found["game_id"], found["seat"])
        return Matched(found["game_id"], found["seat"], token, found["bots"])

    async def _wait(self, name: str) -> str:
        while True:
            polled = await self.store.poll_queue(name, time.time())
            if polled.state == Polled.MATCHED:
                return polled.answer
            if polled.state == Polled.GONE:
                raise Aborted(f"account {name} left the queue (LeaveQueue) before a match")
            await asyncio.sleep(POLL_SECONDS)

    async def leave(self, account: Account, owner: str) -> tuple[str, int]:
        """Take the account out of its queue: the queue's game and player count."""
        await self._admit(owner)
        queue = await self.store.leave_queue(account.name)
        if not queue:
            raise NotFound(
                f"account {account.name} is in no quick play queue (a matched call has its answer)"
            )
        game_type, _, players = queue.partition(":")
        return game_type, int(players)
