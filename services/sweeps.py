"""The sleep of every sweeper loop (bot turns, tournaments): a timed wait that ``set``
cuts short, so a sweep runs at once when there is news and every ``timeout`` seconds
otherwise."""

from __future__ import annotations

import asyncio


class Wake:
    """An asyncio event with a timeout, for a sweeper loop: ``set`` (a runner's ``kick``)
    wakes it. ``clear_and_wait`` ignores what was set before and waits for a new
    ``set``; ``wait_and_clear`` returns at once if it was set since the last wait."""

    def __init__(self) -> None:
        self._event = asyncio.Event()

    def set(self) -> None:
        self._event.set()

    async def clear_and_wait(self, timeout: float) -> None:
        """Clear the wake, then wait until it is set again or ``timeout`` seconds pass."""
        self._event.clear()
        await self.wait_and_clear(timeout)

    async def wait_and_clear(self, timeout: float) -> None:
        """Wait until the wake is set (at once if it was set since the last wait, so a
        kick during the sweep before is not lost) or ``timeout`` seconds pass; clear it."""
        if not self._event.is_set():
            # asyncio.wait, not wait_for: on Python 3.11 wait_for can swallow a
            # cancellation that races its timeout, and the sweeper would never stop.
            woken = asyncio.ensure_future(self._event.wait())
            try:
                await asyncio.wait({woken}, timeout=timeout)
            finally:
                woken.cancel()
        self._event.clear()
