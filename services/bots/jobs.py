"""A bot turn's job (``BotJob``): one decision, as it travels to a pool process or a
Celery worker. Its layout follows the rules of ``services.stores.records`` (rolling
upgrades: ``record_version``)."""

from __future__ import annotations

import base64
import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import bots
from bots import Level
from games import State
from services.stores.records import LAYOUT, known_fields, state_from, written_layout


@dataclass(frozen=True)
class BotJob:
    """A decision to make, as it travels to a pool process or a Celery worker."""

    game_id: str
    game_type: str
    version: int  # the game's version the bot searches from
    seat: int
    level: str
    seed: int  # the bot's own seed for this decision (derived from the game's secret seed)
    state: bytes  # determinize(seat, rng) of the true state
    timeout: bool = False  # a fallback move for a human seat out of time
    record_version: int = LAYOUT

    def view(self) -> State:
        """The bot's view, decoded: all the bot may see."""
        return state_from(self.game_type, self.state)

    def plan(self, max_iterations: int | None = None) -> Level:
        """The job's level under a server's cap on one decision's trees x iterations;
        its ``trees`` is 0 when the level decides without search."""
        return bots.get_level(self.level).capped(max_iterations)

    def to_dict(self) -> dict[str, Any]:
        layout = dataclasses.asdict(self)
        del layout["record_version"]
        layout["state"] = base64.b64encode(self.state).decode()
        return written_layout(layout, {}, self.record_version)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BotJob:
        known = known_fields(cls, data)
        return cls(**{**known, "state": base64.b64decode(known["state"])})
