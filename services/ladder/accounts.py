"""Bot accounts in the archive: an account of kind bot (``services.accounts``: its
name and key) and its ladder state (``ladder_bots``): registration, the list, revocation, faults counted in a row and the
pause they lead to, moves, and which runner is connected.

Synchronous SQLAlchemy Core: ``service`` runs these on a thread."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Collection, Mapping
from dataclasses import dataclass

import sqlalchemy as sa

from services.accounts.accounts import AccountKind
from services.accounts.accounts import Accounts as AccountBook
from services.ladder.model import BotStatus, Fault
from services.ladder.schema import ladder_bots, ladder_ratings

_COUNT_MOVES = (
    sa.update(ladder_bots)
    .where(ladder_bots.c.name == sa.bindparam("bot"))
    .values(
        moves=ladder_bots.c.moves + sa.bindparam("counted", type_=sa.Integer),
        faults_in_row=sa.case(
            (sa.bindparam("ends_row", type_=sa.Boolean), 0), else_=ladder_bots.c.faults_in_row
        ),
    )
)


@dataclass(frozen=True)
class BotAccount:
    name: str
    ladder: str
    status: str
    reason: str
    owner: str
    created_at: float
    moves: int
    faults_in_row: int
    faults: dict[str, int]  # Fault -> count
    session: str
    slots: int
    connected_until: float
    games: int = 0  # rated games (from its rating)

    def connected(self, now: float) -> bool:
        return bool(self.session) and self.connected_until > now


def _account(row: sa.Row, games: int = 0) -> BotAccount:
    return BotAccount(
        name=row.name,
        ladder=row.ladder,
        status=row.status,
        reason=row.reason,
        owner=row.owner,
        created_at=_aware(row.created_at).timestamp(),
        moves=row.moves,
        faults_in_row=row.faults_in_row,
        faults={f.value: getattr(row, f.value) for f in Fault},
        session=row.session,
        slots=row.slots,
        connected_until=row.connected_until,
        games=games,
    )


def _aware(at: dt.datetime) -> dt.datetime:
    return at if at.tzinfo is not None else at.replace(tzinfo=dt.UTC)


class Accounts:
    def __init__(self, engine: sa.Engine) -> None:
        self.engine = engine
        self.book = AccountBook(engine)

    def register(
        self, name: str, ladder: str, owner: str, limit: int = 0, window: float = 3600.0
    ) -> str:
        """A new bot (validating): an account of kind bot and its ladder row, in one
        transaction; returns its key. AlreadyExists if the name is taken (in any case,
        by an account of either kind); ResourceExhausted when ``owner`` registered
        ``limit`` bots (0: no limit) in the last ``window`` seconds
        (``services.accounts.accounts.Accounts.insert``)."""
        row = {
            "name": name,
            "ladder": ladder,
            "status": BotStatus.VALIDATING,
            "reason": "registered: plays a validation game against random once connected",
            "owner": owner,
            "created_at": dt.datetime.now(dt.UTC),
            "moves": 0,
            "faults_in_row": 0,
            **{f.value: 0 for f in Fault},
            "session": "",
            "slots": 0,
            "connected_until": 0.0,
        }
        with self.engine.begin() as connection:
            key = self.book.insert(connection, name, AccountKind.BOT, owner, limit, window)
            connection.execute(sa.insert(ladder_bots).values(row))
        return key

    def get(self, name: str) -> BotAccount | None:
        found = self.list(name=name)
        return found[0] if found else None

    def by_key(self, key: str) -> BotAccount | None:
        account = self.book.by_key(key)
        if account is None or account.kind != AccountKind.BOT:
            return None
        return self.get(account.name)

    def list(self, ladder: str = "", name: str = "") -> list[BotAccount]:
        """Accounts (with their rated games), by name."""
        games = (
            sa.select(ladder_ratings.c.games)
            .where(
                ladder_ratings.c.ladder == ladder_bots.c.ladder,
                ladder_ratings.c.name == ladder_bots.c.name,
            )
            .scalar_subquery()
        )
        query = sa.select(ladder_bots, games.label("rated_games")).order_by(ladder_bots.c.name)
        if ladder:
            query = query.where(ladder_bots.c.ladder == ladder)
        if name:
            query = query.where(ladder_bots.c.name == name)
        with self.engine.connect() as connection:
            return [_account(r, r.rated_games or 0) for r in connection.execute(query)]

    def set_status(
        self, name: str, status: str, reason: str, only_from: tuple[str, ...] = ()
    ) -> bool:
        """Move a bot to ``status`` (from one of ``only_from``, when given); True if it moved."""
        query = sa.update(ladder_bots).where(ladder_bots.c.name == name)
        if only_from:
            query = query.where(ladder_bots.c.status.in_(only_from))
        values: dict = {"status": status, "reason": reason}
        if status in (BotStatus.PAUSED, BotStatus.REVOKED):
            values.update(session="", connected_until=0.0)  # its runner is told and let go
        with self.engine.begin() as connection:
            moved = bool(connection.execute(query.values(**values)).rowcount)
            if moved and status == BotStatus.REVOKED:
                AccountBook.revoke(connection, name)
            return moved

    # ------------------------------------------------------------------ runners
    def connect(self, name: str, session: str, slots: int, until: float) -> BotAccount | None:
        """A runner connected: it is the bot's runner from now (an earlier one is let
        go at its next heartbeat). A paused bot is given another chance: it validates
        again. None when the bot is revoked (or gone)."""
        with self.engine.begin() as connection:
            row = connection.execute(
                sa.select(ladder_bots).where(ladder_bots.c.name == name).with_for_update()
            ).first()
            if row is None or row.status == BotStatus.REVOKED:
                return None
            values: dict = {"session": session, "slots": slots, "connected_until": until}
            if row.status == BotStatus.PAUSED:
                values.update(
                    status=BotStatus.VALIDATING,
                    reason=f"reconnected after a pause ({row.reason}): validates again",
                    faults_in_row=0,
                )
            connection.execute(
                sa.update(ladder_bots).where(ladder_bots.c.name == name).values(**values)
            )
        return self.get(name)

    def heartbeats(
        self, sessions: Collection[tuple[str, str]], until: float
    ) -> set[tuple[str, str]]:
        """Keep each (bot, session) connected until ``until``, in one transaction;
        returns those that still are their bot's runner (not replaced by another
        connection, nor let go by a pause or revocation)."""
        pairs = list(sessions)
        if not pairs:
            return set()
        # One statement for all of a replica's runners, however many.
        with self.engine.begin() as connection:
            kept = connection.execute(
                sa.update(ladder_bots)
                .where(sa.tuple_(ladder_bots.c.name, ladder_bots.c.session).in_(pairs))
                .values(connected_until=until)
                .returning(ladder_bots.c.name, ladder_bots.c.session)
            )
            return {(row.name, row.session) for row in kept}

    def connected(self, ladder: str, now: float | None = None) -> list[BotAccount]:
        """Bots of ``ladder`` with a runner connected now, validating or active."""
        now = time.time() if now is None else now
        with self.engine.connect() as connection:
            rows = connection.execute(
                sa.select(ladder_bots).where(
                    ladder_bots.c.ladder == ladder,
                    ladder_bots.c.status.in_((BotStatus.ACTIVE, BotStatus.VALIDATING)),
                    ladder_bots.c.session != "",
                    ladder_bots.c.connected_until > now,
                )
            )
            return [_account(r) for r in rows]

    # ------------------------------------------------------------------ moves and faults
    def record_fault(self, name: str, fault: Fault, max_faults: int) -> tuple[int, bool]:
        """Count one fault; returns (faults in a row now, whether this paused the bot)."""
        column = ladder_bots.c[fault.value]
        with self.engine.begin() as connection:
            connection.execute(
                sa.update(ladder_bots)
                .where(ladder_bots.c.name == name)
                .values({column: column + 1, "faults_in_row": ladder_bots.c.faults_in_row + 1})
            )
            row = connection.execute(
                sa.select(ladder_bots.c.faults_in_row, ladder_bots.c.status).where(
                    ladder_bots.c.name == name
                )
            ).first()
            if row is None:
                return 0, False
            paused = row.faults_in_row >= max_faults and row.status in (
                BotStatus.ACTIVE,
                BotStatus.VALIDATING,
            )
            if paused:
                connection.execute(
                    sa.update(ladder_bots)
                    .where(ladder_bots.c.name == name)
                    .values(
                        status=BotStatus.PAUSED,
                        reason=f"{row.faults_in_row} faults in a row (the last: {fault.value})",
                        session="",
                        connected_until=0.0,
                    )
                )
        return row.faults_in_row, paused

    def record_moves(self, moves: Mapping[str, tuple[int, bool]]) -> None:
        """Count moves bots made themselves: name -> (moves, whether the last thing
        that happened to the bot here was a move, which ends its row of faults)."""
        if not moves:
            return
        with self.engine.begin() as connection:
            # One statement, executed for every bot (a flush each second on a busy ladder).
            connection.execute(
                _COUNT_MOVES,
                [
                    {"bot": name, "counted": count, "ends_row": ends_row}
                    for name, (count, ends_row) in moves.items()
                ],
            )
