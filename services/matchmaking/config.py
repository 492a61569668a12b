"""Quick play's settings (``gamehost serve --quick-play-...``): the defaults are the flags'
own, read from their one definition in services/settings.py."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from services.settings import ServerSettings


def _default(name: str) -> Any:
    return ServerSettings.model_fields[name].default


@dataclass(frozen=True)
class QuickPlayConfig:
    wait: float = _default("quick_play_wait")  # then house levels or ladder bots fill seats
    per_queue: int = _default("quick_play_queue")  # accounts one queue holds at most
    total: int = _default("quick_play_queues")  # accounts all queues hold at most
    calls_per_minute: int = _default("quick_play_calls")  # per client, all replicas
    # The levels that fill seats (the flag's comma-separated list).
    house: tuple[str, ...] = tuple(_default("quick_play_house").split(","))
    # A seat's time per move (its fallback, random, plays a late one; after 3 in a row
    # the seat is handed to it for good): a player who never shows up stalls nobody.
    move_seconds: float = _default("quick_play_move_seconds")
