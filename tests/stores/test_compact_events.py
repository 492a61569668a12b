"""The Redis store's packed events read back as the very events written, for every
game type's whole log, the other kinds of event, events of other shapes and the plain
JSON events older versions stored; and they are smaller."""

from __future__ import annotations

import json

import pytest

from games import game_names
from services.archive.synthetic import finished_game
from services.kinds import EventKind, SeatChangeReason, SeatKind
from services.stores import compact
from services.stores.records import Seat
from services.watch import events as ev


def _logs() -> list[list[dict]]:
    return [
        [e.data for e in finished_game(game_type, 4 if game_type != "cite" else 3, seed)[1]]
        for game_type in game_names()
        for seed in (1, 2)
    ]


@pytest.fixture(scope="module")
def logs() -> list[list[dict]]:
    return _logs()


def test_every_event_of_whole_games_reads_back_the_same_and_smaller(logs):
    hidden = 0
    for log in logs:
        for event in log:
            packed = compact.pack(event)
            assert compact.unpack(packed) == event
            assert list(compact.unpack(packed)) == list(event)  # the fields' order too
            plain = json.dumps(event, separators=(",", ":")).encode()
            if event["kind"] in (EventKind.ACTION, EventKind.CREATED):
                assert len(packed) < len(plain)
            else:  # one finished event a game: kept as it is
                assert packed == plain
            hidden += event.get("audience") is not None
    assert hidden > 0, "the logs hold hidden actions (Catan's discards, Endeavor's draws)"


def test_the_action_event_is_an_array_without_names(logs):
    action = next(e for e in logs[0] if e["kind"] == EventKind.ACTION and e["audience"] is None)
    packed = compact.pack(action)
    assert json.loads(packed) == [
        action["version"],
        action["seat"],
        action["action"],
        action["text"],
        action["to_move"],
    ]
    hidden = next(e for log in logs for e in log if e.get("audience") is not None)
    assert json.loads(compact.pack(hidden))[5:] == [hidden["audience"], hidden["redacted"]]
    created = next(e for e in logs[0] if e["kind"] == EventKind.CREATED)
    assert b'"initial_z"' in compact.pack(created) and b'"initial"' not in compact.pack(created)


@pytest.mark.parametrize(
    "event",
    [
        {
            "kind": "action",
            "version": 3,
            "seat": 0,
            "action": 7,
            "text": "take 7",
            "audience": None,
            "redacted": None,
            "to_move": 1,
            "timeout": True,
            "clock": {"seat": 1, "deadline": 12.5},
        },
        {
            "kind": "action",
            "version": 3,
            "seat": 0,
            "action": 7,
            "text": "discard",
            "audience": [0],
            "redacted": "discard 2",
            "to_move": 1,
        },
        {
            "kind": "action",
            "version": 3,
            "seat": 0,
            "action": 7,
            "text": "x",
            "audience": None,
            "redacted": "only redacted",
            "to_move": 1,
        },
        {
            "kind": "action",
            "version": True,
            "seat": 0,
            "action": 7,
            "text": "x",
            "audience": None,
            "redacted": None,
            "to_move": 1,
        },
        {
            "kind": "action",
            "version": 3,
            "seat": 0,
            "action": 7,
            "text": "no audience field",
            "to_move": 1,
        },
        {"kind": "action"},
        {"n": 1},
        ev.joined_event(2, "Ann", 4, 1),
        ev.seat_changed_event(1, Seat(SeatKind.BOT, "random"), SeatChangeReason.AWAY, 5, 1),
        ev.abandoned_event(9, "tournament t was cancelled"),
        {"kind": "created", "version": 0, "initial": "not base64!", "to_move": 0},
        {"kind": "created", "version": 0, "initial": "QQ", "to_move": 0},  # unpadded
        {"kind": "created", "version": 0, "initial": "", "to_move": 0},
    ],
)
def test_events_of_any_shape_read_back_the_same(event):
    assert compact.unpack(compact.pack(event)) == event


def test_plain_json_events_of_older_versions_read_back_unchanged(logs):
    for event in logs[0][:50]:
        assert compact.unpack(json.dumps(event).encode()) == event


def test_a_created_event_named_like_the_packed_form_is_refused():
    with pytest.raises(ValueError, match="initial_z"):
        compact.pack({"kind": "created", "initial_z": "AAAA"})
