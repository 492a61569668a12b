"""What the store counts for the limits (``services.limits``): live games, rate windows."""

from __future__ import annotations

from abc import abstractmethod
from typing import Protocol

from limits.aio.storage import MemoryStorage, Storage


class Limits(Protocol):
    """Counters shared by every replica of the store."""

    @abstractmethod
    async def reserve_live_game(self, owner: str, game_id: str, cap: int) -> bool:
        """Count ``game_id`` as a live (unfinished, unexpired) game of ``owner`` unless
        the owner already has ``cap`` of them: False then. Atomic across replicas."""

    def limit_storage(self) -> Storage:
        """Where the rate limits (``services.limits.quotas``) count: this process's
        memory; a Redis store counts in its Redis, so the limits hold across replicas."""
        return MemoryStorage()
