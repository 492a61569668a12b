"""Reading the event logs of games and tournaments alike (the watch hub, the archiver)."""

from __future__ import annotations

from abc import abstractmethod
from typing import Protocol

from services.stores.base import EventReader, LogId, StoredEvent


class EventLogs(Protocol):
    """Every log a client may follow: a game's (its ``LogId`` is the game id) or a
    tournament's (``TournamentLog``)."""

    @abstractmethod
    def event_reader(self) -> EventReader:
        """A new reader of many logs, games' and tournaments' (close it when done)."""

    @abstractmethod
    async def log_events(self, log: LogId, after: int = 0, limit: int = 1000) -> list[StoredEvent]:
        """``events`` of a game, or ``tournament_events`` of a tournament's log."""

    @abstractmethod
    async def log_exists(self, log: LogId) -> bool:
        """Whether the game, or the tournament, of a log is still stored."""
