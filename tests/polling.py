"""Polling with a bound, the one way tests wait for a condition (never a fixed sleep):
``wait_until`` blocks, ``eventually`` awaits, both fail with the thing waited for."""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable
from typing import Any


def _timed_out(timeout: float, what: str | Callable[[], str]) -> AssertionError:
    # ``what`` may be computed at the end, to say how far the condition got.
    said = what() if callable(what) else what
    return AssertionError(f"timed out after {timeout:g} s waiting for {said}")


def wait_until(
    condition: Callable[[], object],
    timeout: float,
    what: str | Callable[[], str],
    interval: float = 0.05,
) -> Any:
    """Call ``condition`` until it returns something truthy, and return that; fail after
    ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        if time.monotonic() > deadline:
            raise _timed_out(timeout, what)
        time.sleep(interval)  # the polling interval, not synchronisation
    return value


async def eventually(
    condition: Callable[[], object],
    timeout: float,
    what: str | Callable[[], str],
    interval: float = 0.02,
) -> Any:
    """``wait_until`` for a running event loop: ``condition`` may be a plain function or
    a coroutine function, and the loop runs between tries."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if inspect.isawaitable(value):
            value = await value
        if value:
            return value
        if time.monotonic() > deadline:
            raise _timed_out(timeout, what)
        await asyncio.sleep(interval)
