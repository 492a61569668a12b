"""Quick play's settings (``gamehost serve --quick-play-...``: services/settings.py)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class QuickPlayConfig:
    wait: float = 20.0  # seconds to find accounts of close rating; then house levels fill
    per_queue: int = 1000  # accounts one queue (game and player count) holds at most
    total: int = 5000  # accounts all queues hold at most
    calls_per_minute: int = 60  # Matchmake and LeaveQueue calls per client, all replicas
    house: tuple[str, ...] = ("random", "greedy", "mcts-fast")  # the levels that fill seats
    # A seat's time per move (its fallback, random, plays a late one; after 3 in a row
    # the seat is handed to it for good): a player who never shows up stalls nobody.
    move_seconds: float = 60.0
