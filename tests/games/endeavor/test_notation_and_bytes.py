"""The text notation (every id round-trips, parsing is lenient about case and spaces) and
serialization (untrusted bytes are validated: bad data is a CorruptStateError)."""

from __future__ import annotations

import json
import random

import pytest

from games.base import CorruptStateError, NotationError
from games.endeavor import rules as R
from games.endeavor.engine import Endeavor, EndeavorState
from services.views import view_of
from tests.games.endeavor.helpers import (
    BUILDING,
    CITY,
    act,
    give_building,
    give_token,
    harbor,
    make,
)


def test_every_action_id_has_notation_that_parses_back() -> None:
    st = make(3)
    st.phase = R.BUILD  # outside the Action phase: no context-dependent shortcuts
    texts = set()
    for action in range(R.NUM_ACTIONS):
        text = st.action_to_string(action)
        assert st.string_to_action(text) == action, text
        texts.add(text)
    assert len(texts) == R.NUM_ACTIONS


def test_examples_from_the_issue() -> None:
    st = make(3)
    st.phase = R.BUILD
    assert st.string_to_action("build Docks") == R.build(BUILDING["Docks"])
    assert st.string_to_action("ship africa") == R.second(R.ship(1))
    assert st.string_to_action("occupy caribbean-2") == R.second(R.occupy(CITY["caribbean-2"]))
    assert st.string_to_action("attack india-1") == R.second(R.attack(CITY["india-1"]))
    assert st.string_to_action("draw far-east") == R.second(R.draw(6))
    assert st.string_to_action("pass") == R.PASS
    assert st.string_to_action("discard africa-3") == R.discard(1 * 6 + 3)


def test_parsing_is_case_insensitive_and_takes_spaces_or_facts_codes() -> None:
    st = make(3)
    st.phase = R.BUILD
    assert st.string_to_action("BUILD docks") == st.string_to_action("build Docks")
    assert st.string_to_action("build guild hall") == R.build(BUILDING["Guild-Hall"])
    assert st.string_to_action("  Build   Trade Office ") == R.build(BUILDING["Trade-Office"])
    assert st.string_to_action("occupy CA2") == st.string_to_action("occupy caribbean-2")
    assert st.string_to_action("ship far east with ship-draw token") == R.use(
        R.token_source(4), R.ship(6)
    )
    assert st.string_to_action("Pay Colonial House with Exchange") == R.use(
        BUILDING["Exchange"], R.pay(0)
    )


@pytest.mark.parametrize(
    "text",
    ["", "fly to the moon", "build", "build castle", "ship europa", "occupy europe-10",
     "draw atlantis", "ship africa with", "ship africa with castle", "discard africa-6",
     "pass now", "attack caribbean-3 with Barracks"],
)  # fmt: skip
def test_bad_text_is_a_notation_error(text: str) -> None:
    with pytest.raises(NotationError):
        make(3).string_to_action(text)


def test_ids_outside_the_space_are_notation_errors() -> None:
    st = make(3)
    for bad in (-1, R.NUM_ACTIONS, 10**9):
        with pytest.raises(NotationError):
            st.action_to_string(bad)


def test_a_bare_sub_action_names_the_only_source_in_the_action_phase() -> None:
    st = make(3)
    harbor(st, 0, 3)
    give_building(st, 0, "Shipyard")
    assert st.string_to_action("ship africa") == st.string_to_action("ship africa with Shipyard")
    give_token(st, 0, "ship-draw")
    with pytest.raises(NotationError, match="ambiguous"):
        st.string_to_action("ship africa")
    act(st, "ship africa with Shipyard")
    assert st.current_player() == 1


# ---------------------------------------------------------------- bytes


def midgame(seed: int = 1) -> EndeavorState:
    rng = random.Random(seed)
    st = Endeavor.new_game(3 + seed % 3, seed)
    for _ in range(rng.randrange(40, 200)):
        if st.is_terminal():
            break
        st.apply_unchecked(rng.choice(st.legal_actions()))
    return st


def test_bytes_round_trip_mid_game() -> None:
    st = midgame()
    again = EndeavorState.from_bytes(st.to_bytes())
    assert again == st and again.to_bytes() == st.to_bytes()
    assert again.legal_actions() == st.legal_actions()
    assert again.presence == st.presence and again.deck_mask == st.deck_mask


def tampered(change) -> bytes:
    st = midgame()
    assert not st.is_terminal()
    data = st.to_dict()
    change(data)
    return json.dumps(data).encode()


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d.pop("track_values"),
        lambda d: d.update(n=2),
        lambda d: d.update(n=True),
        lambda d: d.update(round=8),
        lambda d: d.update(round_down="no"),
        lambda d: d["supply"].__setitem__(0, d["supply"][0] + 1),  # a 31st marker
        lambda d: d["space_token"].__setitem__(d["space_token"].index(-1), 0),  # a 96th token
        # A track without its icon.
        lambda d: d["track_values"].__setitem__(0, d["track_values"][0] + 1),
        lambda d: d["card_location"].__setitem__(0, 3 if d["card_location"][0] != 3 else 2),
        lambda d: (
            d["building_supply"].__setitem__(1, 5)
            if d["building_supply"][1] != 5
            else d.update(to_move=9)
        ),
        lambda d: d.update(phase=5),  # over, without scores
        lambda d: d.update(city_owner="x"),
        lambda d: d["passed"].__setitem__(0, 1),
        lambda d: d.update(
            shipping_track=[0] + d["shipping_track"][1:]
            if d["shipping_track"][0] < 0
            else [-1] * 40
        ),
        lambda d: d.update(scores={"a": 1}),
    ],
)
def test_corrupt_states_are_rejected(change) -> None:
    with pytest.raises(CorruptStateError):
        EndeavorState.from_bytes(tampered(change))


def test_from_dict_rejects_non_mappings() -> None:
    for junk in ([], "x", 3, None):
        with pytest.raises(CorruptStateError):
            EndeavorState.from_dict(junk)  # type: ignore[arg-type]


def _mutate(data: dict, rng: random.Random) -> None:
    key = rng.choice(sorted(data))
    value = data[key]
    junk = [None, "x", 1.5, True, -3, 10**6, [], {}, [1, 2]]
    if isinstance(value, list) and value and rng.random() < 0.7:
        i = rng.randrange(len(value))
        value[i] = rng.choice([*junk, value[i] + 1 if type(value[i]) is int else 0, -1, 0, 1])
    elif rng.random() < 0.5:
        data[key] = rng.choice(junk)
    else:
        data[key] = value + 1 if type(value) is int else rng.choice(junk)


def test_fuzzed_states_raise_corrupt_state_error_or_play_on() -> None:
    """Random damage to stored states: either rejected cleanly, or a state that still works."""
    rng = random.Random(17)
    accepted = 0
    for round_ in range(1500):
        st = midgame(round_ % 25)
        data = json.loads(st.to_bytes())
        for _ in range(1 + round_ % 3):
            _mutate(data, rng)
        blob = json.dumps(data).encode()
        try:
            loaded = EndeavorState.from_bytes(blob)
        except CorruptStateError:
            continue
        accepted += 1
        view_of("endeavor", loaded, None)
        while not loaded.is_terminal():
            loaded.apply_action(rng.choice(loaded.legal_actions()))
    assert accepted < 1500
