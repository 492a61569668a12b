"""Refusals that say what is wrong and what is legal (issue 29: `city 99` said
something unrelated)."""

from __future__ import annotations

import random

import pytest

from games import get_game
from games.catan import rules as R
from services.errors import FailedPrecondition, InvalidArgument
from services.play.submitting import Submitting


def _main_phase():
    state = get_game("catan").new_game(3, 5)
    rng = random.Random(1)
    for _ in range(3000):
        if state.current_player() < 0:
            state.apply_unchecked(state.sample_chance(rng))
        elif state.phase == R.MAIN:
            return state
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    raise AssertionError("no main phase")


def test_a_city_off_the_board_names_the_board() -> None:
    state = _main_phase()
    with pytest.raises(InvalidArgument) as refused:
        Submitting._parse(state, state.current_player(), None, "city 99")
    assert "there is no intersection 99 (they are 0-53)" in str(refused.value)
    assert "offer" not in str(refused.value).split(";")[0]


def test_a_city_where_the_seat_has_no_settlement() -> None:
    state = _main_phase()
    seat = state.current_player()
    empty = next(v for v in range(54) if state.node_owner[v] != seat)
    with pytest.raises(FailedPrecondition) as refused:
        Submitting._parse(state, seat, None, f"city {empty}")
    message = str(refused.value)
    assert f"no settlement of yours at {empty}" in message
    cities = [
        state.action_to_string(a)
        for a in state.legal_actions()
        if a >= R.CITY_BASE and a < R.CITY_BASE + 54
    ]
    if cities:
        assert "legal city moves now: " + ", ".join(cities) in message
    else:
        assert "no city move is legal now" in message
    # The many offers are one item, so the other legal moves show.
    assert "end" in message.split("legal now:")[-1] or cities
