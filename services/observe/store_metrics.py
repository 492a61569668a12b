"""A periodic probe of the store that sets ``gamehost_live_games`` and the bot-turn
backlog gauges (the latency of every Redis call is timed in the store itself:
``services.stores.timing``)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections import Counter
from typing import Protocol

from services import metrics
from services.stores import GameLog, TurnSchedule

log = logging.getLogger(__name__)

# How many games the live-games sample reads at most: a bound on its cost.
LIVE_GAMES_SCAN_LIMIT = 1000
_seen_types: set[str] = set()


class ProbedStore(GameLog, TurnSchedule, Protocol):
    """What the probe reads: the games, and the bot-turn schedule."""


async def probe_store(store: ProbedStore) -> None:
    """One sample of the games in progress by type (``gamehost_store_up`` is set by the
    health monitor, services/observe/store_health.py, which pings the store every second)."""
    try:
        games = await store.list_games(limit=LIVE_GAMES_SCAN_LIMIT)
        pending, overdue = await store.bot_turn_backlog()
    except Exception as exc:  # the health monitor reports the outage itself
        log.debug("live-games sample failed: %s", exc)
        return
    metrics.PENDING_BOT_TURNS.set(pending)
    metrics.OLDEST_PENDING_BOT_TURN_SECONDS.set(overdue)
    live = Counter(g.info.game_type or "?" for g in games if g.status == "in_progress")
    _seen_types.update(live)
    for game_type in _seen_types:  # a type whose last game ended drops to 0
        metrics.LIVE_GAMES.labels(game_type).set(live.get(game_type, 0))


# Seconds between probes (GAMEHOST_STORE_PROBE_SECONDS; tests shorten it).
PROBE_SECONDS = float(os.environ.get("GAMEHOST_STORE_PROBE_SECONDS", "10"))


async def probe_forever(store: ProbedStore, interval: float = PROBE_SECONDS) -> None:
    while True:
        await probe_store(store)
        await asyncio.sleep(interval)


async def stop_prober(task: asyncio.Task | None) -> None:
    if task is None:
        return
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
