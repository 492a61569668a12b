"""A whole bot decision in this process: the level's trees one after another, merged
as the service merges them across pool processes or workers.

A bot is only ever given a state that is already a determinization of its own
seat's observation (``State.determinize(seat, rng)``), never the true state, so
it cannot use what its seat may not see.
"""

from __future__ import annotations

import random

from bots.greedy import greedy_action
from bots.heuristics import knowledge
from bots.levels import LevelKind, get_level
from bots.search import best_action, merge_root_stats, search_tree
from games import State


def bot_actions(state: State) -> list[int]:
    """The actions any level considers: the game's ``bot_actions`` (Catan's leave out
    domestic offers, so no bot ever offers, let alone twice a turn), else all legal."""
    try:
        return knowledge(state.info.name).actions(state)
    except KeyError:
        return state.legal_actions()


def choose_action(state: State, seat: int, level: str, seed: int) -> int:
    """The action ``level`` plays for ``seat`` in ``state`` (a determinized view).

    Deterministic for a given (state, seat, level, seed) when the level's budget is
    in iterations. A decision with one legal (bot) action is answered without search.
    """
    return decide(state, seat, level, seed)[0]


def decide(state: State, seat: int, level: str, seed: int) -> tuple[int, int]:
    """``choose_action``'s action and the search iterations it took, all trees together
    (0 for levels that do not search; benchmarks report it at a time budget)."""
    if state.current_player() != seat:
        raise ValueError(f"seat {seat} is not to move")
    spec = get_level(level)
    if spec.kind is LevelKind.RANDOM:
        # The bots' action set, not every legal action: a random Catan bot would
        # otherwise make a domestic offer most turns (908 in one game, issue 29).
        return random.Random(seed).choice(bot_actions(state)), 0
    if spec.kind is LevelKind.GREEDY:
        return greedy_action(state, seat, knowledge(state.info.name), random.Random(seed))[0], 0
    merged = merge_root_stats(
        search_tree(state, seat, spec, seed, tree) for tree in range(spec.trees)
    )
    return best_action(merged), int(merged["iterations"])
