"""Root-parallel search: one tree per call, and the merge of the trees' root statistics.

Root statistics are JSON-able (they travel through Celery/Redis):
``{"visits": {"<action id>": n}, "values": {"<action id>": summed return for the
seat}, "iterations": n, "seconds": s}`` -- action ids are string keys, as JSON
object keys must be; ``merge_root_stats`` and ``best_action`` accept int keys too.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from bots.heuristics import knowledge
from bots.levels import Level, get_level
from bots.mcts import uct_search
from games import State, get_game


def tree_rng(seed: int, tree: int) -> random.Random:
    """The rng of tree ``tree``: it determinizes, then drives the search."""
    return random.Random(f"{seed}:{tree}")


def search_state(state: State, seat: int, level: Level, seed: int, tree: int) -> dict[str, Any]:
    """One tree on ``state`` (already a determinization for ``seat``)."""
    if state.current_player() != seat:
        raise ValueError(f"seat {seat} is not to move")
    start = time.perf_counter()
    game = knowledge(state.info.name)
    rng = tree_rng(seed, tree)
    # A fresh sample of what the seat cannot see: it depends only on its observation.
    world = state.determinize(seat, rng)
    actions = game.actions(world)
    if len(actions) == 1:  # nothing to search
        return _stats({actions[0]: 1}, {actions[0]: 0.0}, 0, time.perf_counter() - start)
    epsilon = None if level.playout == "random" else game.playout_epsilon
    depth = level.depth if epsilon is None or level.policy_depth is None else level.policy_depth
    result = uct_search(
        world,
        game.evaluate,
        game.actions,
        rng,
        iterations=level.iterations,
        seconds=level.seconds,
        depth=depth,
        c=level.c,
        playout_epsilon=epsilon,
    )
    return _stats(result.visits, result.values, result.iterations, time.perf_counter() - start)


def search_tree(
    game_type: str, state_bytes: bytes, seat: int, level: str, seed: int, tree: int
) -> dict[str, Any]:
    """ONE root-parallel tree of ``level`` for ``seat`` (the service's unit of work)."""
    spec = get_level(level)
    if spec.kind != "mcts":
        raise ValueError(f"level {level!r} does not search")
    state = get_game(game_type).state_class.from_bytes(state_bytes)
    return search_state(state, seat, spec, seed, tree)


def search_tree_budget(
    game_type: str,
    state_bytes: bytes,
    seat: int,
    level: str,
    seed: int,
    tree: int,
    *,
    iterations: int | None = None,
    seconds: float | None = None,
) -> dict[str, Any]:
    """``search_tree`` with the level's per-tree budget replaced (benchmarks: K x N vs 1 x KN)."""
    spec = replace(get_level(level), iterations=iterations, seconds=seconds)
    state = get_game(game_type).state_class.from_bytes(state_bytes)
    return search_state(state, seat, spec, seed, tree)


def _stats(
    visits: Mapping[int, int], values: Mapping[int, float], iterations: int, seconds: float
) -> dict[str, Any]:
    return {
        "visits": {str(a): n for a, n in visits.items()},
        "values": {str(a): v for a, v in values.items()},
        "iterations": iterations,
        "seconds": seconds,
    }


def merge_root_stats(stats: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Sum the trees' visits, values, iterations and seconds (CPU time) per action."""
    visits: dict[str, int] = {}
    values: dict[str, float] = {}
    iterations = 0
    seconds = 0.0
    for one in stats:
        for key, n in one["visits"].items():
            k = str(key)
            visits[k] = visits.get(k, 0) + int(n)
        for key, v in one["values"].items():
            k = str(key)
            values[k] = values.get(k, 0.0) + float(v)
        iterations += int(one.get("iterations", 0))
        seconds += float(one.get("seconds", 0.0))
    if not visits:
        raise ValueError("no root statistics to merge")
    return {"visits": visits, "values": values, "iterations": iterations, "seconds": seconds}


def best_action(stats: Mapping[str, Any]) -> int:
    """The most visited action; ties go to the higher mean value, then the lower id."""
    visits = stats["visits"]
    values = stats.get("values", {})

    def rank(key: Any) -> tuple[int, float, int]:
        n = int(visits[key])
        mean = float(values.get(key, 0.0)) / n if n else 0.0
        return (n, mean, -int(key))

    return int(max(visits, key=rank))
