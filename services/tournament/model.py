"""What a tournament is: its definition, its entrants, its tables and their results.

Plain frozen dataclasses. ``Definition.to_dict``/``from_dict`` give the JSON form the
store keeps; ``from_dict`` checks the shape and types, ``schedule.validate`` the meaning.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

ROUND_ROBIN = "round-robin"
GAUNTLET = "gauntlet"
SWISS = "swiss"
FORMATS = (ROUND_ROBIN, GAUNTLET, SWISS)


@dataclass(frozen=True)
class Entrant:
    name: str  # unique in the tournament
    level: str | None  # a bot level (custom levels included); None = an external entrant

    @property
    def is_bot(self) -> bool:
        return self.level is not None


@dataclass(frozen=True)
class Definition:
    """Everything that fixes a tournament's schedule; with bot entrants, its games too."""

    name: str
    game: str
    players: int
    entrants: tuple[Entrant, ...]
    format: str  # one of FORMATS
    games: int  # tables in all; schedule.validate says which counts each format takes
    seed: int
    duplicate: bool = False
    parallel: int = 1
    options: tuple[tuple[str, str], ...] = ()  # game options, sorted by key
    focus: str | None = None  # gauntlet: the focus entrant's name (default: the first)
    move_time_limit: float = 0.0  # seconds for an external seat's move; 0 = no limit
    fallback_level: str = "random"  # plays a timed-out external seat's move

    def __post_init__(self) -> None:
        # Lists and unsorted options would make equal definitions compare (and hash) unequal.
        object.__setattr__(self, "entrants", tuple(self.entrants))
        pairs = self.options.items() if isinstance(self.options, Mapping) else self.options
        object.__setattr__(self, "options", tuple(sorted(tuple(kv) for kv in pairs)))

    def focus_name(self) -> str | None:
        """The gauntlet's focus entrant: ``focus``, or the first entrant by default."""
        if self.focus is not None:
            return self.focus
        return self.entrants[0].name if self.entrants else None

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
            "options": dict(self.options),
            "focus": self.focus,
            "move_time_limit": self.move_time_limit,
            "fallback_level": self.fallback_level,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Definition:
        """Rebuild from ``to_dict`` output; a missing or mistyped field raises ValueError."""
        if not isinstance(d, Mapping):
            raise ValueError("a tournament definition must be a JSON object")
        entrants_data = _field(d, "entrants", list)
        entrants = []
        for item in entrants_data:
            if not isinstance(item, Mapping):
                raise ValueError("each entrant must be an object with a name and a level")
            level = _field(item, "level", str, optional=True)
            entrants.append(Entrant(_field(item, "name", str), level))
        options = _field(d, "options", dict, default={})
        for key, value in options.items():
            if not isinstance(key, str) or not isinstance(value, str):
                raise ValueError("game options must map strings to strings")
        limit = _field(d, "move_time_limit", (int, float), default=0.0)
        return cls(
            name=_field(d, "name", str),
            game=_field(d, "game", str),
            players=_field(d, "players", int),
            entrants=tuple(entrants),
            format=_field(d, "format", str),
            games=_field(d, "games", int),
            seed=_field(d, "seed", int),
            duplicate=_field(d, "duplicate", bool, default=False),
            parallel=_field(d, "parallel", int, default=1),
            options=tuple(options.items()),
            focus=_field(d, "focus", str, optional=True),
            move_time_limit=float(limit),
            fallback_level=_field(d, "fallback_level", str, default="random"),
        )


@dataclass(frozen=True)
class Table:
    """One game of the tournament, as scheduled."""

    index: int  # 0.. in schedule order, unique in the tournament
    round: int  # 0..
    seats: tuple[int, ...]  # the entrant index in each seat position
    deal: int  # the game seed of this table; the tables of one duplicate group share it
    group: int  # duplicate group (== index when not duplicate)


@dataclass(frozen=True)
class TableResult:
    """A finished table: returns per seat (1 a win, 0 a loss, a shared win split); or
    a failed one: ``error`` says why (its game was lost), and it has no returns."""

    table: Table
    returns: tuple[float, ...]
    game_id: str
    timeouts: tuple[int, ...] = field(default=())  # per seat: moves a fallback level played
    error: str = ""  # empty: played to its end


_MISSING = object()


def _field(
    d: Mapping[str, Any],
    key: str,
    kind: type | tuple[type, ...],
    *,
    default: Any = _MISSING,
    optional: bool = False,
) -> Any:
    """``d[key]`` checked against ``kind`` (a bool is no int here); None when ``optional``."""
    if key not in d:
        if optional:
            return None
        if default is _MISSING:
            raise ValueError(f"tournament definition: missing field {key!r}")
        return default
    value = d[key]
    if value is None and optional:
        return None
    kinds = kind if isinstance(kind, tuple) else (kind,)
    is_bool = isinstance(value, bool)
    if not isinstance(value, kinds) or (is_bool and bool not in kinds):
        names = " or ".join(k.__name__ for k in kinds)
        raise ValueError(f"tournament definition: field {key!r} must be {names}")
    return value
