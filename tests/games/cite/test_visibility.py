"""What each seat can see, and determinization (shared/rules/cite.md, "What each seat can see")."""

from __future__ import annotations

import random
from collections import Counter

from games.cite import rules as R
from services.views import view_of
from tests.games.cite.helpers import CARD, act, count_cards, make_state, start_turn

HOSPITAL, FIRE, CIVIL_WAR = CARD["hospital"], CARD["fire"], CARD["civil-war"]


def dealing(players: int = 3):
    """Seat 0's turn, three cards drawn, civil-war already dealt to seat 1."""
    state = start_turn(make_state(players), 0)
    act(state, "roll commerce", "no levy", "draw fire", "draw hospital", "draw civil-war")
    act(state, "deal civil-war to 1")
    return state


def dealt(players: int = 3):
    """Seat 0 kept hospital, seat 1 got civil-war, seat 2 got fire; seat 0 resolves first."""
    return act(dealing(players), "deal fire to 2")


def seen_cards(state, seat: int | None) -> list[int | None]:
    return [city["card"] for city in state.observation(seat)["cities"]]


def test_gauges_structures_and_standing_are_public() -> None:
    state = make_state(3, fallen=(2,))
    state.gauges[1] = [1, 2, 3, 4, 6]
    state.granary[1] = 2
    state.outpost[1] = 3
    state.deck[CARD["granary"]] -= 1
    state.deck[CARD["outpost"]] -= 1
    for seat in (None, 0, 1, 2):
        city = state.observation(seat)["cities"][1]
        assert city["gauges"] == {"gold": 1, "wheat": 2, "health": 3, "civilians": 4, "army": 6}
        assert (city["granary"], city["outpost"], city["standing"]) == (2, 3, True)
        assert state.observation(seat)["cities"][2]["standing"] is False
        assert state.observation(seat)["deck_count"] == 38


def test_drawn_cards_are_seen_by_the_turn_city_only() -> None:
    state = dealing()
    assert sorted(state.observation(0)["drawn"]) == [HOSPITAL, FIRE]
    for seat in (1, 2, None):
        assert state.observation(seat)["drawn"] is None
        assert state.observation(seat)["drawn_count"] == 2


def test_a_dealt_card_is_seen_by_its_city_and_the_dealer_only() -> None:
    state = dealing()
    assert seen_cards(state, 0) == [None, CIVIL_WAR, None]  # seat 0 keeps its card later
    assert seen_cards(state, 1) == [None, CIVIL_WAR, None]
    assert seen_cards(state, 2) == [None, None, None]
    assert seen_cards(state, None) == [None, None, None]
    assert [c["holds_card"] for c in state.observation(2)["cities"]] == [False, True, False]


def test_after_the_deal_each_city_sees_its_own_card_and_the_dealer_sees_all() -> None:
    state = dealt()
    assert seen_cards(state, 0) == [HOSPITAL, CIVIL_WAR, FIRE]
    assert seen_cards(state, 1) == [None, CIVIL_WAR, None]
    assert seen_cards(state, 2) == [None, None, FIRE]
    assert seen_cards(state, None) == [None, None, None]


def test_view_hides_the_same_cards() -> None:
    state = dealt()
    assert [c.card for c in view_of("cite", state, 2).cities] == [0, 0, FIRE + 1]
    assert [c.card for c in view_of("cite", state, 0).cities] == [
        HOSPITAL + 1,
        CIVIL_WAR + 1,
        FIRE + 1,
    ]
    assert [c.card for c in view_of("cite", state, None).cities] == [0, 0, 0]
    assert [c.holds_card for c in view_of("cite", state, None).cities] == [True, True, True]
    assert list(view_of("cite", state, 1).drawn) == []


def test_a_resolved_card_becomes_public() -> None:
    state = act(dealt(), "play")
    for seat in (None, 1, 2):
        assert state.observation(seat)["discard"][HOSPITAL] == 1
        assert seen_cards(state, seat)[0] is None
        assert state.observation(seat)["cities"][0]["holds_card"] is False


def test_draws_are_announced_to_the_turn_city_only() -> None:
    state = start_turn(make_state(3), 1)
    act(state, "roll commerce", "no levy")
    action = state.string_to_action("draw fire")
    assert state.action_audience(action) == frozenset({1})
    assert state.redacted_action_string(action) == "draw ?"
    assert state.action_to_string(action) == "draw fire"


def test_deals_are_announced_to_dealer_and_recipient_only() -> None:
    state = start_turn(make_state(3), 1)
    act(state, "roll commerce", "no levy", "draw fire", "draw hospital", "draw fire")
    action = state.string_to_action("deal hospital to 2")
    assert state.action_audience(action) == frozenset({1, 2})
    assert state.redacted_action_string(action) == "deal ? to 2"


def test_public_actions_are_announced_to_everyone() -> None:
    state = start_turn(make_state(3), 0)
    roll = state.string_to_action("roll plague")
    assert state.action_audience(roll) is None
    assert state.redacted_action_string(roll) == "roll plague"
    state = dealt()
    play = state.string_to_action("play")
    assert state.action_audience(play) is None
    assert state.redacted_action_string(play) == "play"


def _unseen(state, seat: int) -> Counter:
    """The multiset of cards ``seat`` cannot see: the deck, hidden hands, hidden draws."""
    pool = Counter({card: n for card, n in enumerate(state.deck) if n})
    turn = state.turn
    for s, card in enumerate(state.hand):
        if card != R.NO_CARD and s != seat and seat != turn:
            pool[card] += 1
    if seat != turn:
        pool.update(state.drawn)
    return pool


def test_determinize_keeps_own_card_and_resamples_only_unseen_cards() -> None:
    state = dealt()
    samples = [state.determinize(2, random.Random(k)) for k in range(200)]
    seen_by_1 = Counter()
    for sample in samples:
        assert sample.hand[2] == FIRE
        assert sample.observation(2) == state.observation(2)
        assert sample.gauges == state.gauges and sample.discard == state.discard
        assert _unseen(sample, 2) == _unseen(state, 2)
        assert count_cards(sample) == 40
        seen_by_1[sample.hand[1]] += 1
    assert len(seen_by_1) > 1  # seat 1's card really is resampled


def test_determinize_for_the_dealer_changes_nothing() -> None:
    state = dealt()
    for k in range(20):
        assert state.determinize(0, random.Random(k)) == state


def test_determinize_resamples_hidden_drawn_cards() -> None:
    state = dealing()
    drawn_samples = set()
    for k in range(200):
        sample = state.determinize(2, random.Random(k))
        assert sample.hand[1] != R.NO_CARD and len(sample.drawn) == 2
        assert _unseen(sample, 2) == _unseen(state, 2)
        drawn_samples.add(tuple(sorted(sample.drawn)))
    assert len(drawn_samples) > 1
    for k in range(20):
        sample = state.determinize(1, random.Random(k))
        assert sample.hand[1] == CIVIL_WAR
        assert _unseen(sample, 1) == _unseen(state, 1)
