"""The quick play matchmaker: one replica at a time (the lease of ``services.ladder.lease``,
named ``quickplay``), every ``TICK`` seconds:

1. it finishes the matches taken but not answered (a matchmaker killed midway left
   them): their game is made under the match's id, so never twice, their accounts
   join their seats, and the answers go out;
2. it drops tickets whose call went quiet (a replica killed with a Matchmake call
   in flight: its client is gone);
3. it takes each queue's groups (``pairing``) as matches, all or none, and does 1.

Everything it needs is in the store, so a replica killed at any point loses no queued
player: the next holder of the lease goes on from there."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import random
import time

import sqlalchemy as sa

from services.accounts.events import PlayerEvents
from services.accounts.ratings import ladder_ratings
from services.accounts.service import AccountService
from services.errors import AlreadyExists, FailedPrecondition
from services.kinds import SeatKind
from services.ladder import lease
from services.ladder.matchmaker import replica_id
from services.matchmaking import pairing
from services.matchmaking.config import QuickPlayConfig
from services.play.host import GameHost, Joiner, SeatSpec
from services.stores import MatchQueue
from services.stores.match_queue import Ticket
from services.stores.records import Timer
from services.sweeps import Wake
from services.tournament.ratings import new_rating

log = logging.getLogger(__name__)

LEASE = "quickplay"
LEASE_SECONDS = 5.0  # a killed holder's matches wait this long for the next one
TICK = 0.25  # seconds between rounds
STALE_SECONDS = 10.0  # a ticket whose call has not polled for this long is dropped
ANSWER_SECONDS = 300.0  # an answer waits this long for its call to poll it


def match_id(tickets: list[Ticket]) -> str:
    """A match's id, and its game's: the same tickets make the same game."""
    joined = ",".join(sorted(t.ticket for t in tickets))
    return hashlib.sha256(joined.encode()).hexdigest()[:32]


class QuickMatchmaker:
    def __init__(
        self,
        store: MatchQueue,
        host: GameHost,
        accounts: AccountService,
        engine: sa.Engine,
        config: QuickPlayConfig,
        lease_seconds: float = LEASE_SECONDS,
    ) -> None:
        self.store, self.host, self.accounts, self.engine = store, host, accounts, engine
        self.config = config
        # Each seated account's event stream records the game's start, as a JoinGame
        # with a key does: its end is told even to a stream opened after it.
        self.events = PlayerEvents(host, accounts)
        self.lease_seconds = lease_seconds
        self.replica = replica_id()
        self._task: asyncio.Task | None = None
        self._wake = Wake()
        self._held = False

    def start(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())

    def kick(self) -> None:
        """A ticket came in: a round now, not at the next tick."""
        self._wake.set()

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        if self._held:  # a clean stop hands the queues on at once
            with contextlib.suppress(Exception):
                await asyncio.to_thread(lease.release, self.engine, LEASE, self.replica)

    async def _run(self) -> None:
        while True:
            try:
                await self.tick()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the store or the archive is down: next tick
                log.warning("quick play: tick failed: %s: %s", type(exc).__name__, exc)
            await self._wake.wait_and_clear(TICK)

    async def tick(self) -> bool:
        """One round; False when another replica holds the queues."""
        self._held = await asyncio.to_thread(
            lease.acquire, self.engine, LEASE, self.replica, self.lease_seconds, time.time()
        )
        if not self._held:
            return False
        for match, plan in (await self.store.open_matches()).items():
            await self._make(match, json.loads(plan))
        now = time.time()
        for queue in await self.store.queue_names():
            tickets = await self.store.queue_tickets(queue)
            live = []
            for ticket in tickets:
                if ticket.seen < now - STALE_SECONDS:
                    await self.store.leave_queue(ticket.account)
                else:
                    live.append(ticket)
            players = int(queue.partition(":")[2])
            for group in pairing.groups(live, players, self.config.wait, now):
                await self._take(queue, group)
        return True

    async def _take(self, queue: str, group: pairing.Group) -> None:
        tickets = list(group.tickets)
        match = match_id(tickets)
        levels = await self._levels(queue, tickets, group.bots)
        seats: list[dict] = [{"account": t.account} for t in tickets]
        seats += [{"level": level} for level in levels]
        random.Random(match).shuffle(seats)  # nobody always moves first
        plan = {"queue": queue, "seats": seats, "bots": group.bots}
        if await self.store.take_match(match, json.dumps(plan), tickets):
            await self._make(match, plan)

    async def _levels(self, queue: str, tickets: list[Ticket], seats: int) -> list[str]:
        """The house levels nearest the group's mean rating."""
        if not seats:
            return []
        house = list(self.config.house)
        rated = await asyncio.to_thread(ladder_ratings, self.engine, queue, house)
        fresh = new_rating().mu
        mus = {level: rated[level].mu if level in rated else fresh for level in house}
        mean = sum(t.mu for t in tickets) / len(tickets)
        return pairing.nearest_levels(mean, mus, seats)

    async def _make(self, match: str, plan: dict) -> None:
        """Make the match's game (once: its id is the match's), seat its accounts and
        send the answers."""
        game_type, _, _ = plan["queue"].partition(":")
        specs = [
            SeatSpec(SeatKind.BOT, s["level"]) if "level" in s else SeatSpec(SeatKind.HUMAN)
            for s in plan["seats"]
        ]
        timer = Timer(move=self.config.move_seconds)  # an absent player stalls nobody
        with contextlib.suppress(AlreadyExists):  # made before this holder was killed
            await self.host.create_game(
                game_type, specs, {}, rated=True, game_id=match, timer=timer
            )
        answers = {}
        for seat, spec in enumerate(plan["seats"]):
            name = spec.get("account")
            if not name:
                continue
            account = await self.accounts.get(name)
            joiner = Joiner(account.name, account.kind.value, account.seat_secret)
            with contextlib.suppress(FailedPrecondition, AlreadyExists):  # joined before
                await self.host.join_game(match, seat, "", account=joiner)
            # Once only (the log keeps one start per game); a failure here fails the
            # round, and the next one makes the match again from the store.
            await self.events.started(account.name, match, game_type, seat)
            answers[name] = json.dumps({"game_id": match, "seat": seat, "bots": plan["bots"]})
        await self.store.answer_match(match, answers, ANSWER_SECONDS)
