"""What the ladder's RPCs do: registration, the list, revocation, a bot's page and the
standings; a runner's connection and its replies are ``sessions``'. The SQL runs on a
thread (SQLAlchemy's engine is synchronous), so the event loop keeps serving."""

from __future__ import annotations

import asyncio
import hmac
from dataclasses import dataclass

from services.archive.archive import Archive
from services.errors import (
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    Unauthenticated,
)
from services.ladder.accounts import Accounts, BotAccount
from services.ladder.ledger import Ledger, SeatHistory, StandingRow, lease_name
from services.ladder.model import BotStatus, LadderConfig, LadderSpec, check_bot_name

LEASE_SECONDS = 5.0  # the matchmaker's lease: a dead holder's ladder is taken over after it
MAX_HISTORY = 500


@dataclass(frozen=True)
class BotPage:
    account: BotAccount
    standing: StandingRow | None
    games: list[SeatHistory]


class LadderService:
    def __init__(self, archive: Archive, config: LadderConfig) -> None:
        self.config = config
        self.archive = archive
        self.engine = archive.engine
        self.accounts = Accounts(archive.engine)
        self.ledger = Ledger(archive.engine, LEASE_SECONDS)

    def spec(self, game_type: str, players: int, field: str = "game_type") -> LadderSpec:
        """The served ladder of ``game_type`` and ``players``, or the error that says
        which ladders this server runs."""
        spec = self.config.spec(f"{game_type}:{players}")
        if spec is None:
            served = ", ".join(s.name for s in self.config.ladders)
            raise FailedPrecondition(
                f"this server runs no ladder for {game_type}:{players}; it runs {served}",
                field=field,
            )
        return spec

    @staticmethod
    def lease_name(ladder: str) -> str:
        return lease_name(ladder)

    # ------------------------------------------------------------------ accounts
    async def register(
        self, name: str, game_type: str, players: int, owner: str
    ) -> tuple[BotAccount, str]:
        check_bot_name(name)
        spec = self.spec(game_type, players)
        key = await asyncio.to_thread(
            self.accounts.register, name, spec.name, owner, self.config.registrations_per_hour
        )
        account = await asyncio.to_thread(self.accounts.get, name)
        assert account is not None
        return account, key

    async def list(self, game_type: str = "", players: int = 0) -> list[BotAccount]:
        if players and not game_type:
            raise InvalidArgument("players needs game_type too", field="players")
        found = await asyncio.to_thread(self.accounts.list)
        if game_type:
            found = [a for a in found if a.ladder.partition(":")[0] == game_type]
        if players:
            found = [a for a in found if a.ladder == f"{game_type}:{players}"]
        return found

    async def account(self, name: str) -> BotAccount:
        found = await asyncio.to_thread(self.accounts.get, name)
        if found is None:
            raise NotFound(f"no bot named {name!r}")
        return found

    async def authenticate(self, key: str) -> BotAccount:
        """The bot whose key this is; UNAUTHENTICATED otherwise, PERMISSION_DENIED
        when it was revoked."""
        if not key:
            raise Unauthenticated("send the bot's key (RegisterBot's answer)", field="key")
        found = await asyncio.to_thread(self.accounts.by_key, key)
        if found is None:
            raise Unauthenticated("the key is not a bot key this server issued", field="key")
        if found.status == BotStatus.REVOKED:
            raise PermissionDenied(f"bot {found.name} was revoked: its key no longer works")
        return found

    async def revoke(self, name: str, key: str, caller: str) -> BotAccount:
        """Revoke ``name``: with its key, or by the API key that registered it."""
        account = await self.account(name)
        if key:
            stored = await asyncio.to_thread(self.accounts.by_key, key)
            if stored is None or not hmac.compare_digest(stored.name, account.name):
                raise Unauthenticated(f"the key is not bot {name}'s", field="key")
        elif not (caller.startswith("key:") and caller == account.owner):
            raise Unauthenticated(
                f"revoking bot {name} needs its key (or the API key that registered it)",
                field="key",
            )
        if account.status != BotStatus.REVOKED:
            await asyncio.to_thread(
                self.accounts.set_status, name, BotStatus.REVOKED, "revoked by its owner"
            )
        return await self.account(name)

    # ------------------------------------------------------------------ standings
    async def standings(self, game_type: str, players: int) -> list[StandingRow]:
        spec = self.spec(game_type, players)
        return await asyncio.to_thread(self._standings, spec.name)

    def _standings(self, ladder: str) -> list[StandingRow]:
        revoked = [a.name for a in self.accounts.list(ladder) if a.status == BotStatus.REVOKED]
        return self.ledger.standings(ladder, hidden=revoked)

    async def page(self, name: str, limit: int) -> BotPage:
        account = await self.account(name)
        limit = min(max(limit or 50, 1), MAX_HISTORY)
        rows = await asyncio.to_thread(self._standings, account.ladder)
        standing = next((r for r in rows if r.bot == name), None)
        games = await asyncio.to_thread(self.ledger.history, name, limit)
        return BotPage(account, standing, games)
