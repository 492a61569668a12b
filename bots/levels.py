"""Bot levels a game creator picks per seat, and the one in-process entry point.

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

Measured decision time on one core of the 2-CPU dev machine (trees one after
another; ``benchmarks/bots_speed.py``, 4-player positions), mean over 8 positions,
as docs/bots.md gives them:
mcts-fast: Cité 169 ms, Catan 118 ms, Endeavor 175 ms;
mcts-strong: Cité 2.22 s, Catan 0.89 s, Endeavor 1.32 s.
In Cité more iterations alone bought no strength: the depth-30 playouts' model
is searched out at mcts-fast's budget. Playouts to the end score a game's real
result instead of the heuristic's guess, with more noise, which more iterations
average out: that is where mcts-strong's budget pays (benchmarks in docs/benchmarks.md).
A decision with one legal (bot) action is answered without search.

Budgets are in iterations, so a decision is a pure function of (state, seat,
level, seed) and replays exactly; ``seconds`` (per tree) can cap a level's time
instead or as well, at the price of that determinism. Each tree searches its own
determinization of the seat's observation (``bots.search``).

A bot is only ever given a state that is already a determinization of its own
seat's observation (``State.determinize(seat, rng)``), never the true state, so
it cannot use what its seat may not see; each tree determinizes it once more.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace
from typing import Any

from bots.greedy import greedy_action
from bots.heuristics import knowledge
from games import State
from games.base import quote_input


@dataclass(frozen=True)
class Level:
    name: str
    description: str
    kind: str  # "random", "greedy" or "mcts"
    trees: int = 0  # root-parallel trees K (0: no search)
    iterations: int | None = None  # per tree
    seconds: float | None = None  # per tree
    depth: int = 0  # playout plies before the heuristic scores the state
    # Plies of a playout that follows the game's own playout policy (None: ``depth``).
    # Random playouts are cut short because random play soon stops looking like the
    # game; a policy playout may run to the end and score the game's real result.
    policy_depth: int | None = None
    c: float = 0.0  # UCT exploration constant (returns are in [0, 1])
    playout: str = "game"  # "game": the game's playout policy; "random": uniformly random


LEVELS: dict[str, Level] = {
    level.name: level
    for level in (
        Level("random", "picks uniformly among the legal actions", "random"),
        Level("greedy", "one-ply lookahead on the game's heuristic evaluation", "greedy"),
        Level(
            "mcts-fast",
            "Monte Carlo tree search, 2 trees x 400 iterations",
            "mcts",
            trees=2,
            iterations=400,
            depth=30,
            c=0.7,
        ),
        Level(
            "mcts-strong",
            "Monte Carlo tree search, 4 trees x 1500 iterations",
            "mcts",
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
PLAYOUTS = ("game", "random")
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
    return level


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


def choose_action(state: State, seat: int, level: str, seed: int) -> int:
    """The action ``level`` plays for ``seat`` in ``state`` (a determinized view).

    Runs the level's trees one after another in this process and merges them, as
    the service does across workers. Deterministic for a given (state, seat,
    level, seed) when the level's budget is in iterations.
    """
    if state.current_player() != seat:
        raise ValueError(f"seat {seat} is not to move")
    spec = get_level(level)
    rng = random.Random(seed)
    if spec.kind == "random":
        return rng.choice(state.legal_actions())
    game = knowledge(state.info.name)
    if spec.kind == "greedy":
        return greedy_action(state, seat, game, rng)[0]
    from bots.search import best_action, merge_root_stats, search_state

    stats = [search_state(state, seat, spec, seed, tree) for tree in range(spec.trees)]
    return best_action(merge_root_stats(stats))
