"""Every card's effect with its [fixed] details (shared/rules/cite.md, "Cards" and "Losses")."""

from __future__ import annotations

import pytest

from games.cite import rules as R
from tests.games.cite.helpers import (
    CARD,
    act,
    at_resolve,
    count_cards,
    gauge,
    gauges,
    give_granary,
    give_outpost,
    legal,
    make_state,
    phase,
)


def play(cities: dict[int, list[int]], card: str, players: int = 3):
    """Seat 0 plays ``card`` in a ``players``-city game (3 by default, so falls don't end it)."""
    state = at_resolve(make_state(players, cities), 0, {0: card})
    act(state, "play")
    return state


# ---------------------------------------------------------------- deck


def test_the_deck_holds_the_fixed_40_cards() -> None:
    counts = dict(zip(R.CARD_NAMES, R.DECK, strict=True))
    assert counts == {
        "granary": 4,
        "good-war": 5,
        "outpost": 3,
        "allegiance": 5,
        "hospital": 6,
        "fire": 5,
        "barbarians": 4,
        "civil-war": 4,
        "land-of-welcome": 4,
    }
    assert sum(counts.values()) == 40


# ---------------------------------------------------------------- granary and outpost


def test_granary_is_placed_before_the_city_empty() -> None:
    state = play({}, "granary")
    assert state.granary == [0, -1, -1]
    assert state.discard == [0] * R.NUM_CARDS
    assert count_cards(state) == 40


def test_second_granary_is_discarded_with_no_effect() -> None:
    state = at_resolve(make_state(3), 0, {0: "granary"})
    state.deck[CARD["granary"]] -= 1
    state.granary[0] = 1
    act(state, "play")
    assert state.granary[0] == 1
    assert state.discard[CARD["granary"]] == 1
    assert state.gauges[0] == gauges()


def test_outpost_is_placed_before_the_city_empty() -> None:
    state = play({}, "outpost")
    assert state.outpost == [0, -1, -1]
    assert state.discard == [0] * R.NUM_CARDS


def test_second_outpost_is_discarded_with_no_effect() -> None:
    state = make_state(3)
    give_outpost(state, 0, stored=3)
    at_resolve(state, 0, {0: "outpost"})
    act(state, "play")
    assert state.outpost[0] == 3
    assert state.discard[CARD["outpost"]] == 1


# ---------------------------------------------------------------- allegiance


@pytest.mark.parametrize(("gold", "after"), [(5, 3), (2, 0)])
def test_allegiance_pays_2_gold(gold: int, after: int) -> None:
    state = play({0: gauges(gold=gold)}, "allegiance")
    assert state.gauges[0] == gauges(gold=after)


@pytest.mark.parametrize("gold", [0, 1])
def test_allegiance_without_2_gold_pays_nothing_and_loses_a_civilian(gold: int) -> None:
    state = play({0: gauges(gold=gold)}, "allegiance")
    assert state.gauges[0] == gauges(gold=gold, civilians=4)


def test_allegiance_can_fell_the_city() -> None:
    state = play({0: gauges(gold=1, civilians=1)}, "allegiance")
    assert state.standing == [False, True, True]


# ---------------------------------------------------------------- hospital, fire


def test_hospital_gives_1_health() -> None:
    assert play({}, "hospital").gauges[0] == gauges(health=6)


def test_fire_destroys_2_wheat() -> None:
    assert play({}, "fire").gauges[0] == gauges(wheat=3)


def test_fire_ignores_stored_wheat() -> None:
    state = make_state(3, {0: gauges(wheat=1)})
    give_granary(state, 0, stored=2)
    at_resolve(state, 0, {0: "fire"})
    act(state, "play")
    assert gauge(state, 0, "wheat") == 0 and state.granary[0] == 2


# ---------------------------------------------------------------- barbarians, civil war (losses)


def test_barbarians_take_1_wheat_and_1_army() -> None:
    assert play({}, "barbarians").gauges[0] == gauges(wheat=4, army=4)


def test_barbarians_army_loss_falls_on_civilians_when_there_is_no_army() -> None:
    assert play({0: gauges(army=0)}, "barbarians").gauges[0] == gauges(wheat=4, civilians=4, army=0)


def test_barbarians_ignore_stored_wheat_and_army() -> None:
    state = make_state(3, {0: gauges(wheat=0, army=0)})
    give_granary(state, 0, stored=2)
    give_outpost(state, 0, stored=3)
    at_resolve(state, 0, {0: "barbarians"})
    act(state, "play")
    assert state.gauges[0] == gauges(wheat=0, civilians=4, army=0)
    assert (state.granary[0], state.outpost[0]) == (2, 3)


def test_barbarians_can_fell_a_city_without_army() -> None:
    state = play({0: gauges(army=0, civilians=1)}, "barbarians")
    assert state.standing[0] is False


def test_civil_war_takes_1_civilian_and_1_army() -> None:
    assert play({}, "civil-war").gauges[0] == gauges(civilians=4, army=4)


def test_civil_war_army_loss_falls_on_civilians_when_there_is_no_army() -> None:
    state = play({0: gauges(army=0)}, "civil-war")
    assert state.gauges[0] == gauges(civilians=3, army=0)


def test_civil_war_second_effect_can_fell_the_city() -> None:
    state = play({0: gauges(civilians=2, army=0)}, "civil-war")
    assert gauge(state, 0, "civilians") == 0
    assert state.standing[0] is False


# ---------------------------------------------------------------- land of welcome


def test_land_of_welcome_takes_a_civilian_from_each_neighbour() -> None:
    state = play({}, "land-of-welcome")
    assert [gauge(state, s, "civilians") for s in range(3)] == [7, 4, 4]


def test_land_of_welcome_spares_non_neighbours() -> None:
    state = play({}, "land-of-welcome", players=5)
    assert [gauge(state, s, "civilians") for s in range(5)] == [7, 4, 5, 5, 4]


def test_land_of_welcome_skips_fallen_cities() -> None:
    state = at_resolve(make_state(4, fallen=(1,)), 0, {0: "land-of-welcome"})
    act(state, "play")
    assert [gauge(state, s, "civilians") for s in range(4)] == [7, 5, 4, 4]


def test_land_of_welcome_with_two_cities_takes_one_civilian() -> None:
    state = play({}, "land-of-welcome", players=2)
    assert [gauge(state, s, "civilians") for s in range(2)] == [6, 4]


def test_land_of_welcome_civilian_of_a_falling_neighbour_still_arrives() -> None:
    # Seat 1 falls on its loss; the game goes on, and seat 0 still takes from seat 2.
    state = play({1: gauges(civilians=1)}, "land-of-welcome")
    assert state.standing == [True, False, True]
    assert [gauge(state, s, "civilians") for s in range(3)] == [7, 0, 4]


# ---------------------------------------------------------------- good war


def war(attacker: list[int], defender: list[int], players: int = 3):
    """Seat 0 attacks seat 1 with a Good war; seat 2 still holds a card, so the turn
    stays in step 6 and the next upkeep does not blur the result."""
    cities = {0: attacker, 1: defender}
    state = at_resolve(make_state(players, cities), 0, {0: "good-war", 2: "hospital"})
    act(state, "attack 1")
    return state


def test_good_war_larger_attacker_wins_and_chooses_gold_or_wheat() -> None:
    state = war(gauges(army=6), gauges(army=4))
    assert state.gauges[0] == gauges(army=5)
    assert state.gauges[1] == gauges(army=3, civilians=4)
    assert phase(state) == "war-spoils" and state.current_player() == 0
    assert legal(state) == {"take gold", "take wheat"}
    act(state, "take wheat")
    assert state.gauges[0] == gauges(army=5, wheat=6)
    assert state.gauges[1] == gauges(army=3, civilians=4, wheat=4)
    assert state.discard[CARD["good-war"]] == 1


def test_good_war_larger_defender_wins_and_the_defender_chooses() -> None:
    state = war(gauges(army=3), gauges(army=7))
    assert state.gauges[0] == gauges(army=2, civilians=4)
    assert state.gauges[1] == gauges(army=6)
    assert phase(state) == "war-spoils" and state.current_player() == 1
    assert legal(state) == {"take gold", "take wheat"}
    act(state, "take gold")
    assert state.gauges[0] == gauges(army=2, civilians=4, gold=4)
    assert state.gauges[1] == gauges(army=6, gold=6)


def test_good_war_equal_armies_both_lose_1_army_only() -> None:
    state = war(gauges(army=4), gauges(army=4))
    assert state.gauges[0] == gauges(army=3)
    assert state.gauges[1] == gauges(army=3)
    assert phase(state) == "resolve" and state.current_player() == 2


def test_good_war_equal_armies_at_0_lose_civilians_instead() -> None:
    state = war(gauges(army=0), gauges(army=0))
    assert state.gauges[0] == gauges(army=0, civilians=4)
    assert state.gauges[1] == gauges(army=0, civilians=4)


def test_good_war_loss_beyond_army_falls_on_civilians() -> None:
    state = war(gauges(army=3), gauges(army=0))
    assert state.gauges[1] == gauges(army=0, civilians=3)
    assert state.gauges[0] == gauges(army=2)


def test_good_war_winner_takes_what_the_loser_has() -> None:
    state = war(gauges(army=6), gauges(army=4, gold=0))
    assert phase(state) == "resolve" and state.current_player() == 2
    assert state.gauges[0] == gauges(army=5, wheat=6)
    assert state.gauges[1] == gauges(army=3, civilians=4, gold=0, wheat=4)


def test_good_war_winner_takes_nothing_from_a_loser_with_nothing() -> None:
    state = war(gauges(army=6), gauges(army=4, gold=0, wheat=0))
    assert phase(state) == "resolve" and state.current_player() == 2
    assert state.gauges[0] == gauges(army=5)
    assert state.gauges[1] == gauges(army=3, civilians=4, gold=0, wheat=0)


def test_good_war_outpost_is_destroyed_and_shields_the_defender() -> None:
    state = make_state(3, {0: gauges(army=8), 1: gauges(army=1)})
    give_outpost(state, 1, stored=3)
    at_resolve(state, 0, {0: "good-war", 2: "hospital"})
    act(state, "attack 1")
    assert state.outpost[1] == R.NO_STRUCTURE
    assert state.discard[CARD["outpost"]] == 1
    assert state.gauges[1] == gauges(army=1)
    assert state.gauges[0] == gauges(army=7)
    assert phase(state) == "resolve" and state.current_player() == 2
    assert count_cards(state) == 40


def test_good_war_on_an_outpost_attacker_without_army_loses_a_civilian() -> None:
    state = make_state(3, {0: gauges(army=0)})
    give_outpost(state, 1)
    at_resolve(state, 0, {0: "good-war"})
    act(state, "attack 1")
    assert state.gauges[0] == gauges(army=0, civilians=4)
    assert state.gauges[1] == gauges()


def test_good_war_strength_ignores_the_attackers_outpost() -> None:
    state = make_state(3, {0: gauges(army=3), 1: gauges(army=4)})
    give_outpost(state, 0, stored=4)
    at_resolve(state, 0, {0: "good-war"})
    act(state, "attack 1")
    assert state.current_player() == 1  # the defender won and chooses its spoils
    assert state.gauges[0] == gauges(army=2, civilians=4)
    assert state.outpost[0] == 4


def test_good_war_loser_fallen_by_its_civilian_loss_gives_no_spoils() -> None:
    state = war(gauges(army=5), gauges(army=2, civilians=1))
    assert state.standing == [True, False, True]
    assert state.gauges[0] == gauges(army=4)
    assert state.gauges[1] == gauges(army=1, civilians=0)
    assert phase(state) == "resolve" and state.current_player() == 2


def test_good_war_loser_fallen_by_army_losses_loses_nothing_more() -> None:
    state = war(gauges(army=5), gauges(army=0, civilians=1))
    assert state.standing == [True, False, True]
    assert state.gauges[1] == gauges(army=0, civilians=0)
    assert state.gauges[0] == gauges(army=4)


def test_good_war_can_target_either_neighbour() -> None:
    state = at_resolve(make_state(3, {2: gauges(army=1)}), 0, {0: "good-war"})
    assert legal(state) == {"attack 1", "attack 2", "discard"}
    act(state, "attack 2")
    assert state.gauges[2] == gauges(army=0, civilians=4)
    assert state.gauges[1] == gauges()


def test_good_war_resolution_continues_after_the_spoils() -> None:
    state = make_state(3, {0: gauges(army=6)})
    at_resolve(state, 0, {0: "good-war", 1: "hospital"})
    act(state, "attack 1", "take gold")
    assert phase(state) == "resolve" and state.current_player() == 1
    act(state, "play")
    assert gauge(state, 1, "health") == 6
