"""E18: what each seat may see: observation, action audience, view and determinize."""

from __future__ import annotations

import random

from gamehost.v1 import catan_pb2
from games.catan import rules as R
from games.catan.engine import CatanState

from .helpers import act, position, random_game


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
    view = s.view(2)
    assert isinstance(view, catan_pb2.CatanView)
    assert catan_pb2.CatanView.FromString(view.SerializeToString()) == view
    p0, p1, p2 = view.players[0], view.players[1], view.players[2]
    assert not p0.resources_visible and p0.resources_unknown == 1 and p0.resource_count == 1
    assert not p1.dev_visible and p1.dev_count == 2 and p1.victory_points == -1
    assert p2.resources_visible and p2.resources.wool == 1
    assert view.robber_hex == 4 and view.phase == catan_pb2.CATAN_MAIN
    assert len(view.hexes) == 19 and len(view.harbors) == 9 and len(view.buildings) == 3
    own = s.view(1).players[1]
    assert own.dev_visible and own.dev_cards.monopoly == 1 and own.victory_points == 2
    spectator = s.view(None)
    assert not any(p.resources_visible or p.dev_visible for p in spectator.players)


def test_view_shows_an_open_offer():
    s = position(settlements={0: [40], 1: [12]}, hands={0: {"wool": 2}, 1: {"ore": 1}})
    act(s, "give 2 wool get 1 ore", "accept")
    view = s.view(None)
    assert view.has_offer and view.offer.give.wool == 2 and view.offer.get.ore == 1
    assert list(view.offer.answers) == [0, 1, 0, 0]
