"""The whole store: every protocol of ``services/stores`` at once.

An implementation (``memory.MemoryStore``, ``redis_store.RedisStore``) subclasses this,
and the wiring (``services.server``, ``open_store``) passes it around whole; each wing
annotates with the protocols it uses alone (``game_log.GameLog``,
``turn_schedule.TurnSchedule``, ``outbox.ArchiveOutbox``, ...).
"""

from __future__ import annotations

from services.stores.base import LogId, StoredEvent, TournamentLog
from services.stores.deployment import Deployment
from services.stores.event_logs import EventLogs
from services.stores.game_log import GameLog
from services.stores.leases import Leases
from services.stores.limits import Limits
from services.stores.match_queue import MatchQueue
from services.stores.outbox import ArchiveOutbox
from services.stores.retention import Retention
from services.stores.tournament_store import TournamentStore
from services.stores.turn_schedule import TurnSchedule


class GameStore(
    GameLog,
    EventLogs,
    TurnSchedule,
    Leases,
    ArchiveOutbox,
    TournamentStore,
    Retention,
    Limits,
    Deployment,
    MatchQueue,
):
    """Every protocol at once: what ``MemoryStore`` and ``RedisStore`` implement."""

    # A log is a game's or a tournament's: only the whole store holds both.
    async def log_events(self, log: LogId, after: int = 0, limit: int = 1000) -> list[StoredEvent]:
        if isinstance(log, TournamentLog):
            return await self.tournament_events(log.name, after, limit)
        return await self.events(log, after, limit)

    async def log_exists(self, log: LogId) -> bool:
        if isinstance(log, TournamentLog):
            return await self.load_tournament(log.name) is not None
        return await self.load(log) is not None
