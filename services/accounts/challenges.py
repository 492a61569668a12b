"""Challenges between accounts (docs/accounts.md): ``Challenge`` stores one, pending,
and tells the challenged account on its event stream; ``AnswerChallenge`` accepts it
(a game is made with the challenger in seat 0 and the challenged in seat 1, and both
are told it started) or declines it; the challenger is told the outcome.

Stored in the archive database (``challenges``), so any replica answers any challenge.
An answer is one compare-and-set (pending -> accepted or declined), and an accepted
challenge's game id is derived from the challenge's: a retried or racing accept makes
the one game once, and its news is told once (when the game id is first recorded)."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import json
import secrets
import time
from dataclasses import dataclass

import sqlalchemy as sa

from games import GameError, game_names, get_game
from games.base import quote_input
from services.accounts.accounts import Account
from services.accounts.event_log import EventLog
from services.accounts.events import PlayerEvents
from services.accounts.schema import challenges
from services.accounts.service import AccountService
from services.errors import (
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    ResourceExhausted,
)
from services.kinds import SeatKind
from services.play.host import GameHost, Joiner, SeatSpec

PENDING, ACCEPTED, DECLINED, EXPIRED = "pending", "accepted", "declined", "expired"
SENT_PENDING = 10  # pending challenges an account has sent, at most
RECEIVED_PENDING = 20  # pending challenges an account has received, at most
EXPIRES_SECONDS = 600.0  # a challenge not answered by then is expired
KEEP_SECONDS = 24 * 3600.0  # a challenge is kept this long after it expired or was answered
RECEIVED, ANSWERED = "PLAYER_CHALLENGE_RECEIVED", "PLAYER_CHALLENGE_ANSWERED"


@dataclass(frozen=True)
class ChallengeRow:
    challenge_id: str
    challenger: str
    challenged: str
    game_type: str
    options: dict[str, str]
    state: str  # PENDING, ACCEPTED, DECLINED; EXPIRED: pending past expires_at
    game_id: str
    created_at: float
    expires_at: float

    def to_event(self) -> dict:
        """The ChallengeInfo's fields, as a PlayerEvent's ``challenge``."""
        fields = dataclasses.asdict(self)
        fields["state"] = "CHALLENGE_" + self.state.upper()
        return fields


def _row(row: sa.Row, now: float) -> ChallengeRow:
    state = EXPIRED if row.state == PENDING and row.expires_at <= now else row.state
    return ChallengeRow(
        row.challenge_id,
        row.challenger,
        row.challenged,
        row.game_type,
        json.loads(row.options),
        state,
        row.game_id,
        row.created_at,
        row.expires_at,
    )


def game_of(challenge_id: str) -> str:
    """An accepted challenge's game id (32 hex digits), the same on every try."""
    return hashlib.sha256(f"challenge:{challenge_id}".encode()).hexdigest()[:32]


class Challenges:
    """The challenges table (synchronous SQLAlchemy Core, run on a thread)."""

    def __init__(self, engine: sa.Engine) -> None:
        self.engine = engine

    def create(
        self, challenger: str, challenged: str, game_type: str, options: dict[str, str]
    ) -> ChallengeRow:
        """A pending challenge, told to ``challenged`` in the same transaction.
        ResourceExhausted when either account has too many pending."""
        now = time.time()
        with self.engine.begin() as connection:
            for name in sorted({challenger, challenged}):  # one order: no deadlock
                EventLog.lock(connection, name)
            # The table's bound: the two accounts' old challenges go.
            connection.execute(
                sa.delete(challenges).where(
                    sa.or_(
                        challenges.c.challenger.in_([challenger, challenged]),
                        challenges.c.challenged.in_([challenger, challenged]),
                    ),
                    challenges.c.expires_at < now - KEEP_SECONDS,
                )
            )
            for column, name, most, whose in (
                (challenges.c.challenger, challenger, SENT_PENDING, "you have sent"),
                (challenges.c.challenged, challenged, RECEIVED_PENDING, f"{challenged} has"),
            ):
                pending = connection.execute(
                    sa.select(sa.func.count())
                    .select_from(challenges)
                    .where(column == name, challenges.c.state == PENDING)
                    .where(challenges.c.expires_at > now)
                ).scalar()
                if pending >= most:
                    raise ResourceExhausted(
                        f"{whose} {pending} pending challenges, the most allowed: wait until "
                        f"one is answered or expires ({EXPIRES_SECONDS:g} s after it was sent)"
                    )
            row = {
                "challenge_id": secrets.token_hex(8),
                "challenger": challenger,
                "challenged": challenged,
                "game_type": game_type,
                "options": json.dumps(options, sort_keys=True),
                "state": PENDING,
                "game_id": "",
                "created_at": now,
                "expires_at": now + EXPIRES_SECONDS,
            }
            connection.execute(sa.insert(challenges).values(**row))
            made = ChallengeRow(**{**row, "options": dict(options)})
            EventLog.append(connection, challenged, {"kind": RECEIVED, **_about(made)})
        return made

    def get(self, challenge_id: str) -> ChallengeRow | None:
        with self.engine.connect() as connection:
            row = connection.execute(
                sa.select(challenges).where(challenges.c.challenge_id == challenge_id)
            ).first()
        return None if row is None else _row(row, time.time())

    def answer(self, challenge_id: str, state: str) -> bool:
        """pending -> ``state``, if still pending and not expired: whether it changed."""
        with self.engine.begin() as connection:
            return bool(
                connection.execute(
                    sa.update(challenges)
                    .where(
                        challenges.c.challenge_id == challenge_id,
                        challenges.c.state == PENDING,
                        challenges.c.expires_at > time.time(),
                    )
                    .values(state=state)
                ).rowcount
            )

    def settle(self, challenge_id: str, game_id: str) -> ChallengeRow | None:
        """Record the answered challenge's game ("" for a declined one) and tell the
        challenger the outcome, once: the row as told, or None if told before."""
        with self.engine.begin() as connection:
            found = self.get(challenge_id)
            assert found is not None
            EventLog.lock(connection, found.challenger)
            marker = game_id or "-"  # a declined challenge's, once told
            changed = connection.execute(
                sa.update(challenges)
                .where(challenges.c.challenge_id == challenge_id, challenges.c.game_id == "")
                .values(game_id=marker)
            ).rowcount
            if not changed:
                return None
            told = dataclasses.replace(found, game_id=game_id)
            EventLog.append(connection, found.challenger, {"kind": ANSWERED, **_about(told)})
        return told


def _about(row: ChallengeRow) -> dict:
    return {"game_id": row.game_id, "game_type": row.game_type, "challenge": row.to_event()}


class ChallengeService:
    def __init__(self, host: GameHost, accounts: AccountService, events: PlayerEvents) -> None:
        self.host = host
        self.accounts = accounts
        self.events = events
        self.table = Challenges(accounts.accounts.engine)

    async def challenge(
        self, key: str, name: str, game_type: str, options: dict[str, str]
    ) -> ChallengeRow:
        challenger = await self.accounts.authenticate(key)
        challenged = await self.accounts.get(name)
        if challenged.name == challenger.name:
            raise InvalidArgument("an account cannot challenge itself", field="name")
        _check_game(game_type, options)
        made = await asyncio.to_thread(
            self.table.create, challenger.name, challenged.name, game_type, dict(options)
        )
        self.events.wake(challenged.name)
        return made

    async def answer(self, key: str, challenge_id: str, accept: bool) -> ChallengeRow:
        account = await self.accounts.authenticate(key)
        found = await self._find(challenge_id)
        if found.challenged != account.name:
            raise PermissionDenied(
                f"challenge {challenge_id} was sent to {found.challenged}, not to "
                f"{account.name}: only the challenged account answers it",
                field="challenge_id",
            )
        state = ACCEPTED if accept else DECLINED
        if found.state == PENDING:
            await asyncio.to_thread(self.table.answer, challenge_id, state)
            found = await self._find(challenge_id)
        if found.state != state:  # answered the other way, or expired
            raise FailedPrecondition(
                f"challenge {challenge_id} is {found.state}: it can no longer be "
                f"{'accepted' if accept else 'declined'}",
                field="challenge_id",
            )
        game_id = await self._make_game(found, account) if accept else ""
        told = await asyncio.to_thread(self.table.settle, challenge_id, game_id)
        if told is not None:
            self.events.wake(found.challenger)
        return await self._find(challenge_id)

    async def _find(self, challenge_id: str) -> ChallengeRow:
        found = await asyncio.to_thread(self.table.get, challenge_id) if challenge_id else None
        if found is None:
            raise NotFound(f"no challenge {challenge_id!r}", field="challenge_id")
        if found.game_id == "-":
            found = dataclasses.replace(found, game_id="")
        return found

    async def _make_game(self, found: ChallengeRow, challenged: Account) -> str:
        """The accepted challenge's game with both accounts seated (once: a retry finds
        it made and both seated), and both told it started."""
        challenger = await self.accounts.get(found.challenger)
        game_id = game_of(found.challenge_id)
        seats = [SeatSpec(SeatKind.HUMAN), SeatSpec(SeatKind.HUMAN)]
        with contextlib.suppress(AlreadyExists):  # made by an earlier try
            await self.host.create_game(found.game_type, seats, found.options, game_id=game_id)
        for seat, account in enumerate((challenger, challenged)):
            joiner = Joiner(account.name, account.kind.value, account.seat_secret)
            # Seated by an earlier try (the game's id is the challenge's alone).
            with contextlib.suppress(AlreadyExists, FailedPrecondition):
                await self.host.join_game(game_id, seat, "", "", joiner)
            await self.events.started(account.name, game_id, found.game_type, seat)
        return game_id


def _check_game(game_type: str, options: dict[str, str]) -> None:
    """A game for two seats with these options, or INVALID_ARGUMENT."""
    if game_type not in game_names():
        raise InvalidArgument(
            f"unknown game {quote_input(game_type)}; known: {', '.join(sorted(game_names()))}",
            field="game_type",
        )
    game = get_game(game_type)
    if not game.info.min_players <= 2 <= game.info.max_players:
        raise InvalidArgument(
            f"{game_type} is not played by two: a challenge is a game for two seats",
            field="game_type",
        )
    try:
        game.parse_options(options)
    except GameError as exc:
        raise InvalidArgument(str(exc), field="options") from None
