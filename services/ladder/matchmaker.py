"""Continuous matchmaking, one replica at a time per ladder (the lease, ``lease``).

Every replica runs a Matchmaker; each tick it tries to take or renew each ladder's
lease, and for the ladders it holds:

1. **settles** the open games: makes a pending game in the store (its id was fixed
   when it was written down, so a game is never made twice), rates a game whose
   finished copy is in the archive (a validation game passes or pauses its bot
   instead), marks a game lost when neither the store nor the archive has it, and
   hands the seats of a bot with no runner connected (or paused) to the fallback
   level for good, so its games end; a quick-play game a bot plays (``ledger.QUICK``)
   is looked after the same way, and marked played once archived (quick play rates it);
2. **validates**: a connected bot that is validating gets one game against
   ``random`` in every other seat;
3. **pairs**: while fewer duplicate sets are open than ``--ladder-tables``, the active
   connected bot with the fewest open sets (then a random one) among those below their
   concurrency (what the runner asked, at most ``--ladder-bot-concurrency``; a
   quick-play game counts as a set, though it takes no table) and with room for a set
   under ``--ladder-bot-daily-games`` (``free_bots``) gets opponents by
   rating closeness with exploration (``pairing``) among the house levels and the
   other free bots, and a set: one deal under every seat rotation. With no free bot,
   the house levels play sets among themselves (at most ``house_tables`` at once), so
   their ratings, the ladder's fixed points, stay current.

Everything the matchmaker writes goes through the ledger, fenced by the lease, and
every game is written down before it is made: a replica killed at any point leaves
nothing that the next holder does not find and finish."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import secrets
import socket
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence

from services.errors import AlreadyExists, ServiceError
from services.kinds import EventKind, GameStatus, SeatKind
from services.ladder import lease, pairing
from services.ladder.accounts import BotAccount
from services.ladder.ledger import (
    FAILED,
    PENDING,
    PLAYED,
    PLAYING,
    QUICK,
    LadderSeat,
    OpenGame,
    PlannedGame,
    RatingRow,
)
from services.ladder.model import FALLBACK, VALIDATION_OPPONENT, BotStatus, LadderSpec
from services.ladder.seats import seat_token
from services.ladder.service import LEASE_SECONDS, LadderService
from services.limits.access import hash_token
from services.play.host import GameHost, SeatSpec
from services.stores import GameMoved
from services.stores.records import Timer
from services.sweeps import Wake
from services.turns import steps
from services.watch import events as ev

log = logging.getLogger(__name__)

LOST_CHECK_SECONDS = 10.0  # how often an unfinished game is looked for in the store
CLAIM_TRIES = 8  # a bot's seat claimed on a game that keeps moving: tries per tick
RENEW_SECONDS = LEASE_SECONDS / 5  # a kicked round renews the lease only this long after
DAY = 86_400.0  # seconds: --ladder-bot-daily-games counts the games begun in the last day
CLAIMED, TAKEN, GONE, BUSY = "claimed", "taken", "gone", "busy"  # what a claim found


def replica_id() -> str:
    """This process among the replicas: host, pid and a random part."""
    return f"{socket.gethostname()}/{os.getpid()}/{secrets.token_hex(3)}"


class Matchmaker:
    TICK = 0.5  # seconds between ticks (a kick cuts one short)

    def __init__(
        self,
        service: LadderService,
        host: GameHost,
        replica: str | None = None,
        on_games: Callable[[], None] | None = None,
        on_paused: Callable[[str], None] | None = None,
    ) -> None:
        self.service = service
        self._on_games = on_games or (lambda: None)  # new games made: tell the runners
        self._on_paused = on_paused or (lambda name: None)  # a bot paused: let it go
        self.host = host
        self.replica = replica or replica_id()
        self.config = service.config
        self._rng = random.Random()
        self._wake = Wake()
        self._task: asyncio.Task | None = None
        self._closing = False
        self._held: set[str] = set()  # ladders this replica held at its last tick
        self._looked: dict[str, float] = {}  # game id -> when it was last looked for
        self._renewed: dict[str, float] = {}  # ladder -> when its lease was last renewed
        self._accounts: dict[str, dict[str, BotAccount]] = {}  # ladder -> its bots, as read
        self._closed: set[str] = set()  # games this round rated or failed
        self._judged = False  # this round judged a validation game

    def start(self) -> None:
        if not self._closing and (self._task is None or self._task.done()):
            self._task = asyncio.get_running_loop().create_task(self._run())

    def kick(self) -> None:
        """A ladder game was archived: settle and pair now, not at the next tick."""
        self._wake.set()

    async def close(self) -> None:
        self._closing = True
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        for ladder in self._held:  # a clean stop hands the ladder on at once
            with contextlib.suppress(Exception):
                name = self.service.lease_name(ladder)
                await asyncio.to_thread(lease.release, self.service.engine, name, self.replica)

    async def _run(self) -> None:
        full_at = -self.TICK  # when a round last was a full one
        while not self._closing:
            # A full round every TICK; a round kicked in between (a ladder game
            # archived: its set's place is free) settles and pairs at once.
            full = time.monotonic() - full_at >= 0.9 * self.TICK
            if full:
                full_at = time.monotonic()
            for spec in self.config.ladders:
                try:
                    await self.tick(spec, full=full)
                except asyncio.CancelledError:
                    raise
                except Exception as exc:  # the archive or the store is down: next tick
                    log.warning(
                        "ladder %s: tick failed: %s: %s", spec.name, type(exc).__name__, exc
                    )
            await self._wake.wait_and_clear(self.TICK)

    # ------------------------------------------------------------------ one tick
    async def tick(self, spec: LadderSpec, full: bool = True) -> bool:
        """One tick of ``spec``'s ladder; False when another replica holds it.
        ``full``: a full round (every TICK), which renews the lease and reads the bots'
        accounts afresh; a kicked round in between (a game archived: its set's place is
        free) works on the accounts read then, and on the lease renewed less than
        RENEW_SECONDS ago. Its reads and writes run on threads that hold the GIL a
        while each, and every one of them holds up the bots' answers on the event loop:
        a round reads each thing once."""
        if not await self._hold(spec, renew=full):
            return False
        ledger = self.service.ledger
        open_games = await asyncio.to_thread(ledger.open_games, spec.name)
        accounts = await self._accounts_of(spec, fresh=full)
        self._closed.clear()
        self._judged = False
        await self._settle(spec, open_games, accounts)
        # What settling changed: the games it rated or failed are no longer open, and a
        # judged validation moved its bot's status (read again).
        open_games = [g for g in open_games if g.game.game_id not in self._closed]
        if self._judged:
            accounts = await self._accounts_of(spec, fresh=True)
        await self._validate(spec, open_games, accounts)
        await self._pair(spec, open_games, accounts)
        return True

    async def _hold(self, spec: LadderSpec, renew: bool) -> bool:
        """Take or renew the ladder's lease (``renew`` False: only when it was last
        renewed RENEW_SECONDS ago or more). Every ledger write is fenced by the lease as
        well, so a round that skips the renewal writes nothing once it is lost."""
        renewed = self._renewed.get(spec.name)
        if not renew and renewed is not None and time.monotonic() - renewed < RENEW_SECONDS:
            return True
        name = self.service.lease_name(spec.name)
        held = await asyncio.to_thread(
            lease.acquire, self.service.engine, name, self.replica, LEASE_SECONDS, time.time()
        )
        if not held:
            self._renewed.pop(spec.name, None)
            self._held.discard(spec.name)
            return False
        self._renewed[spec.name] = time.monotonic()
        if spec.name not in self._held:
            log.info("ladder %s: matchmaking here (%s)", spec.name, self.replica)
            self._held.add(spec.name)
        return True

    async def _accounts_of(self, spec: LadderSpec, fresh: bool) -> dict[str, BotAccount]:
        """The ladder's bots by name: read now when ``fresh`` (or never read), else as
        the last full round read them (at most a TICK old; a bot paused or gone since
        is found by the next)."""
        kept = self._accounts.get(spec.name)
        if fresh or kept is None:
            listed = await asyncio.to_thread(self.service.accounts.list, spec.name)
            kept = self._accounts[spec.name] = {a.name: a for a in listed}
        return kept

    # ------------------------------------------------------------------ 1. settle
    async def _settle(
        self, spec: LadderSpec, open_games: list[OpenGame], accounts: dict[str, BotAccount]
    ) -> None:
        now = time.time()
        for game in open_games:
            planned = game.game
            if game.status == PENDING:
                # Its set's other games still open (a closed one is over: rated or failed).
                deal = [g.game.game_id for g in open_games if g.game.set_id == planned.set_id]
                await self._make(spec, planned, deal)
            elif game.returns is not None and game.status == QUICK:
                # Rated by quick play as it was archived: over here.
                await self._set(spec, planned.game_id, PLAYED if game.returns else FAILED, QUICK)
                self._closed.add(planned.game_id)
            elif game.returns is not None:
                await self._finish(spec, planned, game.returns)
            else:
                # A quick-play game's other seats are people's (accounts, never absent
                # here) and house levels'.
                absent = [
                    seat
                    for seat, who in enumerate(planned.seats)
                    if not who.house
                    and (game.status != QUICK or who.name in accounts)
                    and not _present(accounts.get(who.name), now)
                ]
                looked = self._looked.get(planned.game_id, 0.0)
                if absent or now - looked >= LOST_CHECK_SECONDS:
                    self._looked[planned.game_id] = now
                    await self._look_after(spec, game, absent)
        live = {g.game.game_id for g in open_games}
        for game_id in [g for g in self._looked if g not in live]:
            del self._looked[game_id]

    async def _make(self, spec: LadderSpec, planned: PlannedGame, deal: Sequence[str] = ()) -> None:
        """Make a written-down game in the store (or find it made) and claim its bots'
        seats; then it is playing. ``deal``: the ids of its set's games (it plays their
        deal: its hidden cards stay hidden until all are over)."""
        seats = [
            SeatSpec(SeatKind.BOT, s.level, s.name)
            if s.house
            else SeatSpec(SeatKind.HUMAN, name=s.name, runner=True)
            for s in planned.seats
        ]
        timer = Timer(self.config.move_seconds, 0.0, FALLBACK, 0)  # never handed over
        # AlreadyExists: made before this holder (or an earlier tick) got this far.
        with contextlib.suppress(AlreadyExists):
            await self.host.create_game(
                spec.game,
                seats,
                {},
                seed=planned.deal,
                deal_key=f"ladder:{planned.set_id}",
                deal_stream=True,
                deal_games=deal,
                game_id=planned.game_id,
                timer=timer,
            )
        secret = await self.host.store.secret()
        for seat, who in enumerate(planned.seats):
            if who.house:
                continue
            token_hash = hash_token(seat_token(secret, planned.game_id, seat))
            claimed = await claim(self.host, planned.game_id, seat, who.name, token_hash)
            if claimed == BUSY:
                return  # the game kept moving: claimed at a later tick (still pending)
            if claimed == GONE:
                await self._settle_gone(spec, planned)
                return
            if claimed == TAKEN:
                # Someone joined the seat first (it was public for a moment): the game
                # cannot be the bot's. It fails (fenced: only the lease's holder says
                # so), then it is ended.
                if await self._set(spec, planned.game_id, FAILED, PENDING):
                    await steps.abandon(self.host.store, planned.game_id, "a ladder seat was taken")
                return
        await self._set(spec, planned.game_id, PLAYING, PENDING)

    async def _settle_gone(self, spec: LadderSpec, planned: PlannedGame) -> None:
        """A pending game the store no longer has (it ran out, or was played and
        archived before it was marked playing): rated from the archive if it is there
        (playing now: rated at the next tick), else failed."""
        returns = await asyncio.to_thread(self.service.ledger.archived_returns, planned.game_id)
        if returns is not None:
            await self._set(spec, planned.game_id, PLAYING, PENDING)
            return
        log.warning("ladder %s: game %s was lost before it was played", spec.name, planned.game_id)
        await self._set(spec, planned.game_id, FAILED, PENDING)

    async def _set(self, spec: LadderSpec, game_id: str, status: str, before: str) -> bool:
        moved = await asyncio.to_thread(
            self.service.ledger.set_status,
            spec.name,
            self.replica,
            game_id,
            status,
            before,
            time.time(),
        )
        if moved and status == FAILED:
            self._closed.add(game_id)
        return moved

    async def _finish(self, spec: LadderSpec, planned: PlannedGame, returns: list[float]) -> None:
        """A finished game, now in the archive: rated, or a validation game judged."""
        ledger = self.service.ledger
        if not returns:  # ended where it stood (abandoned): no result
            await self._set(spec, planned.game_id, FAILED, PLAYING)
            return
        if planned.validation:
            await self._judge(planned)
            self._judged = True
        await asyncio.to_thread(ledger.rate, spec.name, self.replica, planned, returns, time.time())
        # Rated now, or before (or the lease was lost, and this round writes no more).
        self._closed.add(planned.game_id)

    async def _judge(self, planned: PlannedGame) -> None:
        """A validation game: its bot passes if it played every one of its moves itself."""
        (seat, who) = next((i, s) for i, s in enumerate(planned.seats) if not s.house)
        archived = await self.service.archive.game(planned.game_id, cache=False)
        moves = fallback = handed = 0
        for event in archived.events if archived is not None else []:
            data = event.data
            if data["kind"] == EventKind.ACTION and data.get("seat") == seat:
                moves += 1
                fallback += bool(data.get("timeout"))
            elif data["kind"] == EventKind.SEAT_CHANGED and data.get("seat") == seat:
                handed += 1
        accounts = self.service.accounts
        if archived is not None and not fallback and not handed:
            reason = f"passed its validation game {planned.game_id} ({moves} moves)"
            status = BotStatus.ACTIVE
        else:
            why = "its runner left" if handed else f"{fallback} of {moves} moves by the fallback"
            reason = f"failed its validation game {planned.game_id}: {why}"
            status = BotStatus.PAUSED
        moved = await asyncio.to_thread(
            accounts.set_status, who.name, status, reason, (BotStatus.VALIDATING,)
        )
        if moved and status == BotStatus.PAUSED:
            self._on_paused(who.name)

    async def _look_after(self, spec: LadderSpec, game: OpenGame, absent: list[int]) -> None:
        """An unfinished game: lost when neither the store nor the archive has it; the
        seats of ``absent`` bots go to the fallback level for good."""
        planned = game.game
        snapshot = await self.host.store.load(planned.game_id)
        if snapshot is None:
            returns = await asyncio.to_thread(self.service.ledger.archived_returns, planned.game_id)
            if returns is None:
                log.warning(
                    "ladder %s: game %s was lost before its end", spec.name, planned.game_id
                )
                await self._set(spec, planned.game_id, FAILED, game.status)
            return
        secret = await self.host.store.secret()
        for seat in absent:
            if snapshot.info.seats[seat].is_bot or snapshot.status != GameStatus.IN_PROGRESS:
                continue
            token = seat_token(secret, planned.game_id, seat)
            with contextlib.suppress(ServiceError):  # finished meanwhile, or raced
                await self.host.seating.hand_over(
                    planned.game_id, token, FALLBACK, for_good=True, request_id=f"ladder:{seat}"
                )

    # ------------------------------------------------------------------ 2. validate
    async def _validate(
        self, spec: LadderSpec, open_games: list[OpenGame], accounts: dict[str, BotAccount]
    ) -> None:
        now = time.time()
        validating = {
            s.name for g in open_games if g.game.validation for s in g.game.seats if not s.house
        }
        for account in accounts.values():
            if account.status != BotStatus.VALIDATING or not _present(account, now):
                continue
            if account.name in validating:
                continue
            seat = self._rng.randrange(spec.players)
            seats = tuple(
                LadderSeat(account.name, "")
                if i == seat
                else LadderSeat(VALIDATION_OPPONENT, VALIDATION_OPPONENT)
                for i in range(spec.players)
            )
            game_id = secrets.token_hex(16)
            planned = PlannedGame(game_id, game_id, 0, secrets.randbits(63), True, seats)
            if await self._write(spec, [planned]):
                await self._make(spec, planned)
                self._on_games()

    async def _write(self, spec: LadderSpec, planned: list[PlannedGame]) -> bool:
        return await asyncio.to_thread(
            self.service.ledger.add, spec.name, self.replica, planned, time.time()
        )

    # ------------------------------------------------------------------ 3. pair
    async def _pair(
        self,
        spec: LadderSpec,
        open_games: list[OpenGame],
        accounts: dict[str, BotAccount],
    ) -> None:
        now = time.time()
        sets = open_sets(open_games)  # name -> its open sets
        house_sets: set[str] = set()
        all_sets: set[str] = set()
        for game in open_games:
            if game.game.validation or game.status == QUICK:  # no ladder table's
                continue
            all_sets.add(game.game.set_id)
            if all(s.house for s in game.game.seats):
                house_sets.add(game.game.set_id)
        house = list(dict.fromkeys(self.config.house))
        ratings: dict[str, RatingRow] | None = None  # read once a bot is to be paired

        def mu(name: str) -> float:
            row = (ratings or {}).get(name)
            return row.mu if row is not None else 25.0

        opened = len(all_sets)
        house_open = len(house_sets)
        free = []
        if opened < self.config.tables:  # a whole set must fit each bot's room
            free = await free_bots(
                self.service, spec, accounts.values(), open_games, now, spec.players
            )
        self._rng.shuffle(free)
        free.sort(key=lambda a: len(sets[a.name]))
        while opened < self.config.tables:
            if free:
                if ratings is None:
                    ratings = await asyncio.to_thread(self.service.ledger.ratings, spec.name)
                focus = free.pop(0)
                others = [(h, mu(h)) for h in house]
                others += [(a.name, mu(a.name)) for a in free]
                opponents = pairing.choose_opponents(
                    mu(focus.name), others, spec.players - 1, self._rng, self.config.exploration
                )
                if len(opponents) < spec.players - 1:
                    continue  # not enough opponents for this bot now
                names = [focus.name, *opponents]
                for name in opponents:  # a bot opponent is taken for this set
                    free = [a for a in free if a.name != name]
            elif house_open < self.config.house_tables and len(house) >= spec.players:
                names = self._rng.sample(house, spec.players)
                house_open += 1
            else:
                return
            self._rng.shuffle(names)
            if not await self._play_set(spec, names):
                return
            opened += 1

    async def _play_set(self, spec: LadderSpec, names: list[str]) -> bool:
        house = set(self.config.house)
        set_id = secrets.token_hex(16)
        deal = secrets.randbits(63)
        planned = [
            PlannedGame(
                secrets.token_hex(16),
                set_id,
                rotation,
                deal,
                False,
                tuple(LadderSeat(n, n if n in house else "") for n in seating),
            )
            for rotation, seating in enumerate(pairing.rotations(names))
        ]
        if not await self._write(spec, planned):
            return False  # the lease was lost: another replica matches now
        for game in planned:
            await self._make(spec, game, [g.game_id for g in planned])
        self._on_games()
        return True


async def claim(
    host: GameHost, game_id: str, seat: int, name: str, token_hash: str, account: str = ""
) -> str:
    """Give a bot's seat its token hash, with a joined event built on the version it
    is written at (a house bot may move meanwhile: built again); ``account``
    ("bot:NAME"): the seat is the bot account's too (quick play rates it so). CLAIMED
    once the seat holds it, TAKEN when someone else holds it, GONE when the store has
    no such game, BUSY when the game moved under every try."""
    store = host.store
    for _ in range(CLAIM_TRIES):
        snapshot = await store.load(game_id)
        if snapshot is None:
            return GONE
        held = snapshot.tokens.get(seat)
        if held is not None:  # an earlier holder of the lease claimed it, or not
            return CLAIMED if held == token_hash else TAKEN
        to_move = steps.load_state(snapshot).current_player()
        joined = ev.joined_event(seat, name, snapshot.version, to_move)
        with contextlib.suppress(GameMoved):
            version = snapshot.version
            if await store.claim_seat(game_id, seat, token_hash, joined, version, account=account):
                return CLAIMED
    return BUSY


def open_sets(open_games: Iterable[OpenGame]) -> dict[str, set[str]]:
    """Each participant's open sets, validation games aside (a quick-play game is a
    set of its own)."""
    sets: dict[str, set[str]] = defaultdict(set)
    for game in open_games:
        if not game.game.validation:
            for seat in game.game.seats:
                sets[seat.name].add(game.game.set_id)
    return sets


async def free_bots(
    service: LadderService,
    spec: LadderSpec,
    accounts: Iterable[BotAccount],
    open_games: Iterable[OpenGame],
    now: float,
    games: int,
) -> list[BotAccount]:
    """The bots that may be seated in ``games`` more games of ``spec`` now (a set, or a
    quick-play game): active, connected, below their concurrency, and with room for
    them under ``--ladder-bot-daily-games``."""
    sets = open_sets(open_games)
    free = [
        a
        for a in accounts
        if a.status == BotStatus.ACTIVE and _present(a, now) and len(sets[a.name]) < max(1, a.slots)
    ]
    daily = service.config.daily_games
    if free and daily:
        # As lichess caps bot-against-bot games a day: all of them must fit the cap.
        begun = await asyncio.to_thread(service.ledger.games_since, spec.name, now - DAY)
        free = [a for a in free if begun.get(a.name, 0) + games <= daily]
    return free


def _present(account: BotAccount | None, now: float) -> bool:
    """A bot whose runner is connected (and that is neither paused nor revoked)."""
    return (
        account is not None
        and account.status in (BotStatus.ACTIVE, BotStatus.VALIDATING)
        and account.connected(now)
    )
