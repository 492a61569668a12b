"""What the account RPCs do: create, look up, authenticate a key, rotate and revoke
it. The SQL runs on a thread (SQLAlchemy's engine is synchronous), so the event loop
keeps serving."""

from __future__ import annotations

import asyncio
import hmac

import sqlalchemy as sa

from services.accounts.accounts import Account, AccountKind, Accounts, check_name
from services.accounts.ratings import (
    Rating,
    RatingChange,
    RatingPoint,
    history_of,
    rating_change,
    ratings_of,
)
from services.errors import FailedPrecondition, NotFound, PermissionDenied, Unauthenticated

CREATIONS_PER_HOUR = 10  # human accounts a client (its API key, else its address) creates


class AccountService:
    def __init__(self, engine: sa.Engine, per_hour: int = CREATIONS_PER_HOUR) -> None:
        self.accounts = Accounts(engine)
        self.per_hour = per_hour

    async def create(self, name: str, owner: str) -> tuple[Account, str]:
        """A new human account and its key (shown once)."""
        check_name(name)
        key = await asyncio.to_thread(
            self.accounts.create, name, AccountKind.HUMAN, owner, self.per_hour
        )
        return await self.get(name), key

    async def get(self, name: str) -> Account:
        found = await asyncio.to_thread(self.accounts.get, name) if name else None
        if found is None:
            raise NotFound(f"no account named {name!r}", field="name")
        return found

    async def authenticate(self, key: str) -> Account:
        """The account whose key this is: UNAUTHENTICATED otherwise, PERMISSION_DENIED
        when it was revoked."""
        if not key:
            raise Unauthenticated(
                "send the account's key as 'Authorization: Bearer <key>'", field="key"
            )
        found = await asyncio.to_thread(self.accounts.by_key, key)
        if found is None:
            raise Unauthenticated("the key is not an account key this server issued", field="key")
        if found.revoked:
            raise PermissionDenied(f"account {found.name}'s key was revoked: it no longer works")
        return found

    async def own(self, name: str, key: str) -> Account:
        """``name``'s account, when ``key`` is its key."""
        account = await self.get(name)
        holder = await self.authenticate(key)
        if not hmac.compare_digest(holder.name, account.name):
            raise PermissionDenied(f"the key is not account {account.name}'s", field="key")
        return account

    async def rotate(self, name: str, key: str) -> tuple[Account, str]:
        """A new key for ``name`` (the one sent stops working)."""
        account = await self.own(name, key)
        return account, await asyncio.to_thread(self.accounts.rotate, account.name)

    async def revoke(self, name: str, key: str) -> Account:
        """``name``'s key stops working for good; a bot is revoked with RevokeBot, which
        lets its runner go too."""
        account = await self.own(name, key)
        if account.kind == AccountKind.BOT:
            raise FailedPrecondition(
                f"{account.name} is a bot: revoke it with RevokeBot (gamehost bot revoke)",
                field="name",
            )
        await asyncio.to_thread(self._revoke, account.name)
        return await self.get(account.name)

    async def ratings(self, name: str) -> list[Rating]:
        """``name``'s ratings, one per game and player count it was rated in."""
        return await asyncio.to_thread(ratings_of, self.accounts.engine, name)

    async def history(self, name: str, ladders: list[str]) -> dict[str, list[RatingPoint]]:
        """``name``'s rating after each of its newest rated games (HISTORY_POINTS at most)
        on each of ``ladders``, oldest first."""
        return await asyncio.to_thread(history_of, self.accounts.engine, name, ladders)

    async def rating_change(self, game_id: str, name: str) -> RatingChange | None:
        """What rated game ``game_id`` did to ``name``'s rating (None: not rated, or not
        its game): the event stream's "game finished" carries it."""
        return await asyncio.to_thread(rating_change, self.accounts.engine, game_id, name)

    def _revoke(self, name: str) -> None:
        with self.accounts.engine.begin() as connection:
            Accounts.revoke(connection, name)
