"""Bot-turn metrics recorded where the search runs, through Celery signals (no task
body changes): queue wait (published -> started), search (one search tree), and
commit (merge + compare-and-set + next dispatch), labelled by game and level."""

from __future__ import annotations

import os
import time
from typing import Any

from celery import signals

from services import metrics
from services.stores import CommitOutcome

SENT_AT_HEADER = "gamehost_sent_at"
_PHASE_OF_TASK = {
    "gamehost.search": "search",
    "gamehost.commit_search": "commit",
    "gamehost.decide_and_commit": "commit",
}
_started: dict[str, float] = {}


@signals.before_task_publish.connect
def _stamp(headers: dict[str, Any] | None = None, **_: Any) -> None:
    if headers is not None:
        headers.setdefault(SENT_AT_HEADER, time.time())


def _job_labels(task_name: str, args: tuple) -> tuple[str, str] | None:
    """(game, level) from the task's payload; None for tasks that are not bot turns."""
    payload = args[1] if task_name == "gamehost.commit_search" else args[0] if args else None
    job = payload.get("job") if isinstance(payload, dict) else None
    if not isinstance(job, dict):
        return None
    return str(job.get("game_type", "?")), str(job.get("level", "?"))


@signals.task_prerun.connect
def _started_task(task_id: str, task: Any, args: tuple = (), **_: Any) -> None:
    if task.name not in _PHASE_OF_TASK:
        return
    _started[task_id] = time.perf_counter()
    sent_at = getattr(task.request, SENT_AT_HEADER, None)
    labels = _job_labels(task.name, args)
    if sent_at is not None and labels is not None and task.name != "gamehost.commit_search":
        # A chord's callback waits for its searches, not for a worker: not queue time.
        waited = max(0.0, time.time() - float(sent_at))
        metrics.BOT_TURN_PHASE_SECONDS.labels("queue", *labels).observe(waited)


@signals.task_postrun.connect
def _finished_task(task_id: str, task: Any, args: tuple = (), retval: Any = None, **_: Any) -> None:
    started = _started.pop(task_id, None)
    phase = _PHASE_OF_TASK.get(task.name)
    labels = _job_labels(task.name, args) if phase else None
    if started is None or labels is None:
        return
    metrics.BOT_TURN_PHASE_SECONDS.labels(phase, *labels).observe(time.perf_counter() - started)
    if phase == "commit" and retval == CommitOutcome.APPLIED.value:
        metrics.BOT_DECISIONS.labels(*labels).inc()


@signals.worker_process_shutdown.connect
def _forget_process(**_: Any) -> None:
    """A prefork child exits: drop its live gauges from the group's aggregate."""
    from services.metrics_export import mark_process_dead

    mark_process_dead(os.getpid())
