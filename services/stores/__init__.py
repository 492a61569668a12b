"""Where games live: one protocol per concern (``GameStore`` is all of them), an
in-memory and a Redis implementation."""

from services.stores.base import (
    Commit,
    CommitOutcome,
    CommitResult,
    EventReader,
    GameExists,
    GameMoved,
    LogId,
    NewGame,
    Snapshot,
    StoredEvent,
    TournamentLog,
    TournamentSnapshot,
)
from services.stores.deployment import Deployment
from services.stores.event_logs import EventLogs
from services.stores.game_log import GameLog
from services.stores.game_store import GameStore
from services.stores.leases import Lease, Leases
from services.stores.limits import Limits
from services.stores.match_queue import MatchQueue
from services.stores.outbox import ArchiveOutbox
from services.stores.retention import Retention
from services.stores.tournament_store import TournamentStore
from services.stores.turn_schedule import TurnSchedule

__all__ = [
    "ArchiveOutbox",
    "Commit",
    "CommitOutcome",
    "CommitResult",
    "Deployment",
    "EventLogs",
    "EventReader",
    "GameExists",
    "GameLog",
    "GameMoved",
    "GameStore",
    "Lease",
    "Leases",
    "Limits",
    "LogId",
    "MatchQueue",
    "NewGame",
    "Retention",
    "Snapshot",
    "StoredEvent",
    "TournamentLog",
    "TournamentSnapshot",
    "TournamentStore",
    "TurnSchedule",
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
