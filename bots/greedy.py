"""One-ply greedy: the action whose resulting state the heuristic rates best for the seat.

When the action leads to a chance node, its value is the expectation over that
node's outcomes; further chance nodes right after one (e.g. Cité drawing several
cards) are sampled along one path, so a decision costs at most one evaluation
per (action, first outcome). Ties are broken at random with the given rng.
"""

from __future__ import annotations

import random
from typing import Final

from bots.heuristics import GameKnowledge
from games import CHANCE, TERMINAL, State

_MAX_CHAINED_CHANCE: Final = 64  # chance plies sampled after the first before evaluating


def _value(state: State, seat: int, knowledge: GameKnowledge, rng: random.Random) -> float:
    player = state.current_player()
    if player == TERMINAL:
        return state.returns()[seat]
    if player != CHANCE:
        return knowledge.evaluate(state)[seat]
    total = 0.0
    for outcome, p in state.chance_outcomes():
        child = state.clone()
        child.apply_unchecked(outcome)
        for _ in range(_MAX_CHAINED_CHANCE):
            if child.current_player() != CHANCE:
                break
            child.apply_unchecked(child.sample_chance(rng))
        if child.current_player() == TERMINAL:
            total += p * child.returns()[seat]
        else:
            total += p * knowledge.evaluate(child)[seat]
    return total


def greedy_action(
    state: State, seat: int, knowledge: GameKnowledge, rng: random.Random
) -> tuple[int, dict[int, float]]:
    """The greedy choice and each candidate's value (for tests and debugging)."""
    actions = knowledge.actions(state)
    if len(actions) == 1:
        return actions[0], {actions[0]: 0.0}
    values: dict[int, float] = {}
    for action in actions:
        child = state.clone()
        child.apply_unchecked(action)
        values[action] = _value(child, seat, knowledge, rng)
    best = max(values.values())
    # Relative tolerance: float noise must not decide between equal options.
    top = [a for a in actions if values[a] >= best - 1e-12]
    return rng.choice(top), values
