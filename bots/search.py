"""Root-parallel search: one tree per call, and the merge of the trees' root statistics.

``search_tree`` is the one entry point of a search, wherever a tree runs (in this
process, a local pool process or a Celery worker); ``bots.mcts.uct_search`` is the
algorithm under it.

Root statistics are JSON-able (they travel through Celery/Redis):
``{"visits": {"<action id>": n}, "values": {"<action id>": summed return for the
seat}, "iterations": n, "seconds": s}`` -- action ids are string keys, as JSON
object keys must be; ``merge_root_stats`` and ``best_action`` accept int keys too.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterable, Mapping
from typing import Any

from bots.heuristics import knowledge
from bots.levels import Level, LevelKind, Playout
from bots.mcts import uct_search
from games import State


def tree_rng(seed: int, tree: int) -> random.Random:
    """The rng of tree ``tree``: it determinizes, then drives the search."""
    return random.Random(f"{seed}:{tree}")


def search_tree(state: State, seat: int, level: Level, seed: int, tree: int) -> dict[str, Any]:
    """Tree number ``tree`` of ``level``'s root-parallel search for ``seat`` on ``state``
    (already a determinization of the seat's observation: a bot never sees the true
    state). Each tree determinizes it once more with its own rng, so the trees sample
    different worlds; a pure function of its arguments when the budget is in iterations."""
    if level.kind is not LevelKind.MCTS:
        raise ValueError(f"level {level.name!r} does not search")
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
    epsilon = None if level.playout is Playout.RANDOM else game.playout_epsilon
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
