"""Bot levels a game creator picks per seat: what each level is, and the custom
search levels benchmarks and tournaments write out field by field.

| level       | how it decides                               | budget per decision           |
|-------------|----------------------------------------------|-------------------------------|
| random      | uniformly among the legal actions            | none                          |
| greedy      | one-ply lookahead on the game's heuristic    | one evaluation per (action,   |
|             | (expectation over a following chance node)   | first chance outcome)         |
| mcts-fast   | UCT, root-parallel trees, cut-off playouts   | 2 trees x 400 iterations,     |
|             | (random; greedy on the heuristic in Cité)    | playout depth 30, c = 0.7     |
| mcts-strong | the same, more search; policy playouts       | 4 trees x 1500 iterations,    |
|             | (Cité's) run to the end of the game          | playout depth 30 (policy      |
|             |                                              | playouts: 200), c = 0.7       |

What a decision costs at each level, and why mcts-strong's budget is where it is,
is measured in docs/benchmarks.md (with the command that measures it).

Budgets are in iterations, so a decision is a pure function of (state, seat,
level, seed) and replays exactly; ``seconds`` (per tree) can cap a level's time
instead or as well, at the price of that determinism.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from games.base import quote_input


class LevelKind(StrEnum):
    """How a level decides."""

    RANDOM = "random"  # uniformly among the legal actions
    GREEDY = "greedy"  # one-ply lookahead on the game's heuristic
    MCTS = "mcts"  # root-parallel UCT trees (``bots.search``)


class Playout(StrEnum):
    """What a search's playouts play."""

    GAME = "game"  # the game's own playout policy (``bots.heuristics``)
    RANDOM = "random"  # uniformly random moves


@dataclass(frozen=True)
class Level:
    name: str
    description: str
    kind: LevelKind
    trees: int = 0  # root-parallel trees K (0: no search)
    iterations: int | None = None  # per tree
    seconds: float | None = None  # per tree
    depth: int = 0  # playout plies before the heuristic scores the state
    # Plies of a playout that follows the game's own playout policy (None: ``depth``).
    # Random playouts are cut short because random play soon stops looking like the
    # game; a policy playout may run to the end and score the game's real result.
    policy_depth: int | None = None
    c: float = 0.0  # UCT exploration constant (returns are in [0, 1])
    playout: Playout = Playout.GAME

    def capped(self, max_iterations: int | None) -> Level:
        """This level with trees x iterations cut down to ``max_iterations`` (a server's
        cap on one decision); levels that do not search are returned as they are."""
        if not max_iterations or self.kind is not LevelKind.MCTS:
            return self
        trees = max(1, min(self.trees, max_iterations))
        per_tree = max(1, max_iterations // trees)
        if self.iterations is None or self.iterations > per_tree:
            return replace(self, trees=trees, iterations=per_tree)
        return replace(self, trees=trees)


LEVELS: dict[str, Level] = {
    level.name: level
    for level in (
        Level("random", "picks uniformly among the legal actions", LevelKind.RANDOM),
        Level("greedy", "one-ply lookahead on the game's heuristic evaluation", LevelKind.GREEDY),
        Level(
            "mcts-fast",
            "Monte Carlo tree search, 2 trees x 400 iterations",
            LevelKind.MCTS,
            trees=2,
            iterations=400,
            depth=30,
            c=0.7,
        ),
        Level(
            "mcts-strong",
            "Monte Carlo tree search, 4 trees x 1500 iterations",
            LevelKind.MCTS,
            trees=4,
            iterations=1500,
            depth=30,
            policy_depth=200,
            c=0.7,
        ),
    )
}


def level_names() -> list[str]:
    return list(LEVELS)


def get_level(name: str) -> Level:
    """A level by name, or an ad-hoc search level for benchmarks written
    ``mcts:trees=2,iterations=500,depth=12,c=0.7,playout=random`` (omitted
    fields: mcts-fast's)."""
    level = LEVELS.get(name)
    if level is not None:
        return level
    if name.startswith("mcts:"):
        return _custom(name)
    raise ValueError(f"unknown bot level {name!r}; known: {', '.join(LEVELS)}")


_FIELDS = {
    "trees": int,
    "iterations": int,
    "seconds": float,
    "depth": int,
    "policy_depth": int,
    "c": float,
    "playout": str,
}
PLAYOUTS = tuple(Playout)
# Largest custom budgets: one game's bot must not take the whole search pool.
MAXIMA = {
    "trees": 16,
    "iterations": 20_000,
    "seconds": 10.0,
    "depth": 500,
    "policy_depth": 500,
    "c": 100.0,
}
_MAX_SPEC = 200


def _custom(spec: str) -> Level:
    base = LEVELS["mcts-fast"]
    shown = quote_input(spec)
    if len(spec) > _MAX_SPEC:
        raise ValueError(f"bad search level {shown}: longer than {_MAX_SPEC} characters")
    values: dict[str, Any] = {}
    for item in spec.removeprefix("mcts:").split(","):
        key, _, text = item.partition("=")
        key = key.strip()
        if key not in _FIELDS or not text:
            raise ValueError(f"bad search level {shown}: fields are {', '.join(_FIELDS)}")
        try:
            values[key] = None if text.strip() == "none" else _FIELDS[key](text)
        except ValueError:
            raise ValueError(f"bad search level {shown}: {key} takes a number") from None
        _check_bound(shown, key, values[key])
    if "seconds" in values and "iterations" not in values:
        values["iterations"] = None
    level = replace(base, name=spec, description="custom search level", **values)
    if level.trees < 1 or (level.iterations is None and level.seconds is None):
        raise ValueError(f"bad search level {shown}: it needs trees >= 1 and a budget")
    if level.playout not in PLAYOUTS:
        raise ValueError(f"bad search level {shown}: playout is one of {', '.join(PLAYOUTS)}")
    return replace(level, playout=Playout(level.playout))


def _check_bound(shown: str, key: str, value: Any) -> None:
    """Budgets are positive (c finite and > 0), depths >= 0, and none above ``MAXIMA``."""
    if value is None or key not in MAXIMA:
        return
    low_ok = value >= 0 if key in ("depth", "policy_depth") else value > 0
    if not (math.isfinite(value) and low_ok and value <= MAXIMA[key]):
        least = "0" if key in ("depth", "policy_depth") else "above 0"
        raise ValueError(
            f"bad search level {shown}: {key} must be {least} and at most {MAXIMA[key]}, "
            f"not {value}"
        )
