"""The sweep that deletes expired games and tournaments: finished (or cancelled) ones
after their retention, abandoned ones after their idle time. Every replica runs it;
deleting twice is harmless."""

from __future__ import annotations

import asyncio
import logging

from services.stores import Retention

log = logging.getLogger(__name__)


def sweep_interval(finished_retention: float, idle_expiry: float) -> float:
    """Often enough that a game outlives its limit by at most about half of it."""
    return max(0.05, min(300.0, finished_retention / 2, idle_expiry / 2))


async def sweep_forever(store: Retention, finished_retention: float, idle_expiry: float) -> None:
    interval = sweep_interval(finished_retention, idle_expiry)
    while True:
        try:
            gone = await store.expire_games(finished_retention, idle_expiry)
            if gone:
                log.info("expired %d games", len(gone))
            ended = await store.expire_tournaments(finished_retention, idle_expiry)
            if ended:
                log.info("expired %d tournaments: %s", len(ended), ", ".join(ended))
        except Exception:  # the store may be down for a while: try again next round
            log.warning("expiry sweep failed; retrying in %.0f s", interval, exc_info=True)
        await asyncio.sleep(interval)
