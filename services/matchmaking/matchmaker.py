"""The quick play matchmaker: one replica at a time (the lease of ``services.ladder.lease``,
named ``quickplay``), every ``TICK`` seconds:

1. it finishes the matches taken but not answered (a matchmaker killed midway left
   them): their game is made under the match's id, so never twice, their accounts
   join their seats, and the answers go out;
2. it drops tickets whose call went quiet (a replica killed with a Matchmake call
   in flight: its client is gone);
3. it takes each queue's groups (``pairing``) as matches, all or none, and does 1.

A group's empty seats go to whoever is nearest its mean rating among the house
levels and the registered bots of the queue's ladder that have a rating there and
that the ladder would seat now (``services.ladder.matchmaker.free_bots``). A bot's
seat is claimed with its seat token, as the ladder claims one, and the game is written
down as a quick-play game of the ladder's (``ledger.QUICK``): the bot's runner is fed
it, and the ladder looks after it. It is rated once, as it is archived, like any
quick-play game.

Everything it needs is in the store, so a replica killed at any point loses no queued
player: the next holder of the lease goes on from there (making the game, claiming a
bot's seat and writing it down each find what was done before)."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import random
import time
from collections.abc import Callable

import sqlalchemy as sa

from services.accounts.events import PlayerEvents
from services.accounts.ratings import ladder_ratings
from services.accounts.service import AccountService
from services.errors import AlreadyExists, FailedPrecondition
from services.kinds import SeatKind
from services.ladder import lease
from services.ladder.ledger import LadderSeat
from services.ladder.matchmaker import BUSY, CLAIMED, claim, free_bots, replica_id
from services.ladder.seats import seat_token
from services.ladder.service import LadderService
from services.limits.access import hash_token
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
        ladder: LadderService | None = None,
        on_games: Callable[[], None] | None = None,
    ) -> None:
        """``ladder``: its registered bots may fill seats (None: house levels only);
        ``on_games``: a bot was seated (its runner's session looks now)."""
        self.store, self.host, self.accounts, self.engine = store, host, accounts, engine
        self.config = config
        self.ladder = ladder
        self._on_games = on_games or (lambda: None)
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
        seats: list[dict] = [{"account": t.account} for t in tickets]
        seats += await self._fillers(queue, tickets, group.bots)
        random.Random(match).shuffle(seats)  # nobody always moves first
        plan = {"queue": queue, "seats": seats, "bots": group.bots}
        if await self.store.take_match(match, json.dumps(plan), tickets):
            await self._make(match, plan)

    async def _fillers(self, queue: str, tickets: list[Ticket], seats: int) -> list[dict]:
        """The house levels ({"level"}) and registered bots ({"bot"}) nearest the group's
        mean rating, for ``seats`` seats."""
        if not seats:
            return []
        house = list(self.config.house)
        bots = await self._free_bots(queue)
        rated = await asyncio.to_thread(ladder_ratings, self.engine, queue, house + bots)
        fresh = new_rating().mu
        mus = {level: rated[level].mu if level in rated else fresh for level in house}
        bots = [b for b in bots if b in rated]  # a bot not rated here has no place yet
        mus.update({bot: rated[bot].mu for bot in bots})
        mean = sum(t.mu for t in tickets) / len(tickets)
        chosen = pairing.nearest_levels(mean, mus, seats, once=bots)
        return [{"bot": name} if name in bots else {"level": name} for name in chosen]

    async def _free_bots(self, queue: str) -> list[str]:
        """The registered bots of ``queue``'s ladder that the ladder would seat now."""
        spec = self.ladder.config.spec(queue) if self.ladder is not None else None
        if self.ladder is None or spec is None:
            return []
        accounts = await asyncio.to_thread(self.ladder.accounts.list, queue)
        open_games = await asyncio.to_thread(self.ladder.ledger.open_games, queue)
        free = await free_bots(self.ladder, spec, accounts, open_games, time.time(), 1)
        return [a.name for a in free]

    async def _make(self, match: str, plan: dict) -> None:
        """Make the match's game (once: its id is the match's), seat its accounts and
        send the answers."""
        game_type, _, _ = plan["queue"].partition(":")
        specs = [_seat_spec(s) for s in plan["seats"]]
        timer = Timer(move=self.config.move_seconds)  # an absent player stalls nobody
        with contextlib.suppress(AlreadyExists):  # made before this holder was killed
            await self.host.create_game(
                game_type, specs, {}, rated=True, game_id=match, timer=timer
            )
        # (A plan with a bot, made again on a replica running no ladder: its seat is
        # left to the timer.)
        bots = self.ladder is not None and any("bot" in s for s in plan["seats"])
        if bots and not await self._seat_bots(match, plan):
            return  # the lease was lost: the next holder goes on
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

    async def _seat_bots(self, match: str, plan: dict) -> bool:
        """Claim the registered bots' seats of the match's game (as the ladder claims
        one: its token is derived, so every replica knows it) and write the game down
        for the ladder (once), so the bots' runners are fed it. False when the lease was
        lost."""
        assert self.ladder is not None
        secret = await self.host.store.secret()
        for seat, spec in enumerate(plan["seats"]):
            name = spec.get("bot")
            if not name:
                continue
            token_hash = hash_token(seat_token(secret, match, seat))
            claimed = await claim(self.host, match, seat, name, token_hash, f"bot:{name}")
            if claimed == BUSY:  # the round fails: the next one claims it
                raise RuntimeError(f"game {match} kept moving: bot {name}'s seat not claimed")
            if claimed != CLAIMED:  # taken or gone: not the bot's (its timer plays it)
                log.warning("quick play: bot %s's seat in %s was %s", name, match, claimed)
                return True
        seats = [
            LadderSeat(s.get("account") or s.get("bot") or s["level"], s.get("level", ""))
            for s in plan["seats"]
        ]
        fencing = (LEASE, self.replica, self.lease_seconds)
        written = await asyncio.to_thread(
            self.ladder.ledger.add_quick, plan["queue"], fencing, match, seats, time.time()
        )
        if written:
            self._on_games()
        return written


def _seat_spec(seat: dict) -> SeatSpec:
    """A planned seat: a house level's, a registered bot's (its runner plays it) or an
    account's (joined once the game is made)."""
    if "level" in seat:
        return SeatSpec(SeatKind.BOT, seat["level"])
    if "bot" in seat:
        return SeatSpec(SeatKind.HUMAN, name=seat["bot"], runner=True)
    return SeatSpec(SeatKind.HUMAN)
