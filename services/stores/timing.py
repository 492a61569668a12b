"""The latency of every Redis store call: a class decorator for store classes."""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Callable
from typing import TypeVar

from services import metrics

T = TypeVar("T", bound=type)

# Long polls wait on purpose, and the deployment's secret and layout are answered from
# the replica's own copy nearly always: timing them would say nothing about Redis.
_UNTIMED = {"wait_events", "close", "from_url", "secret", "layout"}
# A commit is written by ``write``; the operation keeps the name dashboards know.
_OPERATION = {"write": "commit"}


def time_store_calls(cls: T) -> T:
    """Class decorator: every public coroutine method of a store observes
    ``gamehost_redis_call_seconds{operation=<method>}``."""
    for name, member in list(vars(cls).items()):
        if name.startswith("_") or name in _UNTIMED or not asyncio.iscoroutinefunction(member):
            continue
        setattr(cls, name, _timed(_OPERATION.get(name, name), member))
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
