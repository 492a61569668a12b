"""services.views.as_json: a view's JSON, exactly json_format's (keys in the same order)."""

from __future__ import annotations

import json
import random

import pytest
from google.protobuf import json_format, struct_pb2, wrappers_pb2

from gamehost.v1 import gamehost_pb2 as pb
from games import get_game
from services.views import view_of
from services.views.as_json import view_dict


def _json_format(message) -> str:
    return json.dumps(json_format.MessageToDict(message, always_print_fields_with_no_presence=True))


@pytest.mark.parametrize(
    "game_type,players", [("cite", 2), ("cite", 5), ("catan", 3), ("catan", 4), ("endeavor", 4)]
)
def test_every_seat_and_spectator_view_of_played_games_is_json_formats(game_type, players):
    compared = 0
    for seed in range(2):
        rng = random.Random(seed)
        state = get_game(game_type).new_game(players, seed)
        for _ in range(150):
            if state.is_terminal():
                break
            for seat in [None, *range(players)]:
                view = view_of(game_type, state, seat)
                assert json.dumps(view_dict(view)) == _json_format(view)
                compared += 1
            if state.is_chance_node():
                state.apply_action(state.sample_chance(rng))
            else:
                state.apply_action(rng.choice(state.legal_actions()))
    assert compared > 100


def test_unset_fields_defaults_and_unknown_enum_values_as_json_format():
    view = view_of("cite", get_game("cite").new_game(2, 1), 0)
    view.cities[0].card = 99  # open enums keep a number they do not name
    view.ClearField("winners")
    assert json.dumps(view_dict(view)) == _json_format(view)


def test_messages_the_plan_does_not_cover_are_json_formats_own():
    # 64-bit integers are strings in JSON, well-known types have forms of their own.
    message = pb.SubmitActionResponse(version=7)
    assert json.dumps(view_dict(message)) == _json_format(message)
    assert view_dict(message)["version"] == "7"
    value = struct_pb2.Struct()
    value.update({"a": 1})
    assert view_dict(value) == {"a": 1.0}
    assert view_dict(wrappers_pb2.Int32Value(value=3)) == 3
