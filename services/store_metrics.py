"""Store-side metrics: the latency of every Redis store call, and a periodic probe
that sets ``gamehost_store_up`` and ``gamehost_live_games``."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import time
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from services import metrics

if TYPE_CHECKING:
    from services.stores import GameStore

log = logging.getLogger(__name__)

T = TypeVar("T", bound=type)

# Long polls wait on purpose: timing them would say nothing about Redis.
_UNTIMED = {"wait_events", "close", "from_url"}


def time_store_calls(cls: T) -> T:
    """Class decorator: every public coroutine method of a store observes
    ``gamehost_redis_call_seconds{operation=<method>}``."""
    for name, member in list(vars(cls).items()):
        if name.startswith("_") or name in _UNTIMED or not asyncio.iscoroutinefunction(member):
            continue
        setattr(cls, name, _timed(name, member))
    return cls


def _timed(name: str, method: Callable) -> Callable:
    histogram = metrics.REDIS_CALL_SECONDS.labels(name)

    @functools.wraps(method)
    async def timed(*args, **kwargs):
        started = time.perf_counter()
        try:
            return await method(*args, **kwargs)
        finally:
            histogram.observe(time.perf_counter() - started)

    return timed


# How many games the live-games sample reads at most: a bound on its cost.
LIVE_GAMES_SCAN_LIMIT = 1000
_seen_types: set[str] = set()


async def probe_store(store: GameStore) -> None:
    """One sample of the games in progress by type (``gamehost_store_up`` is set by the
    health monitor, services/store_health.py, which pings the store every second)."""
    try:
        games = await store.list_games(limit=LIVE_GAMES_SCAN_LIMIT)
    except Exception as exc:  # the health monitor reports the outage itself
        log.debug("live-games sample failed: %s", exc)
        return
    live = Counter(g.meta.get("game_type", "?") for g in games if g.status == "in_progress")
    _seen_types.update(live)
    for game_type in _seen_types:  # a type whose last game ended drops to 0
        metrics.LIVE_GAMES.labels(game_type).set(live.get(game_type, 0))


# Seconds between probes (GAMEHOST_STORE_PROBE_SECONDS; tests shorten it).
PROBE_SECONDS = float(os.environ.get("GAMEHOST_STORE_PROBE_SECONDS", "10"))


async def probe_forever(store: GameStore, interval: float = PROBE_SECONDS) -> None:
    while True:
        await probe_store(store)
        await asyncio.sleep(interval)


async def stop_prober(task: asyncio.Task | None) -> None:
    if task is None:
        return
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
