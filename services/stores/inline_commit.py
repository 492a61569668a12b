"""A move's commit run on a blocking connection of its own, inside the caller's turn of
the event loop.

Awaited like any call, the commit's reply waits for the loop to come round twice (the
socket's read, then the handler's task), each time behind whatever else is ready: on a
busy serving process that wait, not Redis, was most of a move's time in the server
(docs/ladder.md, "Under load"). Run blocking, the commit holds the loop for its round
trip to Redis (a fraction of a millisecond on a healthy one) and the handler goes on at
once. Only on a single Redis with no ``min_replicas`` (``WAIT`` must follow the write on
the pool's connection), and only while that Redis answers promptly: a connection fault
or a reply later than ``TIMEOUT`` sets the blocking path aside for
``STEP_ASIDE_SECONDS``, and the commit is made again the awaited way, whose retries and
errors (UNAVAILABLE) are the store's usual ones. A commit made again is safe: it is a
compare-and-set, and a request id makes a retried one answer its first result.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import redis
from redis.backoff import NoBackoff
from redis.commands.core import AsyncScript
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.retry import Retry

log = logging.getLogger(__name__)


class InlineCommits:
    """Blocking runs of the commit script on one Redis; None when set aside."""

    TIMEOUT = 0.25  # seconds: the longest the loop is held for one commit
    STEP_ASIDE_SECONDS = 5.0

    def __init__(self, url: str) -> None:
        self._client = redis.Redis.from_url(
            url,
            decode_responses=False,
            socket_timeout=self.TIMEOUT,
            socket_connect_timeout=self.TIMEOUT,
            retry=Retry(NoBackoff(), 0),  # the awaited path does the retrying
        )
        self._aside_until = 0.0

    def run(self, script: AsyncScript, keys: list[str], args: list[Any]) -> Any | None:
        """The script's reply, or None when the blocking path is set aside (the caller
        then awaits the commit). Redis's own errors (a script error) are raised."""
        if time.monotonic() < self._aside_until:
            return None
        try:
            try:
                return self._client.evalsha(script.sha, len(keys), *keys, *args)
            except NoScriptError:  # a fresh or restarted Redis
                self._client.script_load(script.script)
                return self._client.evalsha(script.sha, len(keys), *keys, *args)
        except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
            self._aside_until = time.monotonic() + self.STEP_ASIDE_SECONDS
            log.warning(
                "commits set aside from their blocking connection for %.0f s: %s: %s",
                self.STEP_ASIDE_SECONDS,
                type(exc).__name__,
                exc,
            )
            return None

    @property
    def set_aside(self) -> bool:
        return time.monotonic() < self._aside_until

    def close(self) -> None:
        self._client.close()
