"""Accounts in the archive (``accounts``): creation (the key is shown once and only its
hash is kept; at most so many an hour per client, counted and inserted in one step),
lookup by name in any case or by key, rotating and revoking a key.

Synchronous SQLAlchemy Core: ``service`` runs these on a thread; the ladder calls
``insert`` inside its own transaction to register a bot."""

from __future__ import annotations

import datetime as dt
import re
import secrets
from dataclasses import dataclass, field
from enum import StrEnum

import sqlalchemy as sa

import bots
from services.accounts.schema import accounts
from services.errors import AlreadyExists, InvalidArgument, ResourceExhausted
from services.limits.access import hash_token

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")
_CREATE_LOCK = 0x61636374  # "acct": PostgreSQL's advisory lock class for creations


class AccountKind(StrEnum):
    HUMAN = "human"
    BOT = "bot"


# A key reads as one in logs and config files, and says whose it is.
KEY_PREFIX = {AccountKind.HUMAN: "gha_", AccountKind.BOT: "ghb_"}


@dataclass(frozen=True)
class Account:
    name: str
    kind: AccountKind
    owner: str
    created_at: float  # Unix seconds
    revoked: bool
    seat_secret: str = field(repr=False)  # what its seat tokens come from; never sent


def _account(row: sa.Row) -> Account:
    created = row.created_at
    created = created if created.tzinfo is not None else created.replace(tzinfo=dt.UTC)
    return Account(
        row.name,
        AccountKind(row.kind),
        row.owner,
        created.timestamp(),
        row.revoked,
        row.seat_secret,
    )


def check_name(name: str, what: str = "an account name") -> str:
    """An account's name: letters, digits, '.', '_', '-' (at most 40), and never a bot
    level's name, which the house bots play under, in any case ("Greedy", "MCTS-fast"):
    a reader could not tell them from the house's."""
    if not _NAME.fullmatch(name or ""):
        raise InvalidArgument(
            f"{what} is 1-40 letters, digits, '.', '_' or '-', starting with a letter or digit",
            field="name",
        )
    folded = name.casefold()
    if folded in bots.level_names() or folded.startswith("mcts"):
        raise InvalidArgument(
            f"{name!r} is a house level's name (house bots are rated under it); choose another",
            field="name",
        )
    return name


def new_key(kind: AccountKind) -> str:
    return KEY_PREFIX[kind] + secrets.token_urlsafe(24)


class Accounts:
    def __init__(self, engine: sa.Engine) -> None:
        self.engine = engine

    def insert(
        self,
        connection: sa.Connection,
        name: str,
        kind: AccountKind,
        owner: str,
        limit: int = 0,
        window: float = 3600.0,
    ) -> str:
        """Insert a new account in ``connection``'s transaction (refused: the caller's
        transaction must end); returns its key.
        AlreadyExists if the name is taken in any case; ResourceExhausted when ``owner``
        created ``limit`` accounts of ``kind`` (0: no limit) in the last ``window`` s.

        The count and the insert are one step: one INSERT ... SELECT that inserts only
        while the count is under the limit (SQLite runs a statement alone), with
        PostgreSQL's transaction-wide lock on the owner so that concurrent creations
        from one client take turns and each counts the ones before it."""
        key = new_key(kind)
        now = dt.datetime.now(dt.UTC)
        row = {
            "name": name,
            "folded": name.casefold(),
            "kind": kind.value,
            "key_hash": hash_token(key),
            "owner": owner,
            "created_at": now,
            "revoked": False,
            "seat_secret": secrets.token_hex(32),
        }
        values = sa.select(*(sa.literal(v, accounts.c[k].type) for k, v in row.items()))
        if limit > 0:
            recent = (
                sa.select(sa.func.count())
                .select_from(accounts)
                .where(
                    accounts.c.owner == owner,
                    accounts.c.kind == kind.value,
                    accounts.c.created_at >= now - dt.timedelta(seconds=window),
                )
                .scalar_subquery()
            )
            values = values.where(recent < limit)
        if connection.dialect.name == "postgresql":
            connection.execute(
                sa.select(sa.func.pg_advisory_xact_lock(_CREATE_LOCK, sa.func.hashtext(owner)))
            )
        try:
            inserted = connection.execute(
                sa.insert(accounts).from_select(list(row), values).returning(accounts.c.name)
            ).first()
        except sa.exc.IntegrityError:
            raise AlreadyExists(
                f"the name {name!r} is taken (names are unique in any case); choose another",
                field="name",
            ) from None
        if inserted is None:
            what = "bot registrations" if kind == AccountKind.BOT else "accounts created"
            raise ResourceExhausted(f"at most {limit} {what} an hour per client; try again later")
        return key

    def create(self, name: str, kind: AccountKind, owner: str, limit: int = 0) -> str:
        with self.engine.begin() as connection:
            return self.insert(connection, name, kind, owner, limit)

    def get(self, name: str) -> Account | None:
        """The account named ``name`` in any case."""
        return self._one(accounts.c.folded == name.casefold())

    def by_key(self, key: str) -> Account | None:
        return self._one(accounts.c.key_hash == hash_token(key))

    def _one(self, where: sa.ColumnElement[bool]) -> Account | None:
        with self.engine.connect() as connection:
            row = connection.execute(sa.select(accounts).where(where)).first()
        return None if row is None else _account(row)

    def rotate(self, name: str) -> str:
        """A new key for ``name`` (the old one stops working); returns it."""
        found = self.get(name)
        assert found is not None
        key = new_key(found.kind)
        with self.engine.begin() as connection:
            connection.execute(
                sa.update(accounts)
                .where(accounts.c.name == found.name)
                .values(key_hash=hash_token(key))
            )
        return key

    @staticmethod
    def revoke(connection: sa.Connection, name: str) -> None:
        """``name``'s key stops working, for good (the name stays taken)."""
        connection.execute(sa.update(accounts).where(accounts.c.name == name).values(revoked=True))
