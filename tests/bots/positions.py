"""Concrete positions for bot tests, built on raw engine states."""

from __future__ import annotations

import random

from games import CHANCE, TERMINAL, get_game
from games.cite import rules as CR
from games.cite.engine import CiteState


def cite_resolve(card: int, mine: list[int], other: list[int]) -> CiteState:
    """Two cities; seat 0 (the turn city) resolves ``card`` with gauges ``mine``."""
    state = CiteState(2)
    state.gauges = [list(mine), list(other)]
    state.deck[card] -= 1
    state.hand[0] = card
    state.phase = CR.RESOLVE
    state.turn = 0
    state.actor = 0
    state.resolve_order = [0]
    return state


def random_until(game_type: str, players: int, seed: int, found, max_plies: int = 20_000):
    """Play random moves from a new game until ``found(state)`` holds at a decision."""
    rng = random.Random(seed)
    state = get_game(game_type).new_game(players, seed)
    for _ in range(max_plies):
        player = state.current_player()
        if player == TERMINAL:
            return None
        if player >= 0 and found(state):
            return state
        if player == CHANCE:
            state.apply_unchecked(state.sample_chance(rng))
        else:
            state.apply_unchecked(rng.choice(state.legal_actions()))
    return None


def first_found(game_type: str, players: int, found, seeds: int = 50):
    for seed in range(seeds):
        state = random_until(game_type, players, seed, found)
        if state is not None:
            return state
    raise AssertionError(f"no {game_type} position found")


def after_decisions(count: int, also=lambda state: True):
    """A ``found`` predicate: past ``count`` decision nodes, and ``also`` holds."""
    seen = [0]

    def found(state) -> bool:
        seen[0] += 1
        return seen[0] > count and also(state)

    return found
