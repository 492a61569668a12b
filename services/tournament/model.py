"""STAND-IN (w15-tsvc): a minimal copy of the core's interface so that the service
side runs its tests before the core lands. The lead replaces this file with the
core helper's services/tournament/model.py at merge; nothing here is the real core.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Entrant:
    name: str
    level: str | None  # None: an external entrant (a person or a program)


@dataclass(frozen=True)
class Definition:
    name: str
    game: str
    players: int
    entrants: tuple[Entrant, ...]
    format: str
    games: int
    seed: int
    duplicate: bool = False
    parallel: int = 1
    options: tuple[tuple[str, str], ...] = ()
    focus: str | None = None
    move_time_limit: float = 0.0
    fallback_level: str = "random"

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "game": self.game,
            "players": self.players,
            "entrants": [{"name": e.name, "level": e.level} for e in self.entrants],
            "format": self.format,
            "games": self.games,
            "seed": self.seed,
            "duplicate": self.duplicate,
            "parallel": self.parallel,
            "options": [list(o) for o in self.options],
            "focus": self.focus,
            "move_time_limit": self.move_time_limit,
            "fallback_level": self.fallback_level,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Definition:
        return cls(
            **{
                **data,
                "entrants": tuple(Entrant(e["name"], e["level"]) for e in data["entrants"]),
                "options": tuple((str(k), str(v)) for k, v in data.get("options", ())),
            }
        )


@dataclass(frozen=True)
class Table:
    index: int
    round: int
    seats: tuple[int, ...]  # entrant index per seat
    deal: int  # the table game's seed
    group: int


@dataclass(frozen=True)
class TableResult:
    table: Table
    returns: tuple[float, ...]
    game_id: str
    timeouts: tuple[int, ...] = field(default=())
