"""A turn: upkeep, roll, levy, store, draw and deal, resolve (shared/rules/cite.md)."""

from __future__ import annotations

import pytest

from games.base import CHANCE
from games.cite import rules as R
from tests.games.cite.helpers import (
    CARD,
    act,
    at_resolve,
    chances,
    count_cards,
    gauge,
    gauges,
    give_granary,
    give_outpost,
    legal,
    make_state,
    phase,
    start_turn,
)

# ---------------------------------------------------------------- 1. upkeep

# (health, wheat) at the start of the turn -> (civilians, health) after upkeep, civilians
# starting at 5. Each row follows the four upkeep lines, evaluated on start-of-turn values.
UPKEEP = [
    # health < 2: civilians -2 (replaces the -1 of health < 4)
    ((0, 5), (3, 0)),
    ((1, 5), (3, 1)),
    # health < 4: civilians -1
    ((2, 5), (4, 2)),
    ((3, 5), (4, 3)),
    ((4, 5), (5, 4)),
    # health > 8: civilians +1
    ((8, 5), (5, 8)),
    ((9, 5), (6, 9)),
    ((10, 5), (6, 10)),
    # wheat < 1: health -2 (replaces the -1 of wheat < 3)
    ((5, 0), (5, 3)),
    # wheat < 3: health -1
    ((5, 1), (5, 4)),
    ((5, 2), (5, 4)),
    ((5, 3), (5, 5)),
    # wheat >= 8: health +1
    ((5, 7), (5, 5)),
    ((5, 8), (5, 6)),
    ((5, 10), (5, 6)),
    # all lines read the start-of-turn values, then all are applied
    ((2, 0), (4, 0)),  # civilians -1 from health 2, not -2 from the new health 0
    ((4, 1), (5, 3)),  # no civilian loss: health was 4 when evaluated
    ((8, 8), (5, 9)),  # no civilian gain: health was 8 when evaluated
    ((9, 8), (6, 10)),
    ((1, 10), (3, 2)),
    ((1, 0), (3, 0)),
]


@pytest.mark.parametrize(("start", "after"), UPKEEP)
def test_upkeep_lines(start: tuple[int, int], after: tuple[int, int]) -> None:
    health, wheat = start
    state = start_turn(make_state(2, {0: gauges(health=health, wheat=wheat)}), 0)
    assert (gauge(state, 0, "civilians"), gauge(state, 0, "health")) == after
    assert gauge(state, 0, "gold") == 5 and gauge(state, 0, "army") == 5
    assert phase(state) == "roll" and state.current_player() == CHANCE


def test_upkeep_applies_to_the_turn_city_only() -> None:
    state = start_turn(make_state(3, {1: gauges(health=1, wheat=0)}), 0)
    assert state.gauges[1] == gauges(health=1, wheat=0)


def test_upkeep_ignores_wheat_stored_in_the_granary() -> None:
    state = make_state(2, {0: gauges(wheat=0)})
    give_granary(state, 0, stored=2)
    start_turn(state, 0)
    assert gauge(state, 0, "health") == 3
    assert state.granary[0] == 2


def test_upkeep_fall_passes_the_turn_on() -> None:
    state = start_turn(make_state(3, {0: gauges(health=0, civilians=1)}), 0)
    assert state.standing == [False, True, True]
    assert state.turn == 1 and phase(state) == "roll"


# ---------------------------------------------------------------- 2. roll


def test_die_has_five_effects_with_plague_on_two_of_six_faces() -> None:
    state = start_turn(make_state(2), 0)
    outcomes = chances(state)
    assert outcomes == pytest.approx(
        {
            "roll harvest": 1 / 6,
            "roll commerce": 1 / 6,
            "roll plague": 2 / 6,
            "roll hail": 1 / 6,
            "roll medicine": 1 / 6,
        }
    )
    assert sum(outcomes.values()) == pytest.approx(1.0)
    assert state.legal_actions() == []


@pytest.mark.parametrize(
    ("face", "name", "after"),
    [
        ("harvest", "wheat", 6),
        ("commerce", "gold", 6),
        ("plague", "health", 4),
        ("hail", "wheat", 4),
        ("medicine", "health", 6),
    ],
)
def test_die_face_changes_one_gauge_of_the_turn_city(face: str, name: str, after: int) -> None:
    state = start_turn(make_state(2), 0)
    act(state, f"roll {face}")
    expected = dict.fromkeys(R.GAUGE_NAMES, 5) | {name: after}
    assert dict(zip(R.GAUGE_NAMES, state.gauges[0], strict=True)) == expected
    assert state.gauges[1] == gauges()


def test_hail_ignores_stored_wheat() -> None:
    state = make_state(2, {0: gauges(wheat=3, gold=0)})
    give_granary(state, 0, stored=2)
    start_turn(state, 0)
    act(state, "roll hail")
    assert gauge(state, 0, "wheat") == 2 and state.granary[0] == 2


# ---------------------------------------------------------------- 3. levy


def test_levy_is_offered_after_the_roll() -> None:
    state = start_turn(make_state(2), 0)
    act(state, "roll harvest")
    assert phase(state) == "levy" and state.current_player() == 0
    assert legal(state) == {"levy", "no levy"}


def test_levy_converts_1_gold_and_1_civilian_into_1_army() -> None:
    state = start_turn(make_state(2), 0)
    act(state, "roll harvest", "levy")
    assert state.gauges[0] == gauges(gold=4, wheat=6, civilians=4, army=6)
    assert state.levied and state.observation(1)["levied"]
    assert phase(state) == "draw"


def test_no_levy_changes_nothing() -> None:
    state = start_turn(make_state(2), 0)
    act(state, "roll harvest", "no levy")
    assert state.gauges[0] == gauges(wheat=6)
    assert phase(state) == "draw"


def test_levy_needs_gold() -> None:
    state = start_turn(make_state(2, {0: gauges(gold=0)}), 0)
    act(state, "roll harvest")
    assert phase(state) == "draw" and state.current_player() == CHANCE


def test_levy_at_most_once_a_turn() -> None:
    state = make_state(2)
    give_granary(state, 0)
    start_turn(state, 0)
    act(state, "roll harvest", "levy")
    assert phase(state) == "store"
    assert legal(state) == {"store wheat", "empty granary", "done"}
    act(state, "done")
    assert phase(state) == "draw"
    assert gauge(state, 0, "army") == 6


def test_levy_resets_on_the_next_turn() -> None:
    state = start_turn(make_state(2), 0)
    act(state, "roll harvest", "levy", "draw hospital", "draw hospital", "deal hospital to 1")
    act(state, "play", "play")
    assert state.turn == 1 and not state.levied
    act(state, "roll harvest")
    assert legal(state) == {"levy", "no levy"}


def test_levy_can_cause_a_putsch() -> None:
    state = start_turn(make_state(2, {0: gauges(army=9)}), 0)
    act(state, "roll harvest", "levy")
    assert state.is_terminal() and state.winners == [1]


def test_levy_of_the_last_civilian_fells_the_city() -> None:
    state = start_turn(make_state(2, {0: gauges(civilians=1)}), 0)
    act(state, "roll harvest", "levy")
    assert gauge(state, 0, "civilians") == 0
    assert state.is_terminal() and state.winners == [1]


# ---------------------------------------------------------------- 4. store


def _store_step(state, seat: int = 0):
    start_turn(state, seat)
    act(state, "roll commerce", "no levy")
    return state


def test_without_structures_there_is_no_store_step() -> None:
    state = _store_step(make_state(2))
    assert phase(state) == "draw"


def test_granary_holds_two_wheat() -> None:
    state = make_state(2)
    give_granary(state, 0)
    _store_step(state)
    assert legal(state) == {"store wheat", "empty granary", "done"}
    act(state, "store wheat", "store wheat")
    assert gauge(state, 0, "wheat") == 3 and state.granary[0] == 2
    assert legal(state) == {"empty granary", "done"}
    act(state, "done")
    assert phase(state) == "draw" and state.granary[0] == 2


def test_storing_wheat_needs_wheat_in_the_gauge() -> None:
    state = make_state(2, {0: gauges(wheat=0)})
    give_granary(state, 0)
    _store_step(state)
    assert legal(state) == {"empty granary", "done"}


def test_emptying_the_granary_returns_wheat_clamped_and_destroys_it() -> None:
    state = make_state(2, {0: gauges(wheat=9)})
    give_granary(state, 0, stored=2)
    _store_step(state)
    act(state, "empty granary")
    assert gauge(state, 0, "wheat") == 10
    assert state.granary[0] == R.NO_STRUCTURE
    assert state.discard[CARD["granary"]] == 1
    assert count_cards(state) == 40
    assert phase(state) == "draw"


def test_emptying_a_granary_returns_all_its_wheat() -> None:
    state = make_state(2, {0: gauges(wheat=4)})
    give_granary(state, 0, stored=2)
    give_outpost(state, 0)
    _store_step(state)
    act(state, "empty granary")
    assert gauge(state, 0, "wheat") == 6
    assert legal(state) == {"store army", "done"}


def test_outpost_holds_four_army_and_never_gives_it_back() -> None:
    state = make_state(2)
    give_outpost(state, 0)
    _store_step(state)
    assert legal(state) == {"store army", "done"}
    act(state, "store army", "store army", "store army")
    assert legal(state) == {"store army", "done"}
    act(state, "store army")
    # Full: nothing left to do here, the turn moves on to the draw.
    assert state.outpost[0] == 4 and gauge(state, 0, "army") == 1
    assert phase(state) == "draw"


def test_full_outpost_gives_no_store_step() -> None:
    state = make_state(2)
    give_outpost(state, 0, stored=4)
    _store_step(state)
    assert phase(state) == "draw"


def test_storing_army_needs_army_in_the_gauge() -> None:
    state = make_state(2, {0: gauges(army=0)})
    give_outpost(state, 0)
    _store_step(state)
    assert phase(state) == "draw"


def test_only_the_turn_city_stores() -> None:
    state = make_state(2)
    give_granary(state, 1)
    _store_step(state, seat=0)
    assert phase(state) == "draw"


def test_stored_army_does_not_count_towards_a_putsch() -> None:
    state = make_state(2, {0: gauges(army=6)})
    give_outpost(state, 0, stored=4)
    at_resolve(state, 0, {0: "hospital"})
    act(state, "play")
    assert state.standing == [True, True]


# ---------------------------------------------------------------- 5. draw and deal


def _draw_step(state, seat: int = 0):
    start_turn(state, seat)
    act(state, "roll commerce", "no levy")
    assert phase(state) == "draw"
    return state


@pytest.mark.parametrize(("players", "fallen"), [(2, ()), (3, (1,)), (4, ()), (6, (0, 5)), (6, ())])
def test_draws_as_many_cards_as_standing_cities(players: int, fallen: tuple[int, ...]) -> None:
    turn = next(s for s in range(players) if s not in fallen)
    state = _draw_step(make_state(players, fallen=fallen), turn)
    standing = players - len(fallen)
    for k in range(standing):
        assert phase(state) == "draw" and state.current_player() == CHANCE
        act(state, "draw hospital")
        assert len(state.drawn) == k + 1 or phase(state) != "draw"
    assert sum(state.deck) == 40 - standing
    assert phase(state) == "deal" and state.current_player() == turn


def test_draw_probabilities_follow_the_deck() -> None:
    state = _draw_step(make_state(2))
    outcomes = chances(state)
    assert outcomes == pytest.approx(
        {f"draw {name}": count / 40 for name, count in zip(R.CARD_NAMES, R.DECK, strict=True)}
    )
    act(state, "draw hospital")
    assert chances(state)["draw hospital"] == pytest.approx(5 / 39)


def test_empty_deck_is_reshuffled_from_the_discard_pile() -> None:
    state = make_state(2)
    state.discard = list(R.DECK)
    state.discard[CARD["fire"]] -= 1
    state.deck = [0] * R.NUM_CARDS
    state.deck[CARD["fire"]] = 1
    _draw_step(state)
    assert chances(state) == {"draw fire": 1.0}
    act(state, "draw fire")
    expected = list(R.DECK)
    expected[CARD["fire"]] -= 1
    assert state.deck == expected and state.discard == [0] * R.NUM_CARDS
    assert chances(state)["draw fire"] == pytest.approx(4 / 39)
    act(state, "draw fire")
    assert count_cards(state) == 40 and phase(state) == "deal"


def test_turn_city_chooses_who_gets_which_card_and_keeps_the_last() -> None:
    state = _draw_step(make_state(3))
    act(state, "draw fire", "draw hospital", "draw civil-war")
    assert sorted(state.drawn) == sorted(CARD[c] for c in ("fire", "hospital", "civil-war"))
    assert legal(state) == {"deal fire to 1", "deal hospital to 1", "deal civil-war to 1"}
    act(state, "deal civil-war to 1")
    assert legal(state) == {"deal fire to 2", "deal hospital to 2"}
    act(state, "deal fire to 2")
    assert state.hand == [CARD["hospital"], CARD["civil-war"], CARD["fire"]]
    assert state.drawn == []
    assert phase(state) == "resolve" and state.current_player() == 0


def test_identical_cards_give_one_deal_choice() -> None:
    state = _draw_step(make_state(3))
    act(state, "draw fire", "draw fire", "draw hospital")
    assert legal(state) == {"deal fire to 1", "deal hospital to 1"}


def test_fallen_cities_receive_no_card() -> None:
    state = _draw_step(make_state(4, fallen=(2,)), 3)
    act(state, "draw fire", "draw hospital", "draw fire")
    assert phase(state) == "deal"
    act(state, "deal hospital to 0")
    assert legal(state) == {"deal fire to 1"}
    act(state, "deal fire to 1")
    assert state.hand[2] == R.NO_CARD
    assert state.hand[3] == CARD["fire"]
    assert state.resolve_order == [3, 0, 1]


# ---------------------------------------------------------------- 6. resolve


def test_resolution_starts_with_the_turn_city_and_goes_round() -> None:
    state = _draw_step(make_state(3), 1)
    act(state, "draw hospital", "draw fire", "draw granary")
    act(state, "deal fire to 2", "deal granary to 0")
    order = []
    while state.turn == 1:
        order.append(state.current_player())
        act(state, "play")
    assert order == [1, 2, 0]
    assert gauge(state, 1, "health") == 6
    assert gauge(state, 2, "wheat") == 3
    assert state.granary[0] == 0
    assert state.turn == 2


def test_discard_costs_1_gold_and_1_wheat_and_skips_the_effect() -> None:
    state = at_resolve(make_state(2), 0, {0: "fire"})
    assert legal(state) == {"play", "discard"}
    act(state, "discard")
    assert state.gauges[0] == gauges(gold=4, wheat=4)
    assert state.discard[CARD["fire"]] == 1 and state.hand[0] == R.NO_CARD


def test_allegiance_cannot_be_discarded() -> None:
    state = at_resolve(make_state(2), 0, {0: "allegiance"})
    assert legal(state) == {"play"}


@pytest.mark.parametrize("city", [gauges(gold=0), gauges(wheat=0), gauges(gold=0, wheat=0)])
def test_discard_needs_gold_and_wheat(city: list[int]) -> None:
    state = at_resolve(make_state(2, {0: city}), 0, {0: "fire"})
    assert legal(state) == {"play"}


def test_good_war_can_be_discarded() -> None:
    state = at_resolve(make_state(2), 0, {0: "good-war"})
    assert legal(state) == {"attack 1", "discard"}
    act(state, "discard")
    assert state.gauges == [gauges(gold=4, wheat=4), gauges()]


def test_discard_paid_with_stored_wheat_is_not_possible() -> None:
    state = make_state(2, {0: gauges(wheat=0)})
    give_granary(state, 0, stored=2)
    at_resolve(state, 0, {0: "fire"})
    assert legal(state) == {"play"}


def test_city_fallen_before_its_card_comes_up_discards_it() -> None:
    state = make_state(3, {1: gauges(civilians=1, health=3)})
    at_resolve(state, 0, {0: "land-of-welcome", 1: "hospital", 2: "fire"})
    act(state, "play")
    assert state.standing == [True, False, True]
    assert state.hand[1] == R.NO_CARD
    assert state.discard[CARD["hospital"]] == 1
    assert gauge(state, 1, "health") == 3
    assert state.current_player() == 2 and state.resolve_order == [2]


def test_turn_city_fallen_on_its_own_card_still_lets_the_others_resolve() -> None:
    state = make_state(3, {0: gauges(civilians=1)})
    at_resolve(state, 0, {0: "civil-war", 1: "hospital", 2: "fire"})
    act(state, "play")
    assert state.standing == [False, True, True]
    assert state.current_player() == 1
    act(state, "play", "play")
    assert gauge(state, 1, "health") == 6 and gauge(state, 2, "wheat") == 3
    assert state.turn == 1
    assert state.hand == [R.NO_CARD] * 3
