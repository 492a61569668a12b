"""Per-game knowledge the search uses: a heuristic evaluation and the bots' action set.

Each game module exposes ``evaluate(state) -> list[float]``: per seat, a share in
[0, 1], the shares summing to 1 (so a cut-off rollout scores like ``returns()``),
and may expose ``bot_actions(state) -> list[int]``: the legal actions a bot
considers (a subset of ``legal_actions()``, never empty when that is not), and
``PLAYOUT_EPSILON``: when set, the search's playouts are epsilon-greedy on
``evaluate`` instead of uniformly random (``bots.mcts``).
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

from games import State


@dataclass(frozen=True)
class GameKnowledge:
    evaluate: Callable[[State], list[float]]
    actions: Callable[[State], list[int]]
    playout_epsilon: float | None = None  # None: uniformly random playouts


def _legal(state: State) -> list[int]:
    return state.legal_actions()


@cache
def knowledge(game_type: str) -> GameKnowledge:
    """The heuristics of a registered game; KeyError when the bots know none."""
    try:
        module = importlib.import_module(f"bots.heuristics.{game_type}")
    except ModuleNotFoundError:
        raise KeyError(game_type) from None
    return GameKnowledge(
        module.evaluate,
        getattr(module, "bot_actions", _legal),
        getattr(module, "PLAYOUT_EPSILON", None),
    )


def softmax_shares(scores: Sequence[float], sharpness: float) -> list[float]:
    """Map per-seat scores to shares that sum to 1; ``sharpness`` per score unit."""
    top = max(scores)
    weights = [math.exp(sharpness * (s - top)) for s in scores]
    total = sum(weights)
    return [w / total for w in weights]
