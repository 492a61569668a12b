"""A bot turn as a Celery task carries it (``TurnTask``): the first argument of
``gamehost.search`` and ``gamehost.decide_and_commit``. Its layout follows the rules of
``services.stores.records`` (rolling upgrades: ``record_version``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from services.bots.jobs import BotJob
from services.stores.records import LAYOUT, known_fields, written_layout


@dataclass(frozen=True)
class TurnTask:
    """A bot turn as a Celery task carries it: the job, and the store to commit it to
    (each replica names its own, so workers serve replicas of several deployments)."""

    job: BotJob
    store_url: str
    prefix: str
    max_iterations: int | None = None  # the dispatching server's search cap
    record_version: int = LAYOUT

    def to_dict(self) -> dict[str, Any]:
        layout = {
            "job": self.job.to_dict(),
            "store_url": self.store_url,
            "prefix": self.prefix,
            "max_iterations": self.max_iterations,
        }
        return written_layout(layout, {}, self.record_version)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TurnTask:
        known = known_fields(cls, data)
        return cls(**{**known, "job": BotJob.from_dict(known["job"])})
