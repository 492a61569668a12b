"""Bot-turn metrics recorded where the search runs: queue wait (published -> started,
through Celery signals), search (one tree) and commit (merge + compare-and-set + next
dispatch, by the task that brings a turn's last tree), labelled by game and level."""

from __future__ import annotations

import os
import time
from typing import Any

from celery import signals

from services import metrics
from services.bots.jobs import BotJob
from services.stores import CommitOutcome
from workers.turn_task import TurnTask

SENT_AT_HEADER = "gamehost_sent_at"
_TURN_TASKS = {"gamehost.search", "gamehost.decide_and_commit"}


@signals.before_task_publish.connect
def _stamp(headers: dict[str, Any] | None = None, **_: Any) -> None:
    if headers is not None:
        headers.setdefault(SENT_AT_HEADER, time.time())


def _job_labels(args: tuple) -> tuple[str, str] | None:
    """(game, level) from a bot-turn task's payload (a ``TurnTask``); None when it
    carries none."""
    try:
        job = TurnTask.from_dict(args[0]).job
    except Exception:  # no payload, or not a turn's
        return None
    return job.game_type or "?", job.level or "?"


@signals.task_prerun.connect
def _started_task(task_id: str, task: Any, args: tuple = (), **_: Any) -> None:
    if task.name not in _TURN_TASKS:
        return
    sent_at = getattr(task.request, SENT_AT_HEADER, None)
    labels = _job_labels(args)
    if sent_at is not None and labels is not None:
        waited = max(0.0, time.time() - float(sent_at))
        metrics.observe_bot_turn_phase("queue", *labels, waited)


def observe(phase: str, job: BotJob, seconds: float, outcome: str | None = None) -> None:
    """One phase of a bot turn, timed by the task that ran it (``outcome``: a commit's)."""
    applied = phase == "commit" and outcome == CommitOutcome.APPLIED.value
    metrics.observe_bot_turn_phase(phase, job.game_type, job.level, seconds, applied)


@signals.worker_process_shutdown.connect
def _forget_process(**_: Any) -> None:
    """A prefork child exits: drop its live gauges from the group's aggregate."""
    from services.observe.metrics_export import mark_process_dead

    mark_process_dead(os.getpid())
