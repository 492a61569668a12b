"""The store as a deployment's shared part: its secret, its layout, its health."""

from __future__ import annotations

from abc import abstractmethod
from typing import Protocol


class Deployment(Protocol):
    """What a server asks of its store at start, in health checks and at exit."""

    @abstractmethod
    async def secret(self) -> bytes:
        """This deployment's server secret (made once, then the same for every replica
        sharing the store); mixed into client-supplied seeds."""

    async def settle_layout(self) -> int:
        """At a server's start: the layout this store writes (Redis: a new deployment
        takes the newest, one that exists keeps its own until ``gamehost store
        upgrade``; ``redis_store.LAYOUT``). The in-memory store has one."""
        return 2

    @abstractmethod
    async def ping(self) -> None:
        """Return when the store answers; raise (e.g. ConnectionError) when it does not."""

    @abstractmethod
    async def close(self) -> None: ...
