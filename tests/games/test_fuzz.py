"""Untrusted input never breaks an engine: action text from clients and state bytes
from the store either parse or raise the engine's own error type."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import CorruptStateError, NotationError, game_names, get_game

GAMES = game_names()
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)


@pytest.mark.parametrize("name", GAMES)
@FUZZ
@given(text=st.text(max_size=40))
def test_any_text_parses_or_raises_notation_error(name, text):
    state = get_game(name).new_game(get_game(name).info.min_players, 1)
    try:
        action = state.string_to_action(text)
    except NotationError:
        return
    assert isinstance(action, int)


@pytest.mark.parametrize("name", GAMES)
@FUZZ
@given(blob=st.binary(max_size=200) | json_values.map(lambda v: json.dumps(v).encode()))
def test_any_bytes_load_or_raise_corrupt_state(name, blob):
    state_class = get_game(name).state_class
    try:
        state = state_class.from_bytes(blob)
    except CorruptStateError:
        return
    assert isinstance(state, state_class)


@pytest.mark.parametrize("name", GAMES)
@FUZZ
@given(data=st.data())
def test_a_damaged_state_loads_or_raises_corrupt_state(name, data):
    game = get_game(name)
    fields = json.loads(game.new_game(game.info.max_players, 2).to_bytes())
    key = data.draw(st.sampled_from(sorted(fields)))
    fields[key] = data.draw(json_values)
    try:
        state = game.state_class.from_bytes(json.dumps(fields).encode())
    except CorruptStateError:
        return
    # Whatever loads is a usable state.
    state.legal_actions()
    state.observation(None)
