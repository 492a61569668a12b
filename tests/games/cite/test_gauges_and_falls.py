"""Gauges, the fall of a city, winners, the round limit, neighbours and turn order."""

from __future__ import annotations

import random

import pytest

from games.base import CHANCE, TERMINAL, OptionsError
from games.cite import rules as R
from games.cite.engine import Cite
from tests.games.cite.helpers import (
    act,
    at_resolve,
    gauge,
    gauges,
    legal,
    make_state,
    phase,
    start_turn,
)

# ---------------------------------------------------------------- gauges


@pytest.mark.parametrize("players", range(2, 7))
def test_every_gauge_of_every_city_starts_at_5(players: int) -> None:
    state = Cite.new_game(players, seed=1)
    assert state.gauges == [[5, 5, 5, 5, 5]] * players
    assert state.standing == [True] * players
    assert state.granary == [-1] * players and state.outpost == [-1] * players
    assert sum(state.deck) == 40 and state.deck == list(R.DECK)
    assert (state.turn, state.round, phase(state)) == (0, 1, "roll")
    assert state.current_player() == CHANCE


def test_game_id_is_cite_for_2_to_6_players() -> None:
    assert (Cite.info.name, Cite.info.min_players, Cite.info.max_players) == ("cite", 2, 6)
    for players in (1, 7):
        with pytest.raises(OptionsError):
            Cite.new_game(players, seed=0)


def test_a_gain_past_10_is_clamped() -> None:
    state = at_resolve(make_state(2, {0: gauges(health=10)}), 0, {0: "hospital"})
    act(state, "play")
    assert gauge(state, 0, "health") == 10


def test_a_loss_below_0_is_clamped() -> None:
    state = at_resolve(make_state(2, {0: gauges(wheat=1)}), 0, {0: "fire"})
    act(state, "play")
    assert gauge(state, 0, "wheat") == 0


def test_die_gain_is_clamped_too() -> None:
    state = start_turn(make_state(2, {0: gauges(wheat=10, gold=0)}), 0)
    act(state, "roll harvest")
    assert gauge(state, 0, "wheat") == 10


# ---------------------------------------------------------------- fall conditions


def test_city_falls_when_civilians_reach_0() -> None:
    state = at_resolve(make_state(3, {0: gauges(civilians=1)}), 0, {0: "allegiance"})
    state.gauges[0][R.GOLD] = 0
    act(state, "play")
    assert state.standing == [False, True, True]
    assert not state.is_terminal()


def test_city_falls_when_civilians_reach_10() -> None:
    # Upkeep: health > 8 gives +1 civilian, 9 -> 10: the people overthrow the city.
    state = start_turn(make_state(3, {0: gauges(health=9, civilians=9)}), 0)
    assert state.standing[0] is False
    assert state.turn == 1 and phase(state) == "roll"


def test_city_falls_on_military_putsch_at_army_10() -> None:
    state = start_turn(make_state(3, {0: gauges(army=9)}), 0)
    act(state, "roll commerce", "levy")
    assert gauge(state, 0, "army") == 10
    assert state.standing == [False, True, True]


def test_city_at_9_civilians_and_9_army_stands() -> None:
    state = at_resolve(make_state(2, {0: gauges(civilians=9, army=9)}), 0, {0: "hospital"})
    act(state, "play")
    assert state.standing == [True, True]


# ---------------------------------------------------------------- falls after every single effect


def test_civil_war_civilian_loss_fells_the_city_before_its_army_loss() -> None:
    state = at_resolve(make_state(3, {0: gauges(civilians=1, army=5)}), 0, {0: "civil-war"})
    act(state, "play")
    assert state.standing[0] is False
    assert gauge(state, 0, "army") == 5  # the second effect never happened


def test_upkeep_civilian_line_fells_the_city_before_the_health_line() -> None:
    state = make_state(3, {0: gauges(health=1, wheat=0, civilians=2)})
    start_turn(state, 0)
    assert state.standing[0] is False
    assert gauge(state, 0, "civilians") == 0
    assert gauge(state, 0, "health") == 1  # wheat < 1 (health -2) was not applied
    assert state.turn == 1 and phase(state) == "roll"


def test_land_of_welcome_stops_when_the_player_falls() -> None:
    # Seat 0 at 9 civilians takes one from seat 1 -> 10 and falls; seat 2 keeps its civilian.
    state = at_resolve(make_state(3, {0: gauges(civilians=9)}), 0, {0: "land-of-welcome"})
    act(state, "play")
    assert state.standing == [False, True, True]
    assert [gauge(state, s, "civilians") for s in range(3)] == [10, 4, 5]


def test_land_of_welcome_ends_when_a_neighbour_fall_leaves_one_city() -> None:
    # Seat 1 falls on its loss: seat 0 is then the last city and wins before taking the
    # civilian (which would have made it fall at 10).
    state = make_state(2, {0: gauges(civilians=9), 1: gauges(civilians=1)})
    at_resolve(state, 0, {0: "land-of-welcome"})
    act(state, "play")
    assert state.is_terminal() and state.winners == [0]
    assert gauge(state, 0, "civilians") == 9
    assert state.returns() == [1.0, 0.0]


def test_fall_during_levy_ends_the_turn_without_a_draw() -> None:
    state = start_turn(make_state(3, {0: gauges(civilians=1)}), 0)
    act(state, "roll commerce", "levy")
    assert state.standing == [False, True, True]
    assert sum(state.deck) == 40 and state.drawn == []
    assert state.turn == 1 and phase(state) == "roll"


# ---------------------------------------------------------------- winners


def test_last_city_standing_wins() -> None:
    state = at_resolve(make_state(2, {0: gauges(civilians=1)}), 0, {0: "civil-war"})
    act(state, "play")
    assert state.is_terminal() and state.current_player() == TERMINAL
    assert state.winners == [1]
    assert state.returns() == [0.0, 1.0]
    assert state.legal_actions() == []


def test_a_fall_that_leaves_two_cities_does_not_end_the_game() -> None:
    state = at_resolve(make_state(3, {0: gauges(civilians=1)}), 0, {0: "civil-war"})
    act(state, "play")
    assert not state.is_terminal()
    assert state.returns() == [0.0, 0.0, 0.0]


def test_last_cities_falling_together_share_the_win() -> None:
    # Equal armies at 0: both lose 1 army, taken from civilians (1 -> 0): both fall at once.
    cities = {0: gauges(civilians=1, army=0), 1: gauges(civilians=1, army=0)}
    state = at_resolve(make_state(3, cities, fallen=(2,)), 0, {0: "good-war"})
    act(state, "attack 1")
    assert state.is_terminal()
    assert sorted(state.winners) == [0, 1]
    assert state.returns() == [0.5, 0.5, 0.0]


def test_two_falling_together_leave_the_third_as_sole_winner() -> None:
    cities = {0: gauges(civilians=1, army=0), 1: gauges(civilians=1, army=0)}
    state = at_resolve(make_state(3, cities), 0, {0: "good-war"})
    act(state, "attack 1")
    assert state.is_terminal() and state.winners == [2]
    assert state.returns() == [0.0, 0.0, 1.0]


# ---------------------------------------------------------------- round limit


def test_round_limit_defaults_to_60_and_is_configurable() -> None:
    assert Cite.info.default_options["round_limit"] == 60
    assert Cite.new_game(3, seed=0).round_limit == 60
    assert Cite.new_game(3, seed=0, options={"round_limit": 7}).round_limit == 7
    assert Cite.new_game(3, seed=0, options={"round_limit": "7"}).round_limit == 7
    with pytest.raises(OptionsError):
        Cite.new_game(3, seed=0, options={"round_limit": 0})


def _last_turn_of_round(round_: int, limit: int = 60) -> object:
    """Seat 2 (last seat of 3, seat 1 fallen) resolves the last card of round ``round_``."""
    state = make_state(3, fallen=(1,), round_limit=limit)
    state.round = round_
    return at_resolve(state, 2, {2: "hospital", 0: "hospital"})


def test_round_limit_ends_the_game_with_a_shared_win_of_survivors() -> None:
    state = _last_turn_of_round(60)
    act(state, "play", "play")
    assert state.is_terminal()
    assert state.winners == [0, 2]
    assert state.returns() == [0.5, 0.0, 0.5]
    assert state.hand == [-1, -1, -1]


def test_game_goes_on_until_the_last_round_is_complete() -> None:
    state = _last_turn_of_round(59)
    act(state, "play", "play")
    assert not state.is_terminal()
    assert (state.round, state.turn, phase(state)) == (60, 0, "roll")


def test_configured_round_limit_applies() -> None:
    state = _last_turn_of_round(3, limit=3)
    act(state, "play", "play")
    assert state.is_terminal() and state.winners == [0, 2]


def test_a_round_ends_when_play_passes_seat_0_even_if_seat_0_fell() -> None:
    state = make_state(3, fallen=(0,))
    state.round = 60
    at_resolve(state, 2, {2: "hospital", 1: "hospital"})
    act(state, "play", "play")
    assert state.is_terminal() and state.winners == [1, 2]


def test_round_does_not_advance_within_a_round() -> None:
    state = make_state(3)
    state.round = 5
    at_resolve(state, 0, {0: "hospital", 1: "hospital", 2: "hospital"})
    act(state, "play", "play", "play")
    assert (state.round, state.turn) == (5, 1)


@pytest.mark.parametrize("seed", range(20))
def test_one_round_two_player_game_ends_in_a_shared_win(seed: int) -> None:
    # From 5/5/5/5/5 no city can reach 0 or 10 within one round of two turns.
    rng = random.Random(seed)
    state = Cite.new_game(2, seed, options={"round_limit": 1})
    turns = set()
    while not state.is_terminal():
        turns.add(state.turn)
        action = (
            state.sample_chance(rng)
            if state.is_chance_node()
            else rng.choice(state.legal_actions())
        )
        state.apply_action(action)
    assert turns == {0, 1}
    assert state.winners == [0, 1] and state.returns() == [0.5, 0.5]


# ---------------------------------------------------------------- neighbours and turn order


def test_neighbours_are_the_nearest_standing_city_on_each_side() -> None:
    state = make_state(5)
    assert sorted(state.neighbours(0)) == [1, 4]
    assert sorted(state.neighbours(2)) == [1, 3]


def test_fallen_cities_are_nobodys_neighbour() -> None:
    state = make_state(5, fallen=(1, 4))
    assert sorted(state.neighbours(0)) == [2, 3]
    assert sorted(state.neighbours(2)) == [0, 3]


@pytest.mark.parametrize(("players", "fallen"), [(2, ()), (4, (1, 3)), (6, (1, 2, 4, 5))])
def test_with_two_standing_cities_each_has_one_neighbour(
    players: int, fallen: tuple[int, ...]
) -> None:
    state = make_state(players, fallen=fallen)
    other = next(s for s in range(1, players) if state.standing[s])
    assert state.neighbours(0) == [other]
    assert state.neighbours(other) == [0]


def test_good_war_targets_are_exactly_the_neighbours() -> None:
    state = at_resolve(make_state(4, fallen=(3,)), 0, {0: "good-war"})
    assert legal(state) == {"attack 1", "attack 2", "discard"}


def test_next_standing_city_takes_its_turn_after_resolution() -> None:
    state = make_state(2, {1: gauges(health=9)})
    at_resolve(state, 0, {0: "hospital", 1: "fire"})
    act(state, "play", "play")
    assert (state.turn, phase(state), state.current_player()) == (1, "roll", CHANCE)
    assert gauge(state, 1, "civilians") == 6  # seat 1's upkeep ran (health > 8)
    assert gauge(state, 0, "civilians") == 5


def test_fallen_city_is_skipped_in_turn_order() -> None:
    state = at_resolve(make_state(3, fallen=(1,)), 0, {0: "hospital", 2: "hospital"})
    act(state, "play", "play")
    assert state.turn == 2 and phase(state) == "roll"


def test_largest_round_limit_survives_serialization_to_the_end() -> None:
    limit = Cite.new_game(2, seed=0, options={"round_limit": 1_000_000}).round_limit
    state = _last_turn_of_round(limit, limit=limit)
    act(state, "play", "play")
    assert state.is_terminal()
    assert type(state).from_bytes(state.to_bytes()) == state


def test_round_limit_beyond_what_a_state_can_store_is_rejected() -> None:
    with pytest.raises(OptionsError):
        Cite.new_game(2, seed=0, options={"round_limit": 1_000_001})
