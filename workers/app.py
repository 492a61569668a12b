"""The Celery app: bot searches on worker machines, Redis as broker and result backend.

Start a worker with ``gamehost worker`` (or ``celery -A workers.app worker``).
Configuration comes from the environment:

    GAMEHOST_CELERY_BROKER   broker URL   (default redis://127.0.0.1:6379/1; a
                             redis+sentinel://h:p,.../NAME[/db] URL follows Sentinel)
    GAMEHOST_CELERY_BACKEND  result URL   (default: the broker URL)
    GAMEHOST_CELERY_QUEUE    queue name   (default gamehost-bots)
    GAMEHOST_CELERY_KEY_PREFIX  prefix of every broker and result key (default none)
"""

from __future__ import annotations

import os

from celery import Celery
from kombu import Connection

from services.stores.redis_connect import kombu_broker

BROKER = os.environ.get("GAMEHOST_CELERY_BROKER", "redis://127.0.0.1:6379/1")
BACKEND = os.environ.get("GAMEHOST_CELERY_BACKEND", BROKER)
# A redis+sentinel:// URL (the store's Sentinel set) becomes kombu's sentinel:// list
# with the primary's name as a transport option: broker and results follow promotions.
_BROKER_URL, _BROKER_OPTIONS = kombu_broker(BROKER)
_BACKEND_URL, _BACKEND_OPTIONS = kombu_broker(BACKEND)
QUEUE = os.environ.get("GAMEHOST_CELERY_QUEUE", "gamehost-bots")
# Optional prefix of every broker and result key, so that deployments (or test runs)
# sharing one Redis keep their keys apart and can remove them by prefix.
KEY_PREFIX = os.environ.get("GAMEHOST_CELERY_KEY_PREFIX", "")


def key_prefix_options(prefix: str) -> dict[str, str]:
    """Transport options that put ``prefix`` before every key kombu or Celery writes."""
    return {"global_keyprefix": prefix} if prefix else {}


# The longest search a level may run, with room for a slow machine: every limit
# below derives from it so that none can cut a legitimate search short.
MAX_SEARCH_SECONDS = 60

app = Celery("gamehost", broker=_BROKER_URL, backend=_BACKEND_URL, include=["workers.tasks"])
app.conf.update(
    # CPU-bound searches: one process per core, and a worker takes one task at a time
    # so that a long search never holds back tasks another worker could run.
    worker_pool="prefork",
    worker_prefetch_multiplier=1,
    # A search lost with its worker is run again elsewhere, not silently dropped;
    # running it twice is harmless (the commit is a compare-and-set).
    task_acks_late=True,
    task_reject_on_worker_lost=True,
    task_soft_time_limit=MAX_SEARCH_SECONDS,
    task_time_limit=MAX_SEARCH_SECONDS + 30,
    # Redelivery only after any search could have finished.
    broker_transport_options={
        "visibility_timeout": 10 * MAX_SEARCH_SECONDS,
        **key_prefix_options(KEY_PREFIX),
        **_BROKER_OPTIONS,
    },
    result_backend_transport_options={**key_prefix_options(KEY_PREFIX), **_BACKEND_OPTIONS},
    result_expires=3600,
    task_serializer="json",
    result_serializer="json",
    accept_content=["json"],
    task_default_queue=QUEUE,
    worker_hijack_root_logger=False,
    broker_connection_retry_on_startup=True,
)


class QuickRetryConnection(Connection):
    """The broker connection, retried at 0.5, 1, 1.5, 2, 2 ... s instead of kombu's
    2, 4, 6, 8 ... s: after a Sentinel failover a worker reconnects within about a
    second of the promotion, not up to 12 s later (its bots' turns wait meanwhile)."""

    def ensure_connection(  # type: ignore[override]
        self,
        errback=None,
        max_retries=None,
        interval_start=0.5,
        interval_step=0.5,
        interval_max=2.0,
        **kwargs,
    ):
        return super().ensure_connection(
            errback, max_retries, interval_start, interval_step, interval_max, **kwargs
        )


# The worker's consumer (and every connection the app makes) is one of these.
app.amqp.Connection = QuickRetryConnection

# Bot-turn metrics through Celery signals (queue wait, search, commit).
from workers import task_metrics  # noqa: E402, F401
