"""The Celery executor: bot turns go to workers, which commit the moves themselves."""

from __future__ import annotations

import asyncio

from services.bot_runner import BotExecutor
from services.bot_turns import BotJob


class CeleryExecutor(BotExecutor):
    commits_itself = True

    def __init__(self, store_url: str, prefix: str, max_iterations: int | None = None) -> None:
        # Imported here: the embedded default must not need Celery configured.
        from workers.tasks import dispatch

        self._dispatch = dispatch
        self._store_url = store_url
        self._prefix = prefix
        self._max_iterations = max_iterations

    async def dispatch(self, job: BotJob) -> None:
        # Publishing to the broker is blocking I/O: keep it off the event loop.
        await asyncio.to_thread(
            self._dispatch, job, self._store_url, self._prefix, self._max_iterations
        )
