"""The archive outbox: finished games and tournaments waiting to be copied into SQL."""

from __future__ import annotations

from abc import abstractmethod
from typing import Protocol

from services.stores.base import Tombstone


class ArchiveOutbox(Protocol):
    """While the deployment archives (``set_archiving``), the commit that finishes a game
    (and the status change that ends a tournament) puts ``game:<id>``
    (``tournament:<name>``) on the archive outbox in the same atomic write. An archiver
    (services.archive.archiver) claims entries with a lease (``leases.Leases``, schedule
    ``ARCHIVE``), copies each
    into SQL idempotently, then acks it: an entry whose archiver died is due again when
    its lease runs out, so every one is archived exactly once. Expiry keeps a game or
    tournament while its entry is on the outbox."""

    @abstractmethod
    async def set_archiving(self, on: bool) -> None:
        """Whether finishing commits fill the outbox, for every process writing to this
        store (Celery workers too). A server with an archive turns it on at start, one
        with ``--archive none`` off (which also drops the outbox: nothing would drain it)."""

    @abstractmethod
    async def ack_archive(self, entry: str) -> None:
        """Take an archived entry off the outbox."""

    @abstractmethod
    async def archive_backlog(self) -> int:
        """Entries on the outbox (leased ones included)."""

    @abstractmethod
    async def forget_archived(
        self, game_id: str, last_event_id: int, game_type: str, tombstone_ttl: float
    ) -> bool:
        """Delete a finished game the archive now holds (an archiver calls it after its
        insert committed): its state, tokens, log, request results and turn key leave
        the store, and its entries in the index and the bot-turn schedule. A tombstone
        (``Tombstone``, of ``game_type``) stays ``tombstone_ttl`` seconds, so the id is
        not given out again meanwhile. Nothing happens (False) unless the game is
        finished and its newest event is still ``last_event_id``, the one archived: a
        late write is never lost."""

    @abstractmethod
    async def tombstone(self, game_id: str) -> Tombstone | None:
        """What is left of a game ``forget_archived`` deleted, until its tombstone expires."""
