"""The bot-turn schedule: which games have a bot (or a turn clock) due, and when."""

from __future__ import annotations

from abc import abstractmethod
from typing import Protocol


class TurnSchedule(Protocol):
    """Every game whose next move is a bot's is in a durable schedule, written by the same
    atomic create/commit that made the bot due, so a due turn is never lost. A replica
    claims due turns with a lease and renews it while the turn runs; a turn whose lease
    runs out (its replica or worker died) is due again."""

    @abstractmethod
    async def claim_bot_turns(self, limit: int, lease: float) -> list[str]:
        """Up to ``limit`` games whose bot turn is due, each now leased for ``lease`` s."""

    @abstractmethod
    async def renew_bot_turn(self, game_id: str, version: int, lease: float) -> bool:
        """Push the game's due time to ``lease`` s from now if it is still scheduled and
        still at ``version`` (a heartbeat, a backoff, or 0 to hand it back); True if so."""

    @abstractmethod
    async def drop_bot_turn(self, game_id: str) -> None:
        """Take a game that no longer exists out of the schedule."""

    @abstractmethod
    async def lapse_bot_turn_leases(self) -> int:
        """Make every leased (or held) bot turn due now; returns how many. After the
        store was away (a failover), a turn handed to a Celery worker or searched by a
        replica may have been lost with it: it is played again at once rather than
        when its lease runs out (a duplicate commit changes nothing)."""

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
