"""The bot-turn schedule: which games have a bot (or a turn clock) due, and when."""

from __future__ import annotations

from abc import abstractmethod
from typing import Protocol


class TurnSchedule(Protocol):
    """Every game whose next move is a bot's is in a durable schedule, written by the same
    atomic create/commit that made the bot due, so a due turn is never lost. A replica
    claims due turns with a lease (``leases.Leases``, schedule ``BOT_TURNS``; its token
    is the game's version) and renews it while the turn runs; a turn whose lease runs
    out (its replica or worker died) is due again."""

    @abstractmethod
    async def drop_bot_turn(self, game_id: str) -> None:
        """Take a game that no longer exists out of the schedule."""

    async def release_bot_turn(self, game_id: str) -> None:
        """A claimed game turned out to have no bot due: take it out of the schedule
        unless it was scheduled again since the claim. Here, nothing to do: the commit
        that took the game's bot turn away took it out of the schedule too (a Redis
        Cluster, whose schedule is on a slot of its own, does it here)."""
        return None

    @abstractmethod
    async def bot_turn_due_in(self, game_id: str) -> float | None:
        """Seconds until the game's bot turn is due (negative: overdue), None if unscheduled."""

    @abstractmethod
    async def bot_turn_backlog(self) -> tuple[int, float]:
        """(bot turns in the schedule, seconds the most overdue one is past its due
        time: 0 when none is). A turn being played is leased, so not overdue; one that
        nobody plays grows older (the ``gamehost_oldest_pending_bot_turn_seconds`` alert)."""

    @abstractmethod
    async def set_bot_status(self, game_id: str, version: int, status: str) -> None:
        """Record what the bot turn at ``version`` is doing (read back in ``Snapshot``)."""
