"""The sleep of every sweeper loop (bot turns, tournaments): a timed wait that a kick
cuts short, so a sweep runs at once when there is news and on a tick otherwise."""

from __future__ import annotations

import asyncio


class Wake:
    """Set by ``kick``; ``nap`` clears it and waits for it (or ``timeout`` seconds);
    ``take`` waits for it unless it is set already, then clears it."""

    def __init__(self) -> None:
        self._event = asyncio.Event()

    def set(self) -> None:
        self._event.set()

    async def nap(self, timeout: float) -> None:
        """Clear the wake, then wait until it is set again or ``timeout`` seconds pass."""
        self._event.clear()
        await self.take(timeout)

    async def take(self, timeout: float) -> None:
        """Wait until the wake is set (at once if it was set since the last take, so a
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
