"""Notation for every action id, and serialization of untrusted bytes."""

from __future__ import annotations

import json
import random

import pytest

from games.base import CorruptStateError, IllegalActionError, NotationError
from games.catan import rules as R
from games.catan.engine import Catan, CatanState
from services.views import view_of

from .helpers import act, position, random_game


def _every_id():
    return [
        a
        for a in range(R.NUM_ACTIONS)
        if not (
            R.MARITIME_BASE <= a < R.OFFER_BASE
            and (a - R.MARITIME_BASE) // 5 == (a - R.MARITIME_BASE) % 5
        )
    ]


def test_every_action_id_round_trips():
    s = position(settlements={0: [3]})  # 3:1 harbor for the maritime texts
    texts = set()
    for a in _every_id():
        text = s.action_to_string(a)
        assert s.string_to_action(text) == a, text
        assert s.string_to_action(f"  {text.upper()} ") == a
        texts.add(text)
    assert len(texts) == len(_every_id())  # no two ids share a text
    assert s.action_to_string(R.MARITIME_BASE + 5 * R.WOOL + R.ORE) == "bank 3 wool for ore"


@pytest.mark.parametrize(
    "text, action",
    [
        ("settle 12", R.SETTLE_BASE + 12),
        ("road 40", R.ROAD_BASE + 40),
        ("city 12", R.CITY_BASE + 12),
        ("end", R.END_TURN),
        ("end turn", R.END_TURN),
        ("roll", R.ROLL),
        ("buy dev", R.BUY_DEV),
        ("play knight", R.PLAY_KNIGHT),
        ("play road building", R.PLAY_ROAD_BUILDING),
        ("stop", R.STOP_ROADS),
        ("play year of plenty ore brick", R.YOP_BASE + R.YOP_CHOICES.index((0, 4))),
        ("play year-of-plenty wheat", R.YOP_BASE + R.YOP_CHOICES.index((3,))),
        ("play monopoly wool", R.MONOPOLY_BASE + R.WOOL),
        ("discard brick", R.DISCARD_BASE + R.BRICK),
        ("robber 7", R.ROBBER_BASE + 35),
        ("robber 7 rob 2", R.ROBBER_BASE + 35 + 3),
        ("bank wood for sheep", R.MARITIME_BASE + 5 * R.LUMBER + R.WOOL),
        ("give 2 wool get 1 ore", R.OFFER_BASE + R.OFFER_INDEX[((0, 0, 2, 0, 0), (0, 0, 0, 0, 1))]),
        (
            "give 1 ore 1 brick get 2 grain",
            R.OFFER_BASE + R.OFFER_INDEX[((1, 0, 0, 0, 1), (0, 0, 0, 2, 0))],
        ),
        (
            "give sheep sheep get ore",
            R.OFFER_BASE + R.OFFER_INDEX[((0, 0, 2, 0, 0), (0, 0, 0, 0, 1))],
        ),
        ("accept", R.ACCEPT),
        ("decline", R.DECLINE),
        ("cancel", R.CANCEL_TRADE),
        ("trade with 2", R.CONFIRM_BASE + 2),
        ("dice 7", R.DICE_BASE + 5),
        ("draw victory point", R.DRAW_BASE + R.VICTORY_POINT),
        ("steal ore from 1", R.STEAL_BASE + R.ORE),
    ],
)
def test_documented_notation(text, action):
    s = position()
    assert s.string_to_action(text) == action


@pytest.mark.parametrize(
    "text",
    ["", "fly to the moon", "settle 54", "road 72", "robber 19", "robber 3 rob 9", "bank 3 brick for ore",
     "bank 4 brick for brick", "give 20 wool get 1 ore", "give 1 wool get 1 wool", "dice 13", "draw joker",
     "trade with 7", "play year-of-plenty ore ore ore", "discard gold", "city -1"],
)  # fmt: skip
def test_bad_notation_is_rejected(text):
    s = position()  # seat 0 trades at 4:1, so "bank 3 ..." is wrong too
    with pytest.raises(NotationError):
        s.string_to_action(text)


def test_ids_outside_the_space():
    s = position()
    for bad in (-1, R.NUM_ACTIONS, R.MARITIME_BASE):
        with pytest.raises(NotationError):
            s.action_to_string(bad)
    for bad in (-5, R.NUM_ACTIONS, 10**6, "3", True):
        with pytest.raises(IllegalActionError):
            s.apply_action(bad)


def test_legal_actions_come_sorted_with_offers_last():
    _, log, _ = random_game(5)
    state = Catan.new_game(4, 5)
    for action in log:
        if not state.is_chance_node():
            legal = state.legal_actions()
            assert legal == sorted(legal)
        state.apply_unchecked(action)


# ---------------------------------------------------------------- serialization
def test_bytes_round_trip_mid_game_and_finished():
    initial, log, final = random_game(8, offers=True)
    state = initial.clone()
    for i, action in enumerate(log):
        state.apply_unchecked(action)
        if i % 37 == 0:
            copy = CatanState.from_bytes(state.to_bytes())
            assert copy == state and copy.legal_actions() == state.legal_actions()
            assert copy.current_player() == state.current_player()
            assert copy.vp == state.vp and copy.road_len == state.road_len
    assert CatanState.from_bytes(final.to_bytes()) == final


def test_corrupt_data_is_rejected_cleanly():
    """Random damage to a valid state: it loads or raises CorruptStateError, never else."""
    _, _, final = random_game(2)
    mid = position(settlements={0: [40], 1: [12]}, hands={0: {"wool": 2}, 1: {"ore": 1}})
    act(mid, "give 2 wool get 1 ore")
    rng = random.Random(0)
    junk = [None, -1, 0, 1, 99, 10**12, "x", [], [0], {}, True, 2.5, [-1] * 72, [0] * 20]
    rejected = 0
    for source in (final, mid):
        good = source.to_dict()
        for _ in range(600):
            data = json.loads(json.dumps(good))
            key = rng.choice(sorted(data))
            if isinstance(data[key], list) and data[key] and rng.random() < 0.6:
                data[key][rng.randrange(len(data[key]))] = rng.choice(junk)
            elif rng.random() < 0.1:
                del data[key]
            else:
                data[key] = rng.choice(junk)
            try:
                loaded = CatanState.from_bytes(json.dumps(data).encode())
            except CorruptStateError:
                rejected += 1
                continue
            # whatever loads must work
            loaded.legal_actions()
            loaded.chance_outcomes()
            loaded.observation(0)
            view_of("catan", loaded, None)
    assert rejected > 800


@pytest.mark.parametrize(
    "change",
    [
        {"bank": [19, 19, 19, 19, 18]},  # a card vanished
        {"deck": [14, 2, 2, 2, 4]},
        {"node_owner": [0, -1, -1, 0] + [-1] * 50},  # distance rule
        {"hex_terrain": [0] * 19},
        {"phase": 6},  # a steal without a victim
        {"n": 5},
    ],
)
def test_inconsistent_states_are_rejected(change):
    data = position().to_dict()
    data.update(change)
    with pytest.raises(CorruptStateError):
        CatanState.from_dict(data)
