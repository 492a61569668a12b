"""No bot level makes a domestic Catan offer (issue 29: 908 offers from `random` bots
in one game; docs/bots.md says Catan bots never offer), so none offers twice a turn."""

from __future__ import annotations

import random

import pytest

from bots import choose_action
from games import CHANCE, TERMINAL, get_game
from games.catan import rules as R


def _is_offer(state, action: int) -> bool:
    # Offers, drafts and whole offers are the tail of the action space.
    return state.phase == R.MAIN and action >= R.OFFER_BASE


def test_a_random_bots_game_has_no_offer_and_ends() -> None:
    state = get_game("catan").new_game(4, 7)
    rng = random.Random(7)
    decisions = offers = offers_possible = 0
    for ply in range(60_000):
        player = state.current_player()
        if player == TERMINAL:
            break
        if player == CHANCE:
            state.apply_unchecked(state.sample_chance(rng))
            continue
        legal = state.legal_actions()
        offers_possible += any(_is_offer(state, a) for a in legal)
        action = choose_action(state, player, "random", ply)
        offers += _is_offer(state, action)
        decisions += 1
        state.apply_action(action)
    assert offers_possible > 50, "the game never let a bot offer: the test shows nothing"
    assert offers == 0
    assert decisions > 100


@pytest.mark.parametrize("level", ["random", "greedy", "mcts:trees=1,iterations=30"])
def test_no_level_offers_where_it_could(level: str) -> None:
    """Main-phase positions where offers are legal: each level plays something else."""
    rng = random.Random(3)
    state = get_game("catan").new_game(3, 3)
    seen = 0
    for ply in range(20_000):
        player = state.current_player()
        if player == TERMINAL or seen >= 8:
            break
        if player == CHANCE:
            state.apply_unchecked(state.sample_chance(rng))
            continue
        legal = state.legal_actions()
        if any(_is_offer(state, a) for a in legal):
            seen += 1
            chosen = choose_action(state.determinize(player, rng), player, level, ply)
            assert not _is_offer(state, chosen), state.action_to_string(chosen)
        others = [a for a in legal if not _is_offer(state, a)]
        state.apply_action(rng.choice(others))
    assert seen >= 8
