"""Search levels on concrete positions of the real games: take wins, avoid losses."""

from __future__ import annotations

import pytest

from bots import choose_action
from games.catan import rules as KR
from games.cite import rules as CR
from tests.bots.positions import cite_resolve, first_found

SEARCH_LEVELS = ("greedy", "mcts-fast")


@pytest.mark.parametrize("level", SEARCH_LEVELS)
def test_cite_war_that_ends_the_game_is_taken(level):
    # Army 6 against 3, the neighbour down to 1 civilian: the war makes it fall.
    state = cite_resolve(CR.GOOD_WAR, [5, 5, 5, 5, 6], [5, 5, 5, 1, 3])
    assert sorted(state.legal_actions()) == [CR.DISCARD, CR.attack(1)]
    for seed in range(3):
        assert choose_action(state, 0, level, seed) == CR.attack(1)


@pytest.mark.parametrize("level", SEARCH_LEVELS)
def test_cite_card_that_would_make_the_city_fall_is_discarded(level):
    # Civil war at 1 civilian: playing it loses at once, paying 1 gold + 1 wheat does not.
    state = cite_resolve(CR.CIVIL_WAR, [5, 5, 5, 1, 5], [5, 5, 5, 5, 5])
    assert sorted(state.legal_actions()) == [CR.PLAY, CR.DISCARD]
    for seed in range(3):
        assert choose_action(state, 0, level, seed) == CR.DISCARD


def _can_build_city(state) -> bool:
    p = state.turn
    return state.phase == KR.MAIN and state.actor == p and state.settle_mask[p] != 0


@pytest.mark.parametrize("level", SEARCH_LEVELS)
def test_catan_city_that_reaches_ten_points_is_built(level):
    state = first_found("catan", 4, _can_build_city)
    p = state.turn
    # Exactly the cards of a city, and 9 points: a city wins now, nothing else does.
    for r in range(5):
        state.bank[r] += state.hand[5 * p + r]
        state.hand[5 * p + r] = 0
    state.hand[5 * p + KR.GRAIN], state.hand[5 * p + KR.ORE] = 2, 3
    state.bank[KR.GRAIN] -= 2
    state.bank[KR.ORE] -= 3
    state.vp[p] = 9
    state.dev[5 * p : 5 * p + 5] = [0] * 5
    state.dev_count[p] = 0
    action = choose_action(state, p, level, 1)
    assert KR.CITY_BASE <= action < KR.ROBBER_BASE
    after = state.clone()
    after.apply_action(action)
    assert after.returns()[p] == 1.0
