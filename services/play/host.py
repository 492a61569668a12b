"""Game hosting: the service's rules of engagement, independent of gRPC.

Creates and joins games, authenticates seats, checks and applies actions, and
serves state, events and records as each caller may see them. Every failure is
a ``services.errors`` exception whose message a client developer can act on;
a failed call changes nothing.
"""

from __future__ import annotations

import dataclasses
import secrets
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import bots
from bots.levels import get_level
from games import (
    GameError,
    State,
    game_names,
    get_game,
)
from games.base import quote_input
from services import metrics
from services.archive import listing
from services.archive.archive import Archive, ArchivedSummary
from services.archive.listing import ListQuery
from services.errors import (
    Aborted,
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    ResourceExhausted,
)
from services.kinds import GAME_ID, GameStatus, SeatControl, SeatKind
from services.limits import access
from services.limits.access import hash_token
from services.play import seating
from services.play.positions import RecentPositions
from services.play.reading import GameView, Reading
from services.play.submitting import Submitting
from services.stores import (
    GameExists,
    GameMoved,
    GameStore,
    NewGame,
    Snapshot,
)
from services.stores.records import GameMeta, Seat
from services.turns import clock, seat_control, steps
from services.watch import events as ev
from services.watch.hub import WatchHub

_JOIN_TRIES = 8  # a join built again after a bot moved under it, at most this often
SPECTATOR = access.SPECTATOR


@dataclass(frozen=True)
class Joiner:
    """An account joining a game (docs/accounts.md): its name and kind, and the secret
    its seat tokens are derived from (``access.account_seat_token``)."""

    name: str
    kind: str  # "human" or "bot"
    seat_secret: str = dataclasses.field(repr=False)


@dataclass(frozen=True)
class SeatSpec:
    kind: str  # SeatKind.HUMAN or SeatKind.BOT
    level: str = ""
    name: str = ""
    runner: bool = False  # HUMAN: a registered bot's runner plays it (Seat.runner)


class GameHost:
    """Creates, joins, loads and lists games, and holds the parts the rest is done by:
    ``seating`` (AddBot, HandOverSeat, TakeBackSeat, SetSeatOptions), ``reading``
    (WatchGame, GetRecord) and ``submitting`` (SubmitAction)."""

    def __init__(
        self,
        store: GameStore,
        runner: seating.BotKicker,
        live_games_per_client: int = 0,
        archive: Archive | None = None,
    ) -> None:
        self.store = store
        self.archive = archive  # finished games the store has forgotten are read from it
        self.runner = runner
        self.hub = WatchHub(store)  # every WatchGame stream of this replica reads through it
        self.live_games_per_client = live_games_per_client  # 0: no cap
        self.positions = RecentPositions()
        # AddBot, HandOverSeat, TakeBackSeat and rejoining a seat handed over for good.
        self.seating = seating.Seating(store, runner, self.load, self.viewer)
        self.reading = Reading(
            store, archive, self.hub, self.load, self.viewer, self.all_over, self.positions
        )
        self.submitting = Submitting(
            store, self.hub, self.load, self.viewer, self.positions, self.kick_bots
        )

    # ------------------------------------------------------------------ catalogue
    @staticmethod
    def game_types() -> list[type]:
        return [get_game(name) for name in game_names()]

    @staticmethod
    def bot_levels() -> list[str]:
        return bots.level_names()

    # ------------------------------------------------------------------ create / join
    async def create_game(
        self,
        game_type: str,
        seats: list[SeatSpec],
        options: Mapping[str, str],
        seed: int | None = None,
        *,
        private: bool = False,
        spectators: bool = True,
        owner: str = "",
        tournament: Mapping[str, Any] | None = None,
        deal_key: str = "",
        deal_stream: bool = False,
        deal_games: Sequence[str] = (),
        game_id: str | None = None,
        bots_by_anyone: bool = False,
        rejoin_handed_seats: bool = False,
        timer: clock.Timer | None = None,
        rated: bool = False,
    ) -> GameView:
        """``bots_by_anyone``: anyone may add a bot to a free seat (else only the
        creator, with the answer's ``creator_token``); ``rejoin_handed_seats``: a seat
        handed over for good may be joined again; ``timer``: turn timers of human seats
        (``services.turns.clock``); ``rated``: rated once over, when every seat is an
        account's or a house level's (``services.accounts.ratings``).

        ``tournament`` (name, round, table) is recorded in the game's meta;
        ``deal_key``, when set, replaces the game id in the seed mixing of games with
        people, so tables of one tournament deal get one board (duplicate deals);
        ``deal_stream`` draws chance by occurrence (``services.turns.steps.Luck``), so they
        also roll the same dice; ``deal_games``, the ids of every game of the deal (this
        one too), whose hidden actions stay hidden until all are over
        (``access.log_public``). ``game_id``, when set, is the new game's id: if a game
        with it exists, ALREADY_EXISTS and nothing is created (a tournament's table
        game, which racing replicas create once)."""
        if game_type not in game_names():
            raise InvalidArgument(
                f"unknown game {quote_input(game_type)}; known: {', '.join(sorted(game_names()))}",
                field="game_type",
            )
        game = get_game(game_type)
        if timer is not None:
            problem = clock.timer_problem(timer)
            if problem is not None:  # "timer.move_seconds must be ...": that field
                raise InvalidArgument(problem, field=problem.split(" ", 1)[0])
            try:
                fallback = seating.level_or_random(timer.fallback)
            except InvalidArgument as exc:
                raise InvalidArgument(str(exc), field="timer.fallback_level") from None
            timer = dataclasses.replace(timer, fallback=fallback)
        if not seats:
            raise InvalidArgument("a game needs seats: list one SeatSpec per player", field="seats")
        meta_seats: list[Seat] = []
        for index, seat in enumerate(seats):
            if seat.kind == SeatKind.BOT:
                level = seat.level or "random"
                try:
                    get_level(level)
                except ValueError as exc:
                    raise InvalidArgument(str(exc), field=f"seats[{index}].bot_level") from None
                meta_seats.append(Seat(SeatKind.BOT, level, seat.name or level))
            elif seat.kind == SeatKind.HUMAN:
                meta_seats.append(Seat(SeatKind.HUMAN, "", seat.name, runner=seat.runner))
            else:
                raise InvalidArgument("kind must be HUMAN or BOT", field=f"seats[{index}].kind")
        game_id = game_id or secrets.token_hex(16)
        if seed is None:
            seed = secrets.randbits(63)
        elif not all(s.is_bot for s in meta_seats):
            # A person could foresee hidden draws from a seed they chose: mix in the
            # server secret. All-bot games keep their seed (reproducible selfplay).
            seed = access.mix_seed(await self.store.secret(), seed, deal_key or game_id)
        try:
            parsed = game.parse_options(options)
            state = game.new_game(len(seats), seed, parsed)
        except GameError as exc:
            raise InvalidArgument(str(exc), field="options") from None
        invite_codes = (
            {i: access.new_invite_code() for i, s in enumerate(meta_seats) if not s.is_bot}
            if private
            else {}
        )
        cap = self.live_games_per_client
        if owner and cap > 0 and not await self.store.reserve_live_game(owner, game_id, cap):
            raise ResourceExhausted(
                f"you have {self.live_games_per_client} unfinished games, the most "
                "allowed per client; finish one or wait until one expires"
            )
        creator_token = secrets.token_urlsafe(24)
        luck = steps.Luck() if deal_stream else None
        log, version = steps.creation_log(state, seed, luck)
        meta = GameMeta(
            game_type=game_type,
            players=len(seats),
            options=parsed,
            seats=tuple(meta_seats),
            seed=seed,
            created=time.time(),
            private=private,
            spectators=spectators,
            invites={str(i): access.hash_code(c) for i, c in invite_codes.items()},
            creator=hash_token(creator_token),
            bots_by_anyone=bots_by_anyone,
            rejoin_handed_seats=rejoin_handed_seats,
            rated=rated,
            tournament=None if tournament is None else dict(tournament),
            deal_stream=deal_stream,
            deal_games=tuple(deal_games),
        )
        meta = clock.start(meta, timer)
        meta = clock.restart(meta, state, version, time.time(), moved=True)
        if state.is_terminal():  # the set-up ended it
            meta = steps.finished_meta(meta, meta.created)
        running = clock.running(meta, version)
        if running is not None:
            log[-1]["clock"] = running
        new_game = NewGame(
            game_id,
            meta.to_dict(),
            state.to_bytes(),
            version,
            steps.status_of(state),
            log,
            bot_due_in=clock.due_in(meta, state, version, time.time()),
            luck=luck.dumps() if luck is not None else "",
        )
        try:
            await self.store.create(new_game)
        except GameExists:
            raise AlreadyExists(f"a game with id {game_id} exists") from None
        metrics.GAMES_CREATED.labels(game_type).inc()
        snapshot = await self.load(game_id)
        self.kick_bots(snapshot, state)
        return GameView(snapshot, state, SPECTATOR, invite_codes, creator_token)

    async def join_game(
        self,
        game_id: str,
        seat: int | None,
        name: str,
        invite_code: str = "",
        account: Joiner | None = None,
    ) -> tuple[int, str]:
        """Take a seat; returns it and its token. With ``account``, the seat belongs to
        the account and is named as it is; without, a guest plays it under ``name``."""
        if account is not None:
            if name and name != account.name:
                raise InvalidArgument(
                    f"an account joins under its own name: send no name, or {account.name!r}",
                    field="name",
                )
            name = account.name
        # The joined event says whose turn it is: it is claimed at the version it was
        # built on, and built again when a bot moved meanwhile.
        for _ in range(_JOIN_TRIES):
            try:
                snapshot = await self.load(game_id)
                return await self._join_at(snapshot, seat, name, invite_code, account)
            except GameMoved:
                continue
        raise Aborted(f"game {game_id} kept moving while you joined: join again")

    async def _join_at(
        self,
        snapshot: Snapshot,
        seat: int | None,
        name: str,
        invite_code: str,
        account: Joiner | None,
    ) -> tuple[int, str]:
        game_id = snapshot.game_id
        seats = snapshot.info.seats
        held = account and next((i for i, s in enumerate(seats) if s.account == name), None)
        if held is not None:
            raise FailedPrecondition(
                f"account {name} already holds seat {held} of game {game_id}: GetMySeat "
                "gives its token back"
            )
        if snapshot.info.private:
            invited = access.seat_for_invite(snapshot.info.invites, invite_code)
            if invited is None or (seat is not None and seat != invited):
                raise PermissionDenied(
                    f"game {game_id} is private: join with the invite code its creator "
                    "got for your seat"
                )
            seat = invited
        if seat is None:
            free = seating.free_seats(snapshot)
            if not free:
                raise FailedPrecondition(f"game {game_id} has no free human seat")
            seat = free[0]
        if not 0 <= seat < len(seats):
            raise InvalidArgument(
                f"seat {seat} does not exist: this game has seats 0-{len(seats) - 1}",
                field="seat",
            )
        if snapshot.archived:  # over: its seats are what they were
            raise FailedPrecondition(f"game {game_id} is over: it takes no more players")
        if seats[seat].control == SeatControl.HANDED_OVER:
            return await self.seating.rejoin(game_id, seat, name)
        if seats[seat].is_bot:
            raise PermissionDenied(f"seat {seat} is played by a bot; join a human seat")
        token = secrets.token_urlsafe(24)
        bound = ""
        if account is not None:
            token = access.account_seat_token(account.seat_secret, game_id, seat)
            bound = f"{account.kind}:{account.name}"
        to_move = steps.load_state(snapshot).current_player()
        event = ev.joined_event(seat, name, snapshot.version, to_move)
        if not await self.store.claim_seat(
            game_id,
            seat,
            hash_token(token),
            event,
            version=snapshot.version,
            name=name,
            account=bound,
        ):
            raise AlreadyExists(f"seat {seat} of game {game_id} is already taken")
        return seat, token

    def kick_bots(self, snapshot: Snapshot, state: State) -> None:
        if seat_control.bot_to_move(snapshot.info, state):
            self.runner.kick(snapshot.game_id)

    # ------------------------------------------------------------------ reading
    async def load(self, game_id: str, request_key: str | None = None) -> Snapshot:
        """The game as stored; one the store has forgotten (archived, then forgotten by
        the archiver, or after retention) comes from the archive (``Snapshot.archived``)
        with the same metadata, tokens and final state, and the result of
        ``request_key`` (archived with the game): so a finished game answers every call
        the same before and after it left the store."""
        if not GAME_ID.fullmatch(game_id or ""):
            raise InvalidArgument(
                f"malformed game id {quote_input(game_id)}: expected 32 hex digits",
                field="game_id",
            )
        snapshot = await self.store.load(game_id, request_key)
        if snapshot is not None:
            return snapshot
        archived = await self.archive.game(game_id) if self.archive is not None else None
        if archived is None:
            raise NotFound(f"no game {game_id}")
        if not request_key:
            return archived.snapshot
        previous = archived.requests.get(request_key)
        return dataclasses.replace(archived.snapshot, request_result=previous)

    # The one read check (``access.reader``): every read and seat call goes through it.
    viewer = staticmethod(access.reader)

    async def view_at(self, game_id: str, token: str, event_id: int) -> GameView:
        """The game as ``token`` sees it at event ``event_id``, which a watch of this
        replica delivered: from the position kept for it when there is one (no store
        read), else read from the store (then it may be later than that event)."""
        kept = self.positions.at(game_id, event_id)
        if kept is not None:
            snapshot, state = kept
            viewer = self.viewer(snapshot, token)
            return GameView(snapshot, state, viewer, withheld=await self._withheld(snapshot))
        return await self.get_state(game_id, token)

    async def get_state(self, game_id: str, token: str) -> GameView:
        snapshot = await self.load(game_id)
        viewer = self.viewer(snapshot, token)
        state = steps.load_state(snapshot)
        # Bots move without it (every replica sweeps the schedule); this only wakes the sweeper.
        self.kick_bots(snapshot, state)
        return GameView(snapshot, state, viewer, withheld=await self._withheld(snapshot))

    async def _withheld(self, snapshot: Snapshot) -> bool:
        """Over, but its log not public yet: a game of its deal still runs."""
        finished = snapshot.status == GameStatus.FINISHED
        return finished and not await self.reading.log_public(snapshot)

    async def all_over(self, game_ids: Sequence[str]) -> bool:
        """Whether every one of ``game_ids`` is over: finished in the store, else held by
        the archive (it holds only finished games). A game in neither (not made yet,
        or lost) is not."""
        left = []
        for game_id in game_ids:
            snapshot = await self.store.load(game_id)
            if snapshot is None:
                left.append(game_id)
            elif snapshot.status != GameStatus.FINISHED:
                return False
        if not left:
            return True
        return self.archive is not None and len(await self.archive.held(left)) == len(left)

    @staticmethod
    def to_move(snapshot: Snapshot, account: str) -> bool:
        """Whether ``account``'s seat is to move in the live game (ListGames(mine))."""
        if snapshot.status != GameStatus.IN_PROGRESS:
            return False
        seat = steps.load_state(snapshot).current_player()
        seats = snapshot.info.seats
        return 0 <= seat < len(seats) and seats[seat].account == account

    async def list_games(self, query: ListQuery) -> tuple[list[Snapshot | ArchivedSummary], str]:
        """One page of games (live from the store, finished from the archive: the merge
        is ``services.archive.listing``'s) and the next page's token."""
        if query.game_type and query.game_type not in game_names():
            raise InvalidArgument(
                f"unknown game type {quote_input(query.game_type)}; "
                f"choose one of: {', '.join(game_names())}"
            )
        return await listing.list_games(self.store.list_games, self.archive, query, self.all_over)
