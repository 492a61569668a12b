"""Each account's event log in the archive database (``account_events``), and what its
stream has told of each of its games (``account_feeds``).

An account's events are numbered 1, 2, 3... by the account's own sequence. Every
write locks the account's row first (``lock``), so its events commit in the order of their numbers: a
reader that saw event n has missed none before it, whichever replica wrote them.
Each game's news is written at most once (its start, each turn's version, its end),
checked in that same transaction, so two replicas watching one account never tell
anything twice. The log keeps the account's newest ``KEEP`` events.

Synchronous SQLAlchemy Core: ``services.accounts.events`` runs these on a thread."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from services.accounts.schema import account_events, account_feeds, accounts

KEEP = 256  # events kept (and so replayed at most) per account
FEED_KEEP_SECONDS = 7 * 24 * 3600.0  # a finished game's feed row is kept this long


@dataclass(frozen=True)
class LoggedEvent:
    seq: int
    at: float  # Unix seconds
    data: dict[str, Any]  # the PlayerEvent's fields (proto names), event_id and at aside


class EventLog:
    def __init__(self, engine: sa.Engine) -> None:
        self.engine = engine

    # ------------------------------------------------------------------ writing
    @staticmethod
    def lock(connection: sa.Connection, account: str) -> None:
        """Take the account's row for this transaction: its events are written in turn.
        A write that changes nothing, as the transaction's first statement: PostgreSQL
        locks the row, SQLite takes its one writer's lock before anything is read."""
        connection.execute(
            sa.update(accounts).where(accounts.c.name == account).values(revoked=accounts.c.revoked)
        )

    @staticmethod
    def append(connection: sa.Connection, account: str, data: dict[str, Any]) -> int:
        """Append an event in ``connection``'s transaction, which holds ``lock(account)``;
        its number. The oldest beyond KEEP go."""
        newest = connection.execute(
            sa.select(sa.func.max(account_events.c.seq)).where(account_events.c.account == account)
        ).scalar()
        seq = (newest or 0) + 1
        connection.execute(
            sa.insert(account_events).values(
                account=account, seq=seq, at=time.time(), data=json.dumps(data)
            )
        )
        connection.execute(
            sa.delete(account_events).where(
                account_events.c.account == account, account_events.c.seq <= seq - KEEP
            )
        )
        return seq

    def add(self, account: str, data: dict[str, Any]) -> int:
        with self.engine.begin() as connection:
            self.lock(connection, account)
            return self.append(connection, account, data)

    def started(self, account: str, game_id: str, seat: int, data: dict[str, Any]) -> bool:
        """Tell the game's start once: whether this call told it."""
        with self.engine.begin() as connection:
            self.lock(connection, account)
            if self._feed_row(connection, account, game_id) is not None:
                return False
            connection.execute(
                sa.insert(account_feeds).values(
                    account=account,
                    game_id=game_id,
                    seat=seat,
                    turn_version=-1,
                    finished=False,
                    updated_at=time.time(),
                )
            )
            self.append(connection, account, data)
            return True

    def turn(self, account: str, game_id: str, version: int, data: dict[str, Any]) -> bool:
        """Tell the turn at ``version`` once, and never one older than a turn told."""
        return self._advance(
            account,
            game_id,
            {"turn_version": version},
            (account_feeds.c.turn_version < version) & ~account_feeds.c.finished,
            data,
        )

    def finished(self, account: str, game_id: str, data: dict[str, Any] | None) -> bool:
        """Tell the game's end once (``data`` None: the seat is no longer the account's,
        so its game is fed no more, silently)."""
        return self._advance(account, game_id, {"finished": True}, ~account_feeds.c.finished, data)

    def _advance(
        self,
        account: str,
        game_id: str,
        values: dict[str, Any],
        unless_told: sa.ColumnElement[bool],
        data: dict[str, Any] | None,
    ) -> bool:
        with self.engine.begin() as connection:
            self.lock(connection, account)
            changed = connection.execute(
                sa.update(account_feeds)
                .where(
                    account_feeds.c.account == account,
                    account_feeds.c.game_id == game_id,
                    unless_told,
                )
                .values(updated_at=time.time(), **values)
            ).rowcount
            if changed and data is not None:
                self.append(connection, account, data)
            return bool(changed)

    @staticmethod
    def _feed_row(connection: sa.Connection, account: str, game_id: str) -> sa.Row | None:
        return connection.execute(
            sa.select(account_feeds.c.seat).where(
                account_feeds.c.account == account, account_feeds.c.game_id == game_id
            )
        ).first()

    def forget_old(self, account: str) -> None:
        """Drop the feed rows of games whose end was told long ago (FEED_KEEP_SECONDS)."""
        with self.engine.begin() as connection:
            connection.execute(
                sa.delete(account_feeds).where(
                    account_feeds.c.account == account,
                    account_feeds.c.finished,
                    account_feeds.c.updated_at < time.time() - FEED_KEEP_SECONDS,
                )
            )

    # ------------------------------------------------------------------ reading
    def after(self, account: str, after: int, limit: int = KEEP) -> list[LoggedEvent]:
        """The account's events numbered above ``after``, oldest first, at most ``limit``."""
        with self.engine.connect() as connection:
            rows = connection.execute(
                sa.select(account_events.c.seq, account_events.c.at, account_events.c.data)
                .where(account_events.c.account == account, account_events.c.seq > after)
                .order_by(account_events.c.seq)
                .limit(limit)
            ).all()
        return [LoggedEvent(row.seq, row.at, json.loads(row.data)) for row in rows]

    def newest(self, account: str) -> int:
        with self.engine.connect() as connection:
            found = connection.execute(
                sa.select(sa.func.max(account_events.c.seq)).where(
                    account_events.c.account == account
                )
            ).scalar()
        return found or 0

    def open_games(self, account: str, limit: int) -> dict[str, int]:
        """The games whose start was told and whose end not yet, the ``limit`` newest
        told of: game id -> seat."""
        with self.engine.connect() as connection:
            rows = connection.execute(
                sa.select(account_feeds.c.game_id, account_feeds.c.seat)
                .where(account_feeds.c.account == account, ~account_feeds.c.finished)
                .order_by(account_feeds.c.updated_at.desc())
                .limit(limit)
            ).all()
        return {row.game_id: row.seat for row in rows}
