"""How long finished and idle games and tournaments stay in the store (the expiry sweep)."""

from __future__ import annotations

from abc import abstractmethod
from typing import Protocol


class Retention(Protocol):
    """Deletes what has been kept long enough (``services.play.expiry`` sweeps)."""

    @abstractmethod
    async def expire_games(self, finished_retention: float, idle_expiry: float) -> list[str]:
        """Delete every game finished more than ``finished_retention`` seconds ago, or
        with no activity (event) for ``idle_expiry`` seconds; returns their ids."""

    @abstractmethod
    async def expire_tournaments(self, finished_retention: float, idle_expiry: float) -> list[str]:
        """Delete every tournament that ended (finished or cancelled) more than
        ``finished_retention`` seconds ago, or still running with no event for
        ``idle_expiry`` seconds: the policy of ``expire_games``. Returns their names.
        Their table games are ordinary games and expire as such."""
