"""E18: what each seat may see: observation, action audience, view and determinize."""

from __future__ import annotations

import random

from gamehost.v1 import catan_pb2
from games.catan import rules as R
from games.catan.engine import CatanState
from services.views import view_of

from .helpers import act, legal, position, random_game


def _robbed():
    """Seat 0 robs seat 1 (hand 2 brick, 1 ore) of an ore."""
    s = position(
        phase="robber",
        settlements={0: [40], 1: [18], 2: [12]},
        hands={1: {"brick": 2, "ore": 1}, 2: {"wool": 1}},
        dev={0: {"knight": 1}, 1: {"monopoly": 1, "victory-point": 1}},
    )
    act(s, "robber 4 rob 1")
    return s


def test_e18_steal_identity_goes_to_thief_and_victim_only():
    s = _robbed()
    steal = s.string_to_action("steal ore from 1")
    assert s.action_audience(steal) == frozenset({0, 1})
    assert s.redacted_action_string(steal) == "steal ? from 1"
    assert s.action_to_string(steal) == "steal ore from 1"
    s.apply_action(steal)
    obs = s.observation(2)
    thief, victim = obs["seats"][0], obs["seats"][1]
    assert thief["resource_count"] == 1 and thief["resources_unknown"] == 1
    assert thief["resources_known"] == [0, 0, 0, 0, 0] and thief["resources"] is None
    # the public knew 2 brick + 1 ore; any of them may have gone: 1 brick known, 1 unknown
    assert victim["resources_known"] == [1, 0, 0, 0, 0] and victim["resources_unknown"] == 1
    assert s.observation(0)["seats"][0]["resources"] == [0, 0, 0, 0, 1]
    assert s.observation(1)["seats"][1]["resources"] == [2, 0, 0, 0, 0]


def test_e18_spending_reveals_the_unknown_card():
    s = _robbed()
    act(s, "steal ore from 1")
    data = s.to_dict()
    # give the thief the rest of a development card: wool + grain from the bank
    data["hand"][2] = data["hand"][3] = 1
    data["bank"][2] -= 1
    data["bank"][3] -= 1
    s = CatanState.from_dict(data)
    act(s, "buy dev")
    seat0 = s.observation(3)["seats"][0]
    assert seat0["resources_unknown"] == 0 and seat0["resource_count"] == 0


def test_e18_dev_cards_private_counts_public():
    s = position(
        settlements={0: [40]}, hands={0: {"wool": 1, "grain": 1, "ore": 1}}, dev={1: {"knight": 2}}
    )
    buy = s.string_to_action("buy dev")
    assert s.action_audience(buy) is None
    act(s, "buy dev")
    draw = s.string_to_action("draw knight")
    assert s.action_audience(draw) == frozenset({0}) and s.redacted_action_string(draw) == "draw ?"
    act(s, "draw knight")
    mine = s.observation(0)["seats"]
    theirs = s.observation(2)["seats"]
    assert mine[0]["dev_cards"] == [1, 0, 0, 0, 0] and mine[0]["dev_new"] == [1, 0, 0, 0, 0]
    assert theirs[0]["dev_cards"] is None and theirs[0]["dev_count"] == 1
    assert theirs[0]["dev_new_count"] == 1 and theirs[1]["dev_count"] == 2
    assert theirs[1]["dev_cards"] is None and theirs[1]["vp"] is None
    assert s.observation(None)["deck"] is None and s.observation(None)["deck_count"] == 22


def test_e18_accepting_an_offer_shows_the_cards():
    s = position(
        settlements={0: [40], 1: [12], 2: [18]},
        hands={0: {"wool": 1}, 1: {"ore": 2}},
        hidden={1: {"ore": 2}},
    )
    assert s.observation(2)["seats"][1]["resources_unknown"] == 2
    act(s, "give 1 wool get 1 ore", "accept")
    seat1 = s.observation(2)["seats"][1]
    assert seat1["resources_known"][R.ORE] == 1 and seat1["resources_unknown"] == 1


def test_e18_everything_shows_at_the_end():
    _, _, final = random_game(3)
    obs = final.observation(None)
    assert all(
        seat["resources"] is not None and seat["dev_cards"] is not None for seat in obs["seats"]
    )
    assert obs["deck"] is not None and final.determinize(0, random.Random(1)) == final


def test_determinize_resamples_only_the_hidden():
    s = _robbed()
    act(s, "steal ore from 1")
    seen = set()
    for k in range(40):
        d = s.determinize(2, random.Random(k))
        assert d.observation(2) == s.observation(2)
        assert d.hand[10:15] == s.hand[10:15]  # seat 2's own hand
        assert d.current_player() == s.current_player()
        seen.add((tuple(d.hand), tuple(d.dev), tuple(d.deck)))
    assert len(seen) > 5  # the unknown cards and others' dev cards really vary
    # the thief knows its own card and the victim's, but not the victim's dev cards
    for k in range(20):
        d = s.determinize(0, random.Random(k))
        assert d.hand[0:5] == [0, 0, 0, 0, 1] and d.dev[0:5] == s.dev[0:5]
        assert d.legal_actions() == s.legal_actions()  # seat 0 is the one to move


def test_determinize_depends_only_on_the_observation():
    s = _robbed()
    act(s, "steal ore from 1")
    other = s.determinize(3, random.Random(99))
    assert other != s  # hidden parts differ ...
    for k in range(10):  # ... but seat 3 gets identical samples from both
        assert s.determinize(3, random.Random(k)) == other.determinize(3, random.Random(k))


def test_view_hides_what_the_seat_may_not_see():
    s = _robbed()
    act(s, "steal ore from 1")
    view = view_of("catan", s, 2)
    assert isinstance(view, catan_pb2.CatanView)
    assert catan_pb2.CatanView.FromString(view.SerializeToString()) == view
    p0, p1, p2 = view.players[0], view.players[1], view.players[2]
    assert not p0.resources_visible and p0.resources_unknown == 1 and p0.resource_count == 1
    assert not p1.dev_visible and p1.dev_count == 2 and p1.victory_points == -1
    assert p2.resources_visible and p2.resources.wool == 1
    assert view.robber_hex == 4 and view.phase == catan_pb2.CATAN_MAIN
    assert len(view.hexes) == 19 and len(view.harbors) == 9 and len(view.buildings) == 3
    own = view_of("catan", s, 1).players[1]
    assert own.dev_visible and own.dev_cards.monopoly == 1 and own.victory_points == 2
    spectator = view_of("catan", s, None)
    assert not any(p.resources_visible or p.dev_visible for p in spectator.players)


def test_view_shows_an_open_offer():
    s = position(settlements={0: [40], 1: [12]}, hands={0: {"wool": 2}, 1: {"ore": 1}})
    act(s, "give 2 wool get 1 ore", "accept")
    view = view_of("catan", s, None)
    assert view.has_offer and view.offer.give.wool == 2 and view.offer.get.ore == 1
    assert list(view.offer.answers) == [0, 1, 0, 0]


# ---------------------------------------------------------------- §19a.9 simultaneous discards
def _seven():
    """Seat 0 rolls a 7: seat 0 (9 cards) and seat 1 (8 cards) must discard 4 each."""
    s = position(
        phase="roll",
        settlements={0: [12], 1: [18], 2: [40]},
        hands={0: {"brick": 5, "ore": 4}, 1: {"wool": 4, "grain": 4}, 2: {"lumber": 2}},
    )
    s.apply_action(s.string_to_action("dice 7"))
    assert s.phase == R.DISCARD and s.discard_queue == [0, 1]
    return s


def _public(obs: dict) -> dict:
    """What must not move while discards are pending: hands, counts and the bank."""
    return {"bank": obs["bank"], "seats": obs["seats"]}


def test_s19a9_discards_stay_hidden_until_every_seat_has_discarded():
    from services.watch import events as ev

    s = _seven()
    before = {seat: _public(s.observation(seat)) for seat in (1, 2, None)}
    view_before = view_of("catan", s, 2)
    seat0_events = []
    for text in ("discard brick", "discard ore", "discard ore", "discard brick"):
        action = s.string_to_action(text)
        assert s.action_audience(action) == frozenset({0})
        assert s.redacted_action_string(action) == "discard ?"
        event = ev.action_event(s, action, 1)
        seat0_events.append(event)
        for viewer in (1, 2, None):  # events and records as the others get them
            seen = ev.visible(event, viewer)
            assert seen["hidden"] and seen["text"] == "discard ?" and seen["action"] == -1
        assert ev.visible(event, 0)["text"] == text
        s.apply_action(action)
    # Seat 0 has chosen; nobody else can tell what: views, counts and bank unchanged.
    assert s.current_player() == 1 and s.phase == R.DISCARD
    for seat in (1, 2, None):
        assert _public(s.observation(seat)) == before[seat]
    assert view_of("catan", s, 2).players[0] == view_before.players[0]
    assert list(view_of("catan", s, 2).bank.ListFields()) == list(view_before.bank.ListFields())
    own = s.observation(0)["seats"][0]
    assert own["resources"] == [3, 0, 0, 0, 2] and own["discards_pending"] == [2, 0, 0, 0, 2]
    assert s.observation(1)["seats"][0]["discards_pending"] is None
    # A stored state keeps the pending discards, and reloads to the same state.
    assert CatanState.from_dict(s.to_dict()) == s
    # Seat 1 chooses without knowing seat 0's choice; then all is revealed together.
    act(s, "discard wool", "discard wool", "discard grain")
    assert _public(s.observation(2)) == before[2]
    act(s, "discard wool")
    assert s.phase == R.ROBBER and not any(s.discard_pending)
    seats = s.observation(2)["seats"]
    assert seats[0]["resources_known"] == [3, 0, 0, 0, 2] and seats[0]["resource_count"] == 5
    assert seats[1]["resources_known"] == [0, 0, 1, 3, 0]
    assert s.observation(2)["bank"] == [19 - 3, 19 - 2, 19 - 1, 19 - 3, 19 - 2]


def test_s19a9_a_seat_cannot_discard_more_of_a_kind_than_it_holds():
    s = _seven()
    act(s, "discard ore", "discard ore", "discard ore")
    assert legal(s) == {"discard brick", "discard ore"}
    act(s, "discard ore")
    assert s.current_player() == 1
    s2 = position(
        phase="roll",
        settlements={0: [12], 1: [18], 2: [40]},
        hands={0: {"brick": 8, "ore": 1}, 1: {"wool": 8}},
    )
    s2.apply_action(s2.string_to_action("dice 7"))
    act(s2, "discard ore")
    assert legal(s2) == {"discard brick"}  # the only ore is already set aside


def test_s19a9_determinize_resamples_the_unrevealed_discards():
    s = _seven()
    act(s, "discard brick", "discard ore")
    act(s, "discard ore", "discard brick")  # seat 0 done; seat 1 to discard
    seen = set()
    for k in range(30):
        d = s.determinize(1, random.Random(k))
        assert d.observation(1) == s.observation(1)
        assert sum(d.discard_pending[0:5]) == 4 and d.discard_pending[5:10] == [0] * 5
        assert all(d.discard_pending[i] <= d.hand[i] for i in range(20))
        assert CatanState.from_dict(d.to_dict()) == d
        seen.add(tuple(d.discard_pending))
    assert len(seen) > 1  # seat 1 cannot know what seat 0 set aside
    other = s.determinize(1, random.Random(7))
    for k in range(5):
        assert s.determinize(1, random.Random(k)) == other.determinize(1, random.Random(k))
    # The discarding seat itself keeps its own choice.
    assert s.determinize(0, random.Random(1)).discard_pending[0:5] == [2, 0, 0, 0, 2]
