"""Where games live: one interface, an in-memory and a Redis implementation."""

from services.stores.base import (
    Commit,
    CommitOutcome,
    CommitResult,
    EventReader,
    GameExists,
    GameMoved,
    GameStore,
    LogId,
    NewGame,
    Snapshot,
    StoredEvent,
    TournamentLog,
    TournamentSnapshot,
)

__all__ = [
    "Commit",
    "CommitOutcome",
    "CommitResult",
    "EventReader",
    "GameExists",
    "GameMoved",
    "GameStore",
    "LogId",
    "NewGame",
    "Snapshot",
    "StoredEvent",
    "TournamentLog",
    "TournamentSnapshot",
    "open_store",
]


def open_store(
    redis_url: str | None, prefix: str = "gamehost", request_ttl: float = 86400.0
) -> GameStore:
    """The Redis store for a URL, else the embedded in-memory store."""
    if redis_url:
        from services.stores.redis_store import RedisStore

        return RedisStore.from_url(redis_url, prefix, request_ttl)
    from services.stores.memory import MemoryStore

    return MemoryStore(request_ttl)
