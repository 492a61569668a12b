"""WatchGame's messages are built once per event and audience (api.messages.SharedEvents):
streams that see an event alike share one message; a redacted one never reaches a
viewer in the action's audience, nor a full one a viewer outside it."""

from __future__ import annotations

from gamehost.v1 import gamehost_pb2 as pb
from services.api.messages import SharedEvents
from services.kinds import EventKind
from services.stores import StoredEvent
from services.watch import events as ev


def _hidden_action() -> StoredEvent:
    data = {
        "kind": EventKind.ACTION,
        "version": 7,
        "seat": 1,
        "action": 42,
        "text": "draw the 3 of coins",
        "audience": [1],
        "redacted": "draw a card",
        "to_move": 2,
    }
    return StoredEvent(9, data)


def test_each_audience_gets_its_own_message_and_shares_it():
    shared = SharedEvents()
    stored = _hidden_action()
    seen = {viewer: ev.visible(stored.data, viewer) for viewer in (None, 0, 1, 2)}
    messages = {viewer: shared.message(stored, s) for viewer, s in seen.items()}
    assert messages[1].notation == "draw the 3 of coins" and messages[1].action_id == 42
    for outsider in (None, 0, 2):
        assert messages[outsider].hidden and messages[outsider].notation == "draw a card"
        assert messages[outsider].action_id == -1
        assert messages[outsider] is messages[None]  # built once for the outsiders
    assert messages[1] is not messages[None]
    # Once the game is over the log is public: the full message, shared too.
    assert shared.message(stored, ev.visible(stored.data, 0, reveal_all=True)) is messages[1]


def test_a_message_with_legal_actions_is_the_viewers_own():
    shared = SharedEvents()
    stored = _hidden_action()
    public = shared.message(stored, ev.visible(stored.data, 2))
    mine = shared.message(stored, {**ev.visible(stored.data, 2), "legal": [(3, "pass")]})
    assert [(a.id, a.notation) for a in mine.legal_actions] == [(3, "pass")]
    assert mine is not public and not public.legal_actions
    assert shared.message(stored, ev.visible(stored.data, 0)) is public


def test_an_equal_event_of_another_store_read_is_built_anew():
    shared = SharedEvents()
    first, again = _hidden_action(), _hidden_action()
    assert shared.message(first, ev.visible(first.data, 1)) is not shared.message(
        again, ev.visible(again.data, 1)
    )
    assert isinstance(shared.message(first, ev.visible(first.data, 1)), pb.GameEvent)
