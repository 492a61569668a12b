"""A game's compact record rebuilds its whole log and final state by replay, for
every game type, and keeps what replay cannot know (joins, seat changes, clocks)."""

from __future__ import annotations

import dataclasses

import pytest

from games import game_names
from services.archive import codec
from services.archive.synthetic import finished_game
from services.kinds import EventKind
from services.stores import StoredEvent


@pytest.mark.parametrize("game_type", game_names())
@pytest.mark.parametrize("compression", [codec.ZSTD, codec.GZIP])
def test_a_record_replays_to_the_same_log_and_state(game_type, compression):
    snapshot, events = finished_game(game_type, 4 if game_type != "cite" else 3, seed=11)
    record = codec.encode(snapshot, events)
    # Nothing kept as logged: every event is rebuilt by replay.
    assert not [item for item in record["log"] if isinstance(item, dict)]
    assert "state" not in record
    back = codec.decode(
        snapshot.game_id, codec.unpack(codec.pack(record, compression), compression)
    )
    assert [(e.event_id, e.data) for e in back.events] == [(e.event_id, e.data) for e in events]
    assert back.snapshot.state == snapshot.state
    assert back.snapshot.archived and back.snapshot.last_event_id == len(events)
    assert (back.snapshot.meta, back.snapshot.version) == (snapshot.meta, snapshot.version)


def test_events_replay_cannot_rebuild_are_kept_as_logged():
    snapshot, events = finished_game("cite", 2, seed=3)
    joined = {"kind": EventKind.JOINED, "seat": 1, "name": "Ann", "version": 0, "to_move": 0}
    first_action = next(i for i, e in enumerate(events) if e.data["kind"] == EventKind.ACTION)
    clocked = dict(events[first_action].data, clock={"seat": 0, "deadline": 12.5})
    logged = [e.data for e in events]
    logged[first_action] = clocked
    logged.insert(1, joined)
    stored = [StoredEvent(i + 1, data) for i, data in enumerate(logged)]
    snapshot = dataclasses.replace(snapshot, tokens={1: "ab" * 32})
    record = codec.encode(snapshot, stored)
    assert {"e": joined} in record["log"]
    assert {"a": clocked["action"], "x": {"clock": clocked["clock"]}} in record["log"]
    back = codec.decode(snapshot.game_id, record)
    assert [e.data for e in back.events] == logged
    assert back.snapshot.tokens == {1: "ab" * 32}


def test_a_log_the_engine_does_not_replay_is_kept_whole():
    snapshot, events = finished_game("cite", 2, seed=4)
    logged = [e.data for e in events]
    first_action = next(i for i, e in enumerate(logged) if e["kind"] == EventKind.ACTION)
    logged[first_action] = dict(logged[first_action], text="not the engine's text")
    stored = [StoredEvent(i + 1, data) for i, data in enumerate(logged)]
    record = codec.encode(snapshot, stored)
    assert record["log"][first_action] == {"e": logged[first_action]}
    assert [e.data for e in codec.decode(snapshot.game_id, record).events] == logged


def test_an_action_the_engine_cannot_apply_keeps_the_rest_as_logged():
    snapshot, events = finished_game("cite", 2, seed=5)
    logged = [e.data for e in events]
    first_action = next(i for i, e in enumerate(logged) if e["kind"] == EventKind.ACTION)
    logged[first_action] = dict(logged[first_action], action=10**6)  # no such action
    stored = [StoredEvent(i + 1, data) for i, data in enumerate(logged)]
    record = codec.encode(snapshot, stored)
    assert all(isinstance(item, dict) for item in record["log"][first_action:])
    assert "state" in record  # the final state as stored, since replay stopped
    back = codec.decode(snapshot.game_id, record)
    assert [e.data for e in back.events] == logged and back.snapshot.state == snapshot.state
