"""Tournaments as stored: their records, tables, results, entrants, logs and sweep schedule."""

from __future__ import annotations

from abc import abstractmethod
from typing import Any, Protocol

from services.stores.base import StoredEvent, TournamentSnapshot


class TournamentStore(Protocol):
    """A tournament's state is written only by set-if-absent (a table's start, a table's
    result, an entrant's token) and one status change, each with its events in the same
    atomic write, so replicas racing over one tournament never count a table twice.
    Running tournaments are in a swept schedule, leased (``leases.Leases``, schedule
    ``TOURNAMENTS``)."""

    @abstractmethod
    async def create_tournament(
        self, name: str, record: dict[str, Any], status: str, events: list[dict[str, Any]]
    ) -> bool:
        """Store a new tournament (due in the schedule at once); False if the name exists."""

    @abstractmethod
    async def load_tournament(self, name: str) -> TournamentSnapshot | None: ...

    @abstractmethod
    async def list_tournaments(self, limit: int = 100) -> list[str]:
        """Tournament names, newest first."""

    @abstractmethod
    async def start_table(
        self, name: str, index: int, table: dict[str, Any], events: list[dict[str, Any]]
    ) -> bool:
        """Record table ``index`` as started (set-if-absent, with its events)."""

    @abstractmethod
    async def finish_table(
        self, name: str, index: int, result: dict[str, Any], events: list[dict[str, Any]]
    ) -> bool:
        """Record table ``index``'s result (set-if-absent, with its events)."""

    @abstractmethod
    async def set_tournament_status(
        self, name: str, status: str, events: list[dict[str, Any]], keep_swept: bool = False
    ) -> bool:
        """Move a running tournament to ``status`` (out of the schedule; with
        ``keep_swept``, in it and due at once, until ``unschedule_tournament``: a
        cancelled tournament's sweep ends its table games); False if it was not running."""

    @abstractmethod
    async def unschedule_tournament(self, name: str) -> None:
        """Take a tournament out of the sweep schedule (no-op when it is not in it)."""

    @abstractmethod
    async def claim_entrant(self, name: str, entrant: str, token_hash: str) -> bool:
        """Give an external entrant its token hash (set-if-absent)."""

    @abstractmethod
    async def tournament_events(
        self, name: str, after: int = 0, limit: int = 1000
    ) -> list[StoredEvent]: ...
